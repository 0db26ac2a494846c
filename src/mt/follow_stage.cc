#include "mt/follow_stage.h"

#include <utility>

#include "core/status.h"

namespace lingcast {

FollowStage::FollowStage(SpeechFollower follower, std::vector<FollowerLine> lines, FollowStageOptions options)
    : Stage("hear"), follower_(std::move(follower)), lines_(std::move(lines)), options_(options) {}

absl::StatusOr<Flow> FollowStage::Process() {
  auto packet = in.Pop();
  if (!packet) {
    // End of input: the utterance in flight is finished and decided. (The
    // recognizer's position starts again from 0 once it has flushed.)
    const MediaTime end = follower_.position();
    LC_RETURN_IF_ERROR(
        follower_.Flush([&](FollowEvent event) { return Send(std::move(event), heard_until_, last_origin_); }));
    LC_RETURN_IF_ERROR(SendWatermark(end, last_origin_));
    return Flow::kFinished;
  }
  last_origin_ = packet->origin;
  const MediaTime origin = packet->origin;
  LC_RETURN_IF_ERROR(follower_.Push(
      packet->value, [&](FollowEvent event) { return Send(std::move(event), heard_until_, origin); }));
  heard_until_ = packet->end();
  LC_RETURN_IF_ERROR(SendWatermark(heard_until_, origin));
  return Flow::kContinue;
}

absl::Status FollowStage::Send(FollowEvent event, MediaTime watermark, MediaTime origin) {
  LiveEvent out_event;
  out_event.watermark = watermark;
  if (event.type == FollowEvent::Type::kDecision) {
    const FollowDecision& d = event.decision;
    HeardLine line;
    line.id = next_id_++;
    line.utterance = event.utterance;
    line.confidence = d.confidence;
    line.commit_point = d.commit_point;
    line.opening_logp = d.opening_logp;
    line.at_endpoint = d.at_endpoint;
    line.heard = d.heard;
    line.speech_translation = d.speech_translation;
    line.utterance_start = event.utterance_start;
    line.decided_at = event.decided_at;
    line.trigger_origin = origin;
    if (!d.off_script && d.line && static_cast<size_t>(*d.line) < lines_.size()) {
      const FollowerLine& script_line = lines_[static_cast<size_t>(*d.line)];
      line.line_number = script_line.line_number;
      line.source_text = script_line.source;
      line.translation = script_line.translation;
      line.engine = line.translation.empty() ? "" : "script";
    } else {
      line.source_text = d.heard;
    }
    out_event.line = std::move(line);
  } else if (event.type == FollowEvent::Type::kUtteranceEnd) {
    out_event.ended = UtteranceEnded{event.utterance, event.utterance_start, event.utterance_end, event.text};
  } else if (event.type == FollowEvent::Type::kPartial && options_.partials && !event.text.empty()) {
    out_event.partial = HeardPartial{event.utterance, event.text, event.utterance_start, event.decided_at};
  } else {
    return absl::OkStatus();
  }
  // A line or an utterance's end must not wait behind a caption's engine call.
  if (options_.interrupt != nullptr && !out_event.partial) options_.interrupt->Urgent();
  return out.Push(Packet<LiveEvent>{std::move(out_event), watermark, MediaTime::Zero(), origin});
}

absl::Status FollowStage::SendWatermark(MediaTime watermark, MediaTime origin) {
  // Everything heard up to here has been decided.
  LiveEvent mark;
  mark.watermark = watermark;
  return out.Push(Packet<LiveEvent>{std::move(mark), watermark, MediaTime::Zero(), origin});
}

}  // namespace lingcast
