#include "app/speech_follower.h"

#include <utility>

#include "core/status.h"

namespace lingcast {

absl::StatusOr<SpeechFollower> SpeechFollower::Create(const AsrModel& model, std::vector<FollowerLine> lines,
                                                      const SpeechFollowerOptions& options) {
  LC_ASSIGN_OR_RETURN(StreamingRecognizer recognizer, StreamingRecognizer::Create(model, options.recognizer));
  return SpeechFollower(std::move(recognizer), ScriptFollower(std::move(lines), options.follower));
}

SpeechFollower::SpeechFollower(StreamingRecognizer recognizer, ScriptFollower follower)
    : recognizer_(std::move(recognizer)), follower_(std::move(follower)) {}

absl::StatusOr<std::vector<FollowEvent>> SpeechFollower::Push(const AudioBuffer& pcm16k) {
  LC_ASSIGN_OR_RETURN(std::vector<RecognizerEvent> events, recognizer_.Push(pcm16k));
  std::vector<FollowEvent> out;
  for (RecognizerEvent& event : events) Handle(std::move(event), out);
  return out;
}

absl::StatusOr<std::vector<FollowEvent>> SpeechFollower::Flush() {
  LC_ASSIGN_OR_RETURN(std::vector<RecognizerEvent> events, recognizer_.Flush());
  std::vector<FollowEvent> out;
  for (RecognizerEvent& event : events) Handle(std::move(event), out);
  return out;
}

FollowEvent SpeechFollower::Event(FollowEvent::Type type, MediaTime decided_at) const {
  FollowEvent event;
  event.type = type;
  event.utterance = utterance_;
  event.decided_at = decided_at;
  event.utterance_start = utterance_start_;
  return event;
}

void SpeechFollower::Handle(RecognizerEvent event, std::vector<FollowEvent>& out) {
  switch (event.type) {
    case RecognizerEvent::Type::kSpeechStart:
      ++utterance_;
      utterance_start_ = event.hypothesis.start;
      out.push_back(Event(FollowEvent::Type::kSpeechStart, event.decided_at));
      return;
    case RecognizerEvent::Type::kPartial: {
      FollowEvent partial = Event(FollowEvent::Type::kPartial, event.decided_at);
      partial.text = event.hypothesis.text;
      out.push_back(std::move(partial));
      if (!has_script()) return;
      for (FollowDecision& d : follower_.OnPartial(event.hypothesis.text, event.hypothesis.end)) {
        FollowEvent decision = Event(FollowEvent::Type::kDecision, event.decided_at);
        decision.decision = std::move(d);
        out.push_back(std::move(decision));
      }
      return;
    }
    case RecognizerEvent::Type::kFinal: {
      const AsrHypothesis& final = event.hypothesis;
      std::vector<FollowDecision> decisions;
      if (has_script()) {
        decisions = follower_.OnFinal(final.text, final.end);
      } else if (!final.text.empty()) {
        FollowDecision off;
        off.off_script = true;
        off.commit_time = final.end;
        off.at_endpoint = true;
        off.heard = final.text;
        decisions.push_back(std::move(off));
      }
      for (FollowDecision& d : decisions) {
        FollowEvent decision = Event(FollowEvent::Type::kDecision, event.decided_at);
        decision.decision = std::move(d);
        out.push_back(std::move(decision));
      }
      FollowEvent end = Event(FollowEvent::Type::kUtteranceEnd, event.decided_at);
      end.text = final.text;
      end.utterance_end = final.end;
      out.push_back(std::move(end));
      return;
    }
  }
}

}  // namespace lingcast
