#include "compose/render_stage.h"

#include <algorithm>
#include <utility>

#include "compose/lower_third.h"
#include "core/status.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {
namespace {

// Viseme cues older than this behind the frame being drawn are forgotten, so a
// long render keeps a bounded track.
constexpr MediaTime kVisemeHistory = MediaTime::Seconds(2);

}  // namespace

RenderStage::RenderStage(std::unique_ptr<compose::Compositor> compositor, std::unique_ptr<AvatarRenderer> avatar,
                         AnimatorOptions animation, int fps, bool burn_subtitles, int frames_in_flight,
                         std::unique_ptr<compose::GpuCompositor> gpu)
    : Stage("video"),
      compositor_(std::move(compositor)),
      avatar_(std::move(avatar)),
      gpu_(std::move(gpu)),
      animation_(animation),
      fps_(fps),
      burn_subtitles_(burn_subtitles),
      frames_in_flight_(frames_in_flight) {}

absl::Status RenderStage::Open() {
  // The GPU keeps two frames while a third may wait downstream.
  const int frames = gpu_ ? std::max(frames_in_flight_, compose::GpuCompositor::kFramesInFlight + 1) : frames_in_flight_;
  pool_ = VideoFramePool::Create(compositor_->options().width, compositor_->options().height, frames);
  compositor_->SetAvatarRenderer(
      [this](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar_->Render(state_, frame, area, clip); });
  if (gpu_) gpu_->SetAvatarRenderer([this](VectorSurface& surface, const Rect& area) { avatar_->Draw(state_, area, surface); });
  return absl::OkStatus();
}

absl::Status RenderStage::PushOldestGpuFrame() {
  const PendingFrame pending = pending_.front();
  pending_.pop_front();
  std::shared_ptr<VideoFrame> frame;
  {
    WorkTime::Scope timer(render_time_);
    LC_ASSIGN_OR_RETURN(frame, gpu_->Finish());
  }
  LC_RETURN_IF_ERROR(out.Push(Packet<std::shared_ptr<VideoFrame>>{std::move(frame), pending.pts, pending.duration,
                                                                  pending.origin}));
  frames_rendered_.fetch_add(1);
  return absl::OkStatus();
}

absl::StatusOr<Flow> RenderStage::Process() {
  auto packet = in.Pop();
  if (!packet) {
    while (!pending_.empty()) LC_RETURN_IF_ERROR(PushOldestGpuFrame());
    return Flow::kFinished;
  }

  // Extend the mouth track with this stretch of speech (absolute times).
  const MediaTime frame_time = MediaTime::FromFrameIndex(next_frame_, fps_);
  std::erase_if(visemes_.cues, [&](const VisemeCue& c) { return c.end + kVisemeHistory < frame_time; });
  for (const VisemeCue& cue : PhonemesToVisemes(packet->value.phonemes).cues) {
    visemes_.cues.push_back(VisemeCue{cue.start + packet->pts, cue.end + packet->pts, cue.shape});
  }
  // The face changes as the line it was set for begins (blended in by the animator).
  if (const auto& expression = packet->value.expression) {
    const Expression current =
        animation_.expressions.empty() ? Expression::kNeutral : animation_.expressions.back().expression;
    if (*expression != current) animation_.expressions.push_back(ExpressionChange{packet->pts, *expression});
  }
  // A `@title` takes over the lower third from this stretch on: the title
  // showing slides out, then the new one slides in.
  if (const auto& title = packet->value.title) {
    const MediaTime free_at = compositor_->EndTitles(packet->pts);
    if (!title->empty()) {
      LC_ASSIGN_OR_RETURN(compose::LowerThird lower_third, compose::ParseLowerThird(*title, free_at, MediaTime::Max()));
      LC_RETURN_IF_ERROR(compositor_->AddTitle(lower_third));
    }
  }
  const Animator animator(visemes_, animation_);
  const SubtitleCue* cue = burn_subtitles_ && packet->value.cue ? &*packet->value.cue : nullptr;

  // Every frame whose pts falls inside this packet's span.
  for (;;) {
    const MediaTime pts = MediaTime::FromFrameIndex(next_frame_, fps_);
    if (pts >= packet->end()) break;
    const MediaTime next_pts = MediaTime::FromFrameIndex(next_frame_ + 1, fps_);
    if (gpu_) {
      // Pipelined: this frame is recorded while the GPU finishes the one before,
      // which goes downstream once this one is started.
      if (gpu_->in_flight() == compose::GpuCompositor::kFramesInFlight) LC_RETURN_IF_ERROR(PushOldestGpuFrame());
      std::shared_ptr<VideoFrame> frame = pool_->Acquire();
      {
        WorkTime::Scope timer(render_time_);
        state_ = animator.StateAt(pts);
        LC_RETURN_IF_ERROR(gpu_->Start(pts, cue, std::move(frame)));
      }
      pending_.push_back(PendingFrame{pts, next_pts - pts, packet->origin});
      ++next_frame_;
      continue;
    }
    std::shared_ptr<VideoFrame> frame = pool_->Acquire();
    {
      WorkTime::Scope timer(render_time_);
      state_ = animator.StateAt(pts);
      LC_RETURN_IF_ERROR(compositor_->Compose(pts, cue, *frame));
    }
    LC_RETURN_IF_ERROR(out.Push(Packet<std::shared_ptr<VideoFrame>>{std::move(frame), pts, next_pts - pts,
                                                                    packet->origin}));
    ++next_frame_;
    frames_rendered_.fetch_add(1);
  }
  return Flow::kContinue;
}

}  // namespace lingcast
