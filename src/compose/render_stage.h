// The video side of `lingcast render`:
//
//   (speech stage) --SpeechTiming--> RenderStage --frame--> (encode stage)
//
// RenderStage turns each stretch's phonemes into mouth shapes (lipsync), then
// renders every frame whose pts falls inside the speech it has been told
// about, from the avatar's animation state at that pts, composited with the
// background, subtitles and lower third.
#pragma once

#include <atomic>
#include <deque>
#include <memory>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "compose/compositor.h"
#include "compose/gpu_compositor.h"
#include "core/work_time.h"
#include "graph/stage.h"
#include "media/speech_timing.h"
#include "media/video_frame.h"
#include "media/viseme.h"

namespace lingcast {

class RenderStage : public Stage {
 public:
  // `burn_subtitles` false: subtitles are not drawn (srt sidecar or none).
  // `frames_in_flight`: frames that exist at once (being drawn or queued
  // downstream); the stage waits for one to be released before drawing more.
  // `gpu` (optional): a GPU compositor over `compositor` that draws the frames
  // instead (--renderer cuda), two in flight; they then carry their yuv420p
  // picture. Needs frames_in_flight >= 3 (two on the GPU, one downstream).
  RenderStage(std::unique_ptr<compose::Compositor> compositor, std::unique_ptr<AvatarRenderer> avatar,
              AnimatorOptions animation, int fps, bool burn_subtitles,
              int frames_in_flight = kDefaultFramesInFlight, std::unique_ptr<compose::GpuCompositor> gpu = nullptr);
  // One being drawn, a few queued for the encoder: 4 x 3.7 MB at 720p.
  static constexpr int kDefaultFramesInFlight = 4;
  In<SpeechTiming> in{this, "in"};
  Out<std::shared_ptr<VideoFrame>> out{this, "out"};
  absl::Status Open() override;
  absl::StatusOr<Flow> Process() override;

  // Read by the job's progress line while the stage runs (thread-safe).
  int64_t frames_rendered() const { return frames_rendered_.load(); }
  double render_seconds() const { return render_time_.seconds(); }  // computing, not waiting

 private:
  // Waits for the oldest frame on the GPU and sends it downstream.
  absl::Status PushOldestGpuFrame();

  std::unique_ptr<compose::Compositor> compositor_;
  std::unique_ptr<AvatarRenderer> avatar_;
  std::unique_ptr<compose::GpuCompositor> gpu_;  // after compositor_: goes first, it uses it
  // Frames started on the GPU and not yet pushed, oldest first.
  struct PendingFrame {
    MediaTime pts, duration, origin;
  };
  std::deque<PendingFrame> pending_;
  AnimatorOptions animation_;  // grows by one ExpressionChange per `@emotion` change
  const int fps_;
  const bool burn_subtitles_;
  const int frames_in_flight_;
  std::shared_ptr<VideoFramePool> pool_;
  VisemeTrack visemes_;  // absolute times; recent history and what is known ahead
  AvatarState state_;    // the state being drawn (read by the compositor's avatar callback)
  int64_t next_frame_ = 0;
  std::atomic<int64_t> frames_rendered_{0};
  WorkTime render_time_;
};

}  // namespace lingcast
