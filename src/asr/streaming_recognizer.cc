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
  }
  return "unknown";
}

absl::StatusOr<StreamingRecognizer> StreamingRecognizer::Create(const AsrModel& model,
                                                                const StreamingRecognizerOptions& options) {
  if (options.partial_interval < MediaTime::Millis(10)) {
    return absl::InvalidArgumentError(absl::StrCat("partial interval must be at least 10 ms, got ",
                                                   options.partial_interval.millis(), " ms"));
  }
  LC_ASSIGN_OR_RETURN(VoiceActivityDetector vad, VoiceActivityDetector::Create(options.vad));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AsrSession> session, model.NewSession());
  return StreamingRecognizer(options, std::move(session), std::move(vad));
}

StreamingRecognizer::StreamingRecognizer(StreamingRecognizerOptions options, std::unique_ptr<AsrSession> session,
                                         VoiceActivityDetector vad)
    : options_(std::move(options)), session_(std::move(session)), vad_(std::move(vad)) {}

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
  for (const VadEvent& event : vad_.Flush()) LC_RETURN_IF_ERROR(Handle(event, vad_.position(), sink));
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
      RecognizerEvent start;
      start.type = RecognizerEvent::Type::kSpeechStart;
      start.hypothesis.start = event.time;
      start.hypothesis.end = event.time;
      start.decided_at = decided_at;
      return sink(std::move(start));
    }
    case VadEvent::Type::kSpeechAudio: {
      LC_RETURN_IF_ERROR(session_->AcceptAudio(event.audio, event.audio_start));
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
      if (options_.endpoint_hypothesis) {
        RecognizerEvent endpoint;
        endpoint.type = RecognizerEvent::Type::kEndpoint;
        if (std::optional<AsrHypothesis> streamed = session_->Partial()) endpoint.hypothesis = std::move(*streamed);
        endpoint.hypothesis.start = speech_start_;
        endpoint.hypothesis.end = std::max(event.time, speech_start_);
        endpoint.decided_at = decided_at;
        endpoint.forced_end = event.forced;
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
