#include "output/encode_stage.h"

#include <utility>

#include "core/status.h"

namespace lingcast {

EncodeStage::EncodeStage(std::unique_ptr<OutputSet> outputs, int fps, Clock* pace_clock,
                         std::function<std::vector<SubtitleCue>()> cues_at_end)
    : Stage("encode"),
      outputs_(std::move(outputs)),
      fps_(fps),
      pace_clock_(pace_clock),
      cues_at_end_(std::move(cues_at_end)) {}

absl::StatusOr<Flow> EncodeStage::Process() {
  if (audio_ended_ && video_ended_) {
    WorkTime::Scope timer(encode_time_);
    if (cues_at_end_) {
      for (SubtitleCue& cue : cues_at_end_()) {
        std::vector<std::string> lines = {std::move(cue.primary.text)};
        if (!cue.secondary.text.empty()) lines.push_back(std::move(cue.secondary.text));
        LC_RETURN_IF_ERROR(outputs_->AddSubtitle(cue.start, cue.end, std::move(lines)));
      }
    }
    LC_RETURN_IF_ERROR(outputs_->Finish());
    finished_ = true;
    return Flow::kFinished;
  }
  // Take whichever stream is behind, so neither upstream queue has to hold
  // more than its share (and the muxer interleaves with little buffering).
  const bool take_audio = !audio_ended_ && (video_ended_ || audio_end_ <= video_end_);
  if (take_audio) {
    auto packet = audio.Pop();
    if (!packet) {
      audio_ended_ = true;
      return Flow::kContinue;
    }
    audio_end_ = packet->end();
    WorkTime::Scope timer(encode_time_);
    LC_RETURN_IF_ERROR(outputs_->WriteAudio(packet->value));
    return Flow::kContinue;
  }
  auto packet = video.Pop();
  if (!packet) {
    video_ended_ = true;
    return Flow::kContinue;
  }
  video_end_ = packet->end();
  if (pace_clock_ != nullptr) {
    // --realtime: a frame goes out when a live camera would have delivered it.
    if (!pace_start_) pace_start_ = pace_clock_->Now() - packet->pts;
    pace_clock_->SleepUntil(*pace_start_ + packet->pts);
  }
  {
    WorkTime::Scope timer(encode_time_);
    // The frame's index on the output timeline comes from its pts, so a frame
    // that never arrives leaves a gap rather than shifting every later frame.
    const int64_t index = (packet->pts.micros() * fps_ + 500'000) / 1'000'000;
    LC_RETURN_IF_ERROR(outputs_->WriteVideo(*packet->value, index));
  }
  frames_encoded_.fetch_add(1);
  return Flow::kContinue;
}

}  // namespace lingcast
