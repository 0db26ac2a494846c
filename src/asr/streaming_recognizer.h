// StreamingRecognizer: the one loop that turns a live audio stream into
// recognition events -- VAD endpointing in front of one AsrSession.
//
// `lingcast asr`, `lingcast follow` and `lingcast live` all hear speech this
// way: the VAD cuts the stream into utterances, the session is fed each
// utterance's audio as it arrives, a partial hypothesis is asked for every
// `partial_interval` of speech audio, and the session is finished where the
// VAD decides the utterance ended.
//
// Times are on the input's media timeline (sample count / 16000 from the first
// sample pushed), never wall-clock, so the events of a recording do not depend
// on how fast it is fed or how it is chunked (except how many partials come).
// Used from one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "audio/vad.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

struct StreamingRecognizerOptions {
  VadConfig vad;
  // Speech audio between two partial hypotheses (a partial costs a decoder
  // pass over the utterance so far). >= 10 ms.
  MediaTime partial_interval = MediaTime::Millis(300);
  // Partials whose text did not change since the last one are not reported.
  bool skip_repeated_partials = true;
  // At the VAD endpoint, report the session's streaming hypothesis of the whole
  // utterance (kEndpoint) before finishing it: a follower can act on it while
  // the final pass runs. Cheap for pocketsphinx (a backtrace); an engine whose
  // Partial() decodes the utterance again (Whisper) pays a decode for it.
  bool endpoint_hypothesis = false;
  // When the speech of an open utterance has paused this long (unvoiced audio;
  // the VAD ends the utterance once the pause reaches its hangover), report
  // kPause with the streaming hypothesis and the audio so far, once per pause:
  // a follower can do its end-of-utterance work during the hangover and use it
  // at the endpoint if the speech did not resume. 0 (the default) turns it off;
  // otherwise it must be shorter than vad.hangover. ScoreAudio() needs it on.
  MediaTime pause_hypothesis_after = MediaTime::Zero();
};

struct RecognizerEvent {
  enum class Type {
    kSpeechStart,  // the VAD opened an utterance (no hypothesis yet)
    kPartial,      // the best guess so far for the open utterance
    kEndpoint,     // the VAD ended the utterance: the streaming hypothesis of all of it,
                   // before the final pass (only with endpoint_hypothesis; a kFinal follows)
    kFinal,        // the utterance ended: its final hypothesis (text may be empty)
    kPause,        // the open utterance's speech paused for pause_hypothesis_after (it may
                   // resume): the streaming hypothesis and the audio so far
  };
  Type type = Type::kSpeechStart;
  // kPartial / kEndpoint / kFinal. `start` is the utterance's first voiced
  // frame. For a partial, `end` is the end of the audio heard so far; for an
  // endpoint, the VAD's end of speech; for a final, that or the last word's end
  // when a word runs on into the hangover.
  AsrHypothesis hypothesis;
  // Where on the input timeline the event became known: the end of the audio
  // pushed when it was produced. For a final that is the VAD's endpoint
  // decision (the end of speech plus the hangover), which is where a live
  // pipeline can first act on it.
  MediaTime decided_at;
  bool forced_end = false;  // kEndpoint / kFinal: the VAD cut the utterance at max_utterance
  // kEndpoint: the last kPause was of this endpoint's pause (the speech did not
  // resume after it), so work done on it is of all the speech.
  bool after_reported_pause = false;
  // kPause: the utterance's audio from its start to the end of the audio pushed
  // (on the input timeline from `audio_start`).
  AudioBuffer audio;
  MediaTime audio_start;
};

const char* RecognizerEventTypeName(RecognizerEvent::Type type);  // "speech_start", "partial", "endpoint", "final", "pause"

// Called with each event the moment it is known: at an endpoint, the kEndpoint
// event reaches the caller before the session's final pass starts. An error
// stops the push and is returned from it.
using RecognizerSink = std::function<absl::Status(RecognizerEvent)>;

class StreamingRecognizer {
 public:
  // InvalidArgument for a bad VAD config or partial_interval; the model's
  // NewSession error otherwise.
  static absl::StatusOr<StreamingRecognizer> Create(const AsrModel& model, const StreamingRecognizerOptions& options);

  StreamingRecognizer(StreamingRecognizer&&) noexcept;
  StreamingRecognizer& operator=(StreamingRecognizer&&) noexcept;
  ~StreamingRecognizer();

  // Feeds the next 16 kHz mono samples (any length) and returns what they
  // produced, in order. InvalidArgument for another format.
  absl::StatusOr<std::vector<RecognizerEvent>> Push(const AudioBuffer& pcm16k);
  absl::Status Push(const AudioBuffer& pcm16k, const RecognizerSink& sink);
  // End of input: closes an open utterance (its final is the last event).
  absl::StatusOr<std::vector<RecognizerEvent>> Flush();
  absl::Status Flush(const RecognizerSink& sink);

  // The session's AsrSession::ScoreAlternatives for the utterance whose final
  // came last (call it right after that final, before more audio is pushed).
  absl::StatusOr<AlternativesScore> ScoreLastUtterance(const std::vector<std::string>& alternatives) {
    return session_->ScoreAlternatives(alternatives);
  }
  // The session's AsrSession::ScoreOpenings for the open utterance, as of the
  // partial reported last (call it from the kPartial event's sink).
  absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) {
    return session_->ScoreOpenings(openings);
  }
  // The model's AlternativesScorer for any utterance's audio (a kPause event's),
  // so the open utterance goes on undisturbed. FailedPrecondition unless
  // pause_hypothesis_after is on and the model can score.
  absl::StatusOr<AlternativesScore> ScoreAudio(const AudioBuffer& audio, const std::vector<std::string>& alternatives);

  // The end of the audio pushed so far.
  MediaTime position() const;
  bool in_speech() const { return in_speech_; }

 private:
  StreamingRecognizer(StreamingRecognizerOptions options, std::unique_ptr<AsrSession> session,
                      std::unique_ptr<AlternativesScorer> scorer, VoiceActivityDetector vad);
  absl::Status ReportPause(const VadEvent& piece, MediaTime decided_at, const RecognizerSink& sink);
  absl::Status Handle(const VadEvent& event, MediaTime decided_at, const RecognizerSink& sink);

  StreamingRecognizerOptions options_;
  std::unique_ptr<AsrSession> session_;
  std::unique_ptr<AlternativesScorer> scorer_;  // with pause_hypothesis_after, when the model has one
  VoiceActivityDetector vad_;
  bool in_speech_ = false;
  MediaTime speech_start_;
  MediaTime audio_since_partial_;
  std::string last_partial_text_;
  // With pause_hypothesis_after: the open utterance's audio, and whether its
  // current pause was reported.
  std::vector<float> utterance_audio_;
  MediaTime utterance_audio_start_;
  bool pause_reported_ = false;
};

}  // namespace lingcast
