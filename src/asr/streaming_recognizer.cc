#include "asr/streaming_recognizer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {

const char* RecognizerEventTypeName(RecognizerEvent::Type type) {
  switch (type) {
    case RecognizerEvent::Type::kSpeechStart:
      return "speech_start";
    case RecognizerEvent::Type::kPartial:
      return "partial";
    case RecognizerEvent::Type::kEndpoint:
      return "endpoint";
    case RecognizerEvent::Type::kFinal:
      return "final";
    case RecognizerEvent::Type::kPause:
      return "pause";
  }
  return "unknown";
}

absl::StatusOr<StreamingRecognizer> StreamingRecognizer::Create(const AsrModel& model,
                                                                const StreamingRecognizerOptions& options) {
  if (options.partial_interval < MediaTime::Millis(10)) {
    return absl::InvalidArgumentError(absl::StrCat("partial interval must be at least 10 ms, got ",
                                                   options.partial_interval.millis(), " ms"));
  }
  if (options.pause_hypothesis_after < MediaTime::Zero() ||
      (options.pause_hypothesis_after > MediaTime::Zero() && options.pause_hypothesis_after >= options.vad.hangover)) {
    return absl::InvalidArgumentError(absl::StrCat("pause hypothesis after ", options.pause_hypothesis_after.millis(),
                                                   " ms must be 0 (off) or shorter than the VAD hangover (",
                                                   options.vad.hangover.millis(), " ms)"));
  }
  LC_ASSIGN_OR_RETURN(VoiceActivityDetector vad, VoiceActivityDetector::Create(options.vad));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AsrSession> session, model.NewSession());
  std::unique_ptr<AlternativesScorer> scorer;
  if (options.pause_hypothesis_after > MediaTime::Zero()) {
    absl::StatusOr<std::unique_ptr<AlternativesScorer>> made = model.NewAlternativesScorer();
    if (made.ok()) {
      scorer = *std::move(made);
    } else if (!absl::IsUnimplemented(made.status())) {
      return made.status();
    }
  }
  return StreamingRecognizer(options, std::move(session), std::move(scorer), std::move(vad));
}

StreamingRecognizer::StreamingRecognizer(StreamingRecognizerOptions options, std::unique_ptr<AsrSession> session,
                                         std::unique_ptr<AlternativesScorer> scorer, VoiceActivityDetector vad)
    : options_(std::move(options)),
      session_(std::move(session)),
      scorer_(std::move(scorer)),
      vad_(std::move(vad)) {}

absl::StatusOr<AlternativesScore> StreamingRecognizer::ScoreAudio(const AudioBuffer& audio,
                                                                  const std::vector<std::string>& alternatives) {
  if (scorer_ == nullptr) {
    return absl::FailedPreconditionError(
        "no alternatives scorer (pause_hypothesis_after is off, or the recognizer cannot score)");
  }
  return scorer_->Score(audio, alternatives);
}

absl::Status StreamingRecognizer::ReportPause(const VadEvent& piece, MediaTime decided_at, const RecognizerSink& sink) {
  if (piece.unvoiced_tail < options_.pause_hypothesis_after) {
    pause_reported_ = false;  // voiced again (or not paused long enough yet)
    return absl::OkStatus();
  }
  if (pause_reported_) return absl::OkStatus();
  pause_reported_ = true;
  RecognizerEvent pause;
  pause.type = RecognizerEvent::Type::kPause;
  if (std::optional<AsrHypothesis> streamed = session_->Partial()) pause.hypothesis = std::move(*streamed);
  pause.hypothesis.start = speech_start_;
  pause.hypothesis.end = std::max(speech_start_, piece.audio_start + piece.audio.duration() - piece.unvoiced_tail);
  pause.decided_at = decided_at;
  pause.audio.sample_rate = piece.audio.sample_rate;
  pause.audio.channels = 1;
  pause.audio.samples = utterance_audio_;
  pause.audio_start = utterance_audio_start_;
  return sink(std::move(pause));
}

StreamingRecognizer::StreamingRecognizer(StreamingRecognizer&&) noexcept = default;
StreamingRecognizer& StreamingRecognizer::operator=(StreamingRecognizer&&) noexcept = default;
StreamingRecognizer::~StreamingRecognizer() = default;

MediaTime StreamingRecognizer::position() const { return vad_.position(); }

