// SpeechFollower: the hearing half of `lingcast follow` and `lingcast live` --
// StreamingRecognizer (VAD -> ASR session) feeding a ScriptFollower.
//
// Decisions come out as soon as the follower makes them: a script line is
// committed from a partial hypothesis, often long before the host finishes it,
// and off-script speech is decided at the utterance's endpoint. Without a
// script, every non-empty utterance is one off-script decision at its endpoint.
// Times are on the input's media timeline. Used from one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "asr/streaming_recognizer.h"
#include "mt/script_follower.h"
#include "text/zh_script.h"

namespace lingcast {

struct SpeechFollowerOptions {
  StreamingRecognizerOptions recognizer;
  FollowerConfig follower;
  // How the script's lines and what is heard are spelled before they are
  // matched (ScriptFollower; mt/match_text.h). The default: as written.
  MatchSpelling spelling;
  // With a script: decide at the VAD endpoint from the streaming hypothesis
  // when its words are sure (ScriptFollower::OnEndpoint), before the
  // recognizer's final pass and acoustic check. Off: endpoint decisions wait
  // for the final (~100 ms of pocketsphinx's second pass per utterance here).
  bool decide_at_endpoint = true;
  // With decide_at_endpoint: when the speech pauses this long and its words
  // match no line, the acoustic check runs at once on the audio so far (on a
  // second recognizer session), during the VAD's hangover. If the speech does
  // not resume, the endpoint decides from that check before the final pass, and
  // the final reuses it: a misheard line costs no check after its endpoint.
  // 0, or not shorter than the VAD hangover, turns it off.
  MediaTime check_on_pause = MediaTime::Millis(150);
  // With a script: after each partial that commits nothing, the recognizer
  // scores the openings of the line expected next and of the lines nearest it
  // (AsrSession::ScoreOpenings; ScriptFollower::OnOpeningScores decides), while
  // the utterance has committed no line. Whisper can do it, pocketsphinx cannot
  // (then nothing is asked after the first Unimplemented). Off: lines commit
  // from the words heard only.
  bool score_openings = true;
  // ... from this much of the utterance's audio on: Whisper's score accepted no
  // line from less than 800 ms of its audio in bench/whisper_line_check, and
  // its first partials (a few hundred ms) are mostly hallucinated, so scoring
  // them would cost a decoder pass for nothing.
  MediaTime score_openings_after = MediaTime::Millis(600);
  // Mandarin lines are also scored in Traditional characters (Whisper writes
  // Mandarin mostly so; the better of the two counts). Null: loaded by Create
  // (OpenCC's s2t) when `spelling` is Chinese and openings are scored.
  std::shared_ptr<const ZhScriptConverter> to_traditional;
};

// Whether a follower made with `options` asks for opening scores on a script
// of `line_count` lines (if its recognizer can give them).
bool ScoresOpenings(const SpeechFollowerOptions& options, std::size_t line_count);

struct FollowEvent {
  enum class Type {
    kSpeechStart,   // an utterance began (utterance_start)
    kPartial,       // text: the recognizer's guess so far
    kDecision,      // decision: a line committed, or off-script speech
    kUtteranceEnd,  // text: the final hypothesis; utterance_start/end
  };
  Type type = Type::kSpeechStart;
  int64_t utterance = 0;  // 0-based index of the utterance the event belongs to
  // Input time at which the event became known (see RecognizerEvent::decided_at).
  MediaTime decided_at;
  std::string text;
  MediaTime utterance_start;
  MediaTime utterance_end;  // kUtteranceEnd only
  FollowDecision decision;  // kDecision only
};

// Called with each event as soon as it is known (a decision made at the
// endpoint reaches it before the final pass runs); an error stops the push.
using FollowSink = std::function<absl::Status(FollowEvent)>;

class SpeechFollower {
 public:
  // `lines` may be empty (no script: everything is off script).
  static absl::StatusOr<SpeechFollower> Create(const AsrModel& model, std::vector<FollowerLine> lines,
                                               const SpeechFollowerOptions& options);

  absl::StatusOr<std::vector<FollowEvent>> Push(const AudioBuffer& pcm16k);
  absl::Status Push(const AudioBuffer& pcm16k, const FollowSink& sink);
  // End of input: the open utterance is finished and decided.
  absl::StatusOr<std::vector<FollowEvent>> Flush();
  absl::Status Flush(const FollowSink& sink);

  MediaTime position() const { return recognizer_.position(); }
  bool in_speech() const { return recognizer_.in_speech(); }
  bool has_script() const { return !follower_.lines().empty(); }
  const ScriptFollower& follower() const { return follower_; }
  // CPU time of each acoustic check so far (AsrSession::ScoreAlternatives, run
  // at the endpoint of utterances whose words match no line).
  const std::vector<double>& acoustic_check_cpu_ms() const { return acoustic_check_cpu_ms_; }
  // Checks run on a pause (check_on_pause), and how many of them were used at
  // an endpoint instead of a check after it.
  int checks_on_pause() const { return checks_on_pause_; }
  int checks_on_pause_used() const { return checks_on_pause_used_; }
  // Times the recognizer scored line openings, their CPU time each, and the
  // lines they committed.
  const std::vector<double>& opening_score_cpu_ms() const { return opening_score_cpu_ms_; }
  int opening_commits() const { return opening_commits_; }

 private:
  SpeechFollower(StreamingRecognizer recognizer, ScriptFollower follower, bool score_openings,
                 MediaTime score_openings_after, std::shared_ptr<const ZhScriptConverter> to_traditional);
  // The recognizer's scores of the candidate lines' openings, handed to the
  // follower (`text`, `heard_until`: the partial they belong to).
  std::vector<FollowDecision> ScoreOpenings(const std::string& text, MediaTime heard_until);
  absl::Status Handle(RecognizerEvent event, const FollowSink& sink);
  absl::Status SendDecisions(std::vector<FollowDecision> decisions, MediaTime decided_at, const FollowSink& sink);
  FollowEvent Event(FollowEvent::Type type, MediaTime decided_at) const;
  using AudioScorer = std::function<absl::StatusOr<AlternativesScore>(const std::vector<std::string>&)>;
  // The acoustic check of `candidates` (lines) scored by `score`.
  std::optional<AcousticMatch> Check(const std::vector<int>& candidates, const AudioScorer& score);
  // The check run on the current utterance's last pause, if any: its answer
  // for the candidates it was asked about.
  struct PauseCheck {
    int64_t utterance = -1;
    std::vector<int> candidates;
    std::optional<AcousticMatch> match;
  };
  AcousticCheck PauseCheckAnswer();

  StreamingRecognizer recognizer_;
  ScriptFollower follower_;
  int64_t utterance_ = -1;
  std::vector<double> acoustic_check_cpu_ms_;
  MediaTime utterance_start_;
  std::optional<PauseCheck> pause_check_;
  int checks_on_pause_ = 0;
  int checks_on_pause_used_ = 0;
  bool score_openings_;
  MediaTime score_openings_after_;
  // Per script line, the texts whose openings are scored (ScoreOpenings).
  std::vector<std::vector<std::string>> line_openings_;
  std::vector<double> opening_score_cpu_ms_;
  int opening_commits_ = 0;
};

}  // namespace lingcast
