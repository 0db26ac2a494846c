// Backgrounds read from files with libav: a still image (PNG, JPEG, anything
// libavformat opens that holds one picture) scaled once, or a looping video
// decoded on its own thread into a small bounded queue of frames already scaled
// to the output size.
//
// Fit modes (how a picture of another aspect ratio fills the frame):
//   cover   scaled to fill the whole frame, centred, the overflow cropped (default)
//   contain scaled to fit inside the frame, centred, on opaque black bars
//   stretch scaled to the frame size exactly, aspect ratio not kept
// Transparent pixels are composed over black: a background is always opaque.
//
// Looping video is deterministic for a given t: the frame shown at output time t
// is the last frame whose presentation time is <= (t mod the video's duration),
// whatever was asked before. Timestamps come from a packet scan at open time,
// so the duration is exact (last frame's pts + its duration) and the loop is
// seamless: frame 0 follows the last frame with no gap and no repeat.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/video_frame.h"

namespace lingcast::compose {

enum class BackgroundFit { kCover, kContain, kStretch };

// "cover", "contain", "stretch"; InvalidArgument naming the value otherwise.
absl::StatusOr<BackgroundFit> ParseBackgroundFit(const std::string& text);
const char* BackgroundFitName(BackgroundFit fit);

// What a media file holds, from a scan of its video packets (nothing decoded).
struct MediaProbe {
  int frame_count = 0;             // video frames (1: a still image)
  MediaTime duration;              // of one loop; zero for a still image
  std::vector<MediaTime> frame_times;  // presentation times from the first frame, sorted
  int source_width = 0;
  int source_height = 0;
};

// NotFound for a missing file; InvalidArgument, naming the file, when it is not
// media libav can read, has no video stream, or its first frame cannot be decoded.
absl::StatusOr<MediaProbe> ProbeBackgroundFile(const std::string& path);

// The first picture of `path` fitted to width x height (opaque, premultiplied).
absl::StatusOr<VideoFrame> LoadImageBackground(const std::string& path, int width, int height,
                                               BackgroundFit fit);

// A looping video background. The decoder thread runs ahead of the compositor
// by at most `queue_frames` frames; FrameAt() is called by one thread (the
// compositor's). Jumping backwards (or far ahead) restarts the decoder at the
// loop the wanted frame is in.
class VideoBackground {
 public:
  static constexpr int kDefaultQueueFrames = 4;

  // Errors as ProbeBackgroundFile; InvalidArgument too for a file with one frame
  // (use LoadImageBackground for that).
  static absl::StatusOr<std::unique_ptr<VideoBackground>> Open(const std::string& path, int width,
                                                               int height, BackgroundFit fit,
                                                               int queue_frames = kDefaultQueueFrames);
  ~VideoBackground();
  VideoBackground(const VideoBackground&) = delete;
  VideoBackground& operator=(const VideoBackground&) = delete;

  // The frame shown at output time `t` (t < 0 is treated as 0). The pointer is
  // valid until the next call. A decoding failure mid-file is returned here,
  // naming the file.
  absl::StatusOr<const VideoFrame*> FrameAt(MediaTime t);

  // Which frame of the loop is shown at `t` (0 .. frame_count - 1), and the
  // sequence number of that showing (loop * frame_count + index).
  int FrameIndexAt(MediaTime t) const;
  int64_t SequenceAt(MediaTime t) const;

  const MediaProbe& probe() const { return probe_; }
  int64_t frames_decoded() const;  // by the decoder thread, restarts included
  int restarts() const;

 private:
  struct Decoded {
    int64_t sequence = 0;
    VideoFrame frame;
  };

  VideoBackground(std::string path, int width, int height, BackgroundFit fit, int queue_frames,
                  MediaProbe probe);
  void DecodeLoop();
  // Decodes one pass over the file starting at loop `loop`; returns early when
  // asked to stop or restart.
  absl::Status DecodePass(int64_t loop);

  const std::string path_;
  const int width_, height_;
  const BackgroundFit fit_;
  const size_t queue_frames_;
  const MediaProbe probe_;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Decoded> queue_ ABSL_GUARDED_BY(mu_);
  // Frames the compositor is done with, for the decoder to fill again: a 4K
  // frame is 33 MB, too much to allocate and zero 30 times a second.
  std::vector<VideoFrame> spare_ ABSL_GUARDED_BY(mu_);
  int64_t start_loop_ ABSL_GUARDED_BY(mu_) = 0;  // where the decoder (re)starts
  int64_t restart_generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  int64_t frames_decoded_ ABSL_GUARDED_BY(mu_) = 0;
  int restarts_ ABSL_GUARDED_BY(mu_) = 0;

  // The consumer's side (the compositor's thread only).
  VideoFrame current_;
  int64_t current_sequence_ = -1;

  std::thread decoder_;  // last: started when everything above exists
};

}  // namespace lingcast::compose