absl::Status StreamingRecognizer::Push(const AudioBuffer& pcm16k, const RecognizerSink& sink) {
  LC_ASSIGN_OR_RETURN(std::vector<VadEvent> vad_events, vad_.Push(pcm16k));
  for (const VadEvent& event : vad_events) LC_RETURN_IF_ERROR(Handle(event, vad_.position(), sink));
  return absl::OkStatus();
}

absl::Status StreamingRecognizer::Flush(const RecognizerSink& sink) {
  // The end of the input decides what the flush ends (the VAD's position starts
  // again from 0 for a new stream once it has flushed).
  const MediaTime end = vad_.position();
  for (const VadEvent& event : vad_.Flush()) LC_RETURN_IF_ERROR(Handle(event, end, sink));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RecognizerEvent>> StreamingRecognizer::Push(const AudioBuffer& pcm16k) {
  std::vector<RecognizerEvent> out;
  LC_RETURN_IF_ERROR(Push(pcm16k, [&out](RecognizerEvent event) {
    out.push_back(std::move(event));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<RecognizerEvent>> StreamingRecognizer::Flush() {
  std::vector<RecognizerEvent> out;
  LC_RETURN_IF_ERROR(Flush([&out](RecognizerEvent event) {
    out.push_back(std::move(event));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status StreamingRecognizer::Handle(const VadEvent& event, MediaTime decided_at, const RecognizerSink& sink) {
  switch (event.type) {
    case VadEvent::Type::kSpeechStart: {
      in_speech_ = true;
      speech_start_ = event.time;
      audio_since_partial_ = MediaTime::Zero();
      last_partial_text_.clear();
      utterance_audio_.clear();
      utterance_audio_start_ = event.audio_start;
      pause_reported_ = false;
      RecognizerEvent start;
      start.type = RecognizerEvent::Type::kSpeechStart;
      start.hypothesis.start = event.time;
      start.hypothesis.end = event.time;
      start.decided_at = decided_at;
      return sink(std::move(start));
    }
    case VadEvent::Type::kSpeechAudio: {
      LC_RETURN_IF_ERROR(session_->AcceptAudio(event.audio, event.audio_start));
      if (options_.pause_hypothesis_after > MediaTime::Zero()) {
        utterance_audio_.insert(utterance_audio_.end(), event.audio.samples.begin(), event.audio.samples.end());
        LC_RETURN_IF_ERROR(ReportPause(event, decided_at, sink));
      }
      audio_since_partial_ += event.audio.duration();
      if (audio_since_partial_ < options_.partial_interval) return absl::OkStatus();
      audio_since_partial_ = MediaTime::Zero();
      std::optional<AsrHypothesis> partial = session_->Partial();
      if (!partial) return absl::OkStatus();
      if (options_.skip_repeated_partials && partial->text == last_partial_text_) return absl::OkStatus();
      last_partial_text_ = partial->text;
      partial->start = speech_start_;
      partial->end = event.audio_start + event.audio.duration();
      RecognizerEvent event_out;
      event_out.type = RecognizerEvent::Type::kPartial;
      event_out.hypothesis = std::move(*partial);
      event_out.decided_at = decided_at;
      return sink(std::move(event_out));
    }
    case VadEvent::Type::kSpeechEnd: {
      in_speech_ = false;
      utterance_audio_.clear();
      if (options_.endpoint_hypothesis) {
        RecognizerEvent endpoint;
        endpoint.type = RecognizerEvent::Type::kEndpoint;
        if (std::optional<AsrHypothesis> streamed = session_->Partial()) endpoint.hypothesis = std::move(*streamed);
        endpoint.hypothesis.start = speech_start_;
        endpoint.hypothesis.end = std::max(event.time, speech_start_);
        endpoint.decided_at = decided_at;
        endpoint.forced_end = event.forced;
        endpoint.after_reported_pause = pause_reported_ && !event.forced;
        LC_RETURN_IF_ERROR(sink(std::move(endpoint)));
      }
      LC_ASSIGN_OR_RETURN(AsrHypothesis final, session_->Finish());
      final.final = true;
      final.start = speech_start_;
      // The VAD's end is the end of the last voiced frame; a word the recognizer
      // heard running on into the hangover still belongs inside the final.
      final.end = std::max(event.time, speech_start_);
      if (!final.words.empty()) final.end = std::max(final.end, final.words.back().end);
      RecognizerEvent event_out;
      event_out.type = RecognizerEvent::Type::kFinal;
      event_out.hypothesis = std::move(final);
      event_out.decided_at = decided_at;
      event_out.forced_end = event.forced;
      return sink(std::move(event_out));
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast
