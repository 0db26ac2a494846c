// Golden-image checks for the renderer tests (avatar and compose): a frame is
// compared with a PNG stored under src/<module>/testdata/.
//
// Tolerance: a pixel matches when each of its four channels is within
// `max_channel_diff` (default 2 of 255) of the golden one; at most
// `max_outlier_fraction` of the pixels may differ by more (default none). The
// renderer is integer and deterministic, so on one machine the bytes are
// identical; the slack covers other compilers' float rounding of gradients and
// other FreeType/HarfBuzz versions' glyph edges (the subtitle goldens allow a
// few outliers for those).
//
// LINGCAST_UPDATE_GOLDEN=1 in the environment writes the frames as the new
// goldens instead of comparing (then look at them and commit them).
// On a mismatch the frame is written next to the test binary as
// golden-diff/<name>.png, to look at.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/video_frame.h"

namespace lingcast::golden {

struct Tolerance {
  int max_channel_diff = 2;
  double max_outlier_fraction = 0;
};

// PNG (8-bit RGBA, stored as the frame's bytes) <-> VideoFrame. Goldens are
// drawn on opaque backgrounds, where premultiplied and straight alpha agree.
absl::Status WritePng(const VideoFrame& frame, const std::string& path);
absl::StatusOr<VideoFrame> ReadPng(const std::string& path);

// OK when `frame` matches the golden at `golden_path` within `tolerance` (or
// when updating goldens); otherwise an error naming the file, how many pixels
// differ, the largest difference and where, and where the frame was written.
absl::Status CompareWithGolden(const VideoFrame& frame, const std::string& golden_path,
                               const Tolerance& tolerance, const std::string& diff_dir);

bool UpdatingGoldens();

}  // namespace lingcast::golden
