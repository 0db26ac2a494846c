// The picture a live show sends: frame size and frame rate, and the rules every
// way of choosing them obeys (`--size`/`--fps` at start-up, the `video` control
// command and the server's video endpoint while it runs).
#pragma once

#include <string>

#include "absl/status/status.h"

namespace lingcast {

inline constexpr int kMinFrameWidth = 160, kMinFrameHeight = 90;
inline constexpr int kMaxFrameWidth = 7680, kMaxFrameHeight = 4320;
inline constexpr int kMinLiveFps = 1, kMaxLiveFps = 120;

struct VideoFormat {
  int width = 1280;
  int height = 720;
  int fps = 30;
  bool operator==(const VideoFormat&) const = default;
};

// A change asked for while live: a field left at 0 keeps the current value.
struct VideoChange {
  int width = 0;
  int height = 0;
  int fps = 0;
  VideoFormat AppliedTo(const VideoFormat& current) const {
    return {width > 0 ? width : current.width, height > 0 ? height : current.height, fps > 0 ? fps : current.fps};
  }
};

// OK, or InvalidArgument with the reason alone ("must be between 160x90 and
// 7680x4320", "width and height must be even (H.264 4:2:0 video)"); the caller
// names what it checked (the flag, the command).
absl::Status CheckFrameSize(int width, int height);
// OK, or InvalidArgument "is outside 1..120".
absl::Status CheckLiveFps(int fps);

std::string VideoFormatText(const VideoFormat& format);  // "1280x720@30"

}  // namespace lingcast
