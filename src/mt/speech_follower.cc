#include "mt/speech_follower.h"

#include <time.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_join.h"
#include "asr/script_lm.h"
#include "core/status.h"

namespace lingcast {
namespace {

// The check's cost in CPU time: on a shared machine wall time mostly measures waiting.
double ThreadCpuMillis() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

bool ScoresOpenings(const SpeechFollowerOptions& options, std::size_t line_count) {
  return options.score_openings && options.follower.opening_lines > 0 &&
         line_count >= static_cast<std::size_t>(std::max(options.follower.opening_min_lines, 0));
}

absl::StatusOr<SpeechFollower> SpeechFollower::Create(const AsrModel& model, std::vector<FollowerLine> lines,
                                                      const SpeechFollowerOptions& options) {
  StreamingRecognizerOptions recognizer_options = options.recognizer;
  if (!lines.empty() && options.decide_at_endpoint) {
    recognizer_options.endpoint_hypothesis = true;
    if (options.check_on_pause > MediaTime::Zero() && options.check_on_pause < recognizer_options.vad.hangover) {
      recognizer_options.pause_hypothesis_after = options.check_on_pause;
    }
  }
  LC_ASSIGN_OR_RETURN(StreamingRecognizer recognizer, StreamingRecognizer::Create(model, recognizer_options));
  const bool score_openings = ScoresOpenings(options, lines.size());
  std::shared_ptr<const ZhScriptConverter> to_traditional = options.to_traditional;
  if (score_openings && to_traditional == nullptr && options.spelling.language() == Language::kZh) {
    LC_ASSIGN_OR_RETURN(ZhScriptConverter loaded, ZhScriptConverter::Load(ZhScript::kTraditional));
    to_traditional = std::make_shared<const ZhScriptConverter>(std::move(loaded));
  }
  return SpeechFollower(std::move(recognizer), ScriptFollower(std::move(lines), options.follower, options.spelling),
                        score_openings, options.score_openings_after, std::move(to_traditional));
}

SpeechFollower::SpeechFollower(StreamingRecognizer recognizer, ScriptFollower follower, bool score_openings,
                               MediaTime score_openings_after, std::shared_ptr<const ZhScriptConverter> to_traditional)
    : recognizer_(std::move(recognizer)),
      follower_(std::move(follower)),
      score_openings_(score_openings),
      score_openings_after_(score_openings_after) {
  if (!score_openings_) return;
  // Each line as the recognizer would write it, and in Traditional characters
  // when that differs: spelled once here, not at every scoring.
  for (const FollowerLine& line : follower_.lines()) {
    std::vector<std::string>& spellings = line_openings_.emplace_back();
    spellings.push_back(line.spoken.empty() ? line.source : line.spoken);
    if (to_traditional != nullptr) {
      std::string traditional = to_traditional->Convert(spellings.front());
      if (traditional != spellings.front()) spellings.push_back(std::move(traditional));
    }
  }
}

std::vector<FollowDecision> SpeechFollower::ScoreOpenings(const std::string& text, MediaTime heard_until) {
  const std::vector<int> candidates = follower_.OpeningCandidates();
  if (candidates.empty()) return {};
  std::vector<std::string> openings;
  std::vector<size_t> line_of;  // opening -> index into candidates
  for (size_t i = 0; i < candidates.size(); ++i) {
    for (const std::string& spelled : line_openings_[static_cast<size_t>(candidates[i])]) {
      openings.push_back(spelled);
      line_of.push_back(i);
    }
  }
  const double cpu_start = ThreadCpuMillis();
  const absl::StatusOr<std::vector<double>> scored = recognizer_.ScoreOpenings(openings);
  if (absl::IsUnimplemented(scored.status())) {
    score_openings_ = false;  // this recognizer never will
    return {};
  }
  // Not now (no partial decoded the opening) or not at all (an engine error the
  // final will meet too): the words decide, as without scores.
  if (!scored.ok() || scored->size() != openings.size()) return {};
  opening_score_cpu_ms_.push_back(ThreadCpuMillis() - cpu_start);
  std::vector<double> scores(candidates.size(), -std::numeric_limits<double>::infinity());
  for (size_t j = 0; j < openings.size(); ++j) scores[line_of[j]] = std::max(scores[line_of[j]], (*scored)[j]);
  std::vector<FollowDecision> decisions = follower_.OnOpeningScores(candidates, scores, text, heard_until);
  opening_commits_ += static_cast<int>(decisions.size());
  return decisions;
}

absl::Status SpeechFollower::Push(const AudioBuffer& pcm16k, const FollowSink& sink) {
  return recognizer_.Push(pcm16k, [&](RecognizerEvent event) { return Handle(std::move(event), sink); });
}

absl::Status SpeechFollower::Flush(const FollowSink& sink) {
  return recognizer_.Flush([&](RecognizerEvent event) { return Handle(std::move(event), sink); });
}

absl::StatusOr<std::vector<FollowEvent>> SpeechFollower::Push(const AudioBuffer& pcm16k) {
  std::vector<FollowEvent> out;
  LC_RETURN_IF_ERROR(Push(pcm16k, [&out](FollowEvent event) {
    out.push_back(std::move(event));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<FollowEvent>> SpeechFollower::Flush() {
  std::vector<FollowEvent> out;
  LC_RETURN_IF_ERROR(Flush([&out](FollowEvent event) {
    out.push_back(std::move(event));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status SpeechFollower::SendDecisions(std::vector<FollowDecision> decisions, MediaTime decided_at,
                                           const FollowSink& sink) {
  for (FollowDecision& d : decisions) {
    FollowEvent decision = Event(FollowEvent::Type::kDecision, decided_at);
    decision.decision = std::move(d);
    LC_RETURN_IF_ERROR(sink(std::move(decision)));
  }
  return absl::OkStatus();
}

FollowEvent SpeechFollower::Event(FollowEvent::Type type, MediaTime decided_at) const {
  FollowEvent event;
  event.type = type;
  event.utterance = utterance_;
  event.decided_at = decided_at;
  event.utterance_start = utterance_start_;
  return event;
}

std::optional<AcousticMatch> SpeechFollower::Check(const std::vector<int>& candidates, const AudioScorer& score) {
  // Each line whole, and without its first word or two: the VAD may open the
  // utterance after the line's start.
  constexpr size_t kMaxSkippedWords = 2, kMinWordsLeft = 3;
  std::vector<std::string> alternatives;
  std::vector<int> line_of;
  for (int line : candidates) {
    const FollowerLine& l = follower_.lines()[static_cast<size_t>(line)];
    const std::vector<std::string> words = AsrWordsOf(l.spoken.empty() ? l.source : l.spoken);
    for (size_t skip = 0; skip <= kMaxSkippedWords && (skip == 0 || words.size() >= skip + kMinWordsLeft); ++skip) {
      alternatives.push_back(absl::StrJoin(words.begin() + static_cast<std::ptrdiff_t>(skip), words.end(), " "));
      line_of.push_back(line);
    }
  }
  const double cpu_start = ThreadCpuMillis();
  absl::StatusOr<AlternativesScore> scored = score(alternatives);
  acoustic_check_cpu_ms_.push_back(ThreadCpuMillis() - cpu_start);
  if (!scored.ok() || scored->best < 0) return std::nullopt;
  return AcousticMatch{line_of[static_cast<size_t>(scored->best)], scored->gap};
}

AcousticCheck SpeechFollower::PauseCheckAnswer() {
  return [this](const std::vector<int>& candidates) -> std::optional<AcousticMatch> {
    // The words at the endpoint may differ from those at the pause in their
    // last sounds, and so the closest lines; the audio is the same.
    (void)candidates;
    if (!pause_check_ || pause_check_->utterance != utterance_) return std::nullopt;
    if (pause_check_->match) ++checks_on_pause_used_;  // a line decided at the endpoint: no check after it
    return pause_check_->match;
  };
}

absl::Status SpeechFollower::Handle(RecognizerEvent event, const FollowSink& sink) {
  switch (event.type) {
    case RecognizerEvent::Type::kSpeechStart:
      ++utterance_;
      utterance_start_ = event.hypothesis.start;
      return sink(Event(FollowEvent::Type::kSpeechStart, event.decided_at));
    case RecognizerEvent::Type::kPartial: {
      FollowEvent partial = Event(FollowEvent::Type::kPartial, event.decided_at);
      partial.text = event.hypothesis.text;
      LC_RETURN_IF_ERROR(sink(std::move(partial)));
      if (!has_script()) return absl::OkStatus();
      std::vector<FollowDecision> decisions = follower_.OnPartial(event.hypothesis.text, event.hypothesis.end);
      if (decisions.empty() && score_openings_ && event.hypothesis.end - utterance_start_ >= score_openings_after_) {
        decisions = ScoreOpenings(event.hypothesis.text, event.hypothesis.end);
      }
      return SendDecisions(std::move(decisions), event.decided_at, sink);
    }
    case RecognizerEvent::Type::kPause: {
      // The speech may be over: if its words match no line, the check the
      // endpoint would need runs now, during the hangover.
      if (!has_script()) return absl::OkStatus();
      PauseCheck check;
      check.utterance = utterance_;
      bool asked = false;
      const AudioBuffer& audio = event.audio;
      follower_.Preview(event.hypothesis.text, event.hypothesis.end, [&](const std::vector<int>& candidates) {
        asked = true;
        check.candidates = candidates;
        check.match = Check(candidates, [&](const std::vector<std::string>& alternatives) {
          return recognizer_.ScoreAudio(audio, alternatives);
        });
        return check.match;
      });
      pause_check_.reset();
      if (asked) {
        ++checks_on_pause_;
        pause_check_ = std::move(check);
      }
      return absl::OkStatus();
    }
    case RecognizerEvent::Type::kEndpoint:
      // Sent before the final pass starts: a line the streamed words already
      // decide (or the check run on the pause found) is on its way while the
      // recognizer finishes the utterance.
      if (!has_script()) return absl::OkStatus();
      // A check made before the speech resumed is of other audio.
      if (pause_check_ && (pause_check_->utterance != utterance_ || !event.after_reported_pause)) pause_check_.reset();
      return SendDecisions(follower_.OnEndpoint(event.hypothesis.text, event.hypothesis.end, PauseCheckAnswer()),
                           event.decided_at, sink);
    case RecognizerEvent::Type::kFinal: {
      const AsrHypothesis& final = event.hypothesis;
      std::vector<FollowDecision> decisions;
      if (has_script()) {
        // Words that match no line get a second look: the utterance's audio
        // scored against the closest lines (two decodes, only for such utterances).
        // The check run on the pause before the endpoint answers for the same
        // candidates; others are checked now, on the finished utterance.
        auto check = [&](const std::vector<int>& candidates) -> std::optional<AcousticMatch> {
          if (pause_check_ && pause_check_->utterance == utterance_ && pause_check_->candidates == candidates) {
            if (!pause_check_->match) ++checks_on_pause_used_;  // (a match was counted at the endpoint)
            return pause_check_->match;
          }
          return Check(candidates, [this](const std::vector<std::string>& alternatives) {
            return recognizer_.ScoreLastUtterance(alternatives);
          });
        };
        decisions = follower_.OnFinal(final.text, final.end, check);
        pause_check_.reset();
        for (FollowDecision& d : decisions) {
          if (d.off_script) d.speech_translation = final.translation;
        }
      } else if (!final.text.empty()) {
        FollowDecision off;
        off.off_script = true;
        off.commit_time = final.end;
        off.at_endpoint = true;
        off.heard = final.text;
        off.speech_translation = final.translation;
        decisions.push_back(std::move(off));
      }
      LC_RETURN_IF_ERROR(SendDecisions(std::move(decisions), event.decided_at, sink));
      FollowEvent end = Event(FollowEvent::Type::kUtteranceEnd, event.decided_at);
      end.text = final.text;
      end.utterance_end = final.end;
      return sink(std::move(end));
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast
