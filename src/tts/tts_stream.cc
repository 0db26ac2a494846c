#include "tts/tts_stream.h"

#include <utility>

#include "core/status.h"

namespace lingcast {

absl::StatusOr<std::unique_ptr<TtsStream>> TtsStream::Open(TtsEngine& engine, TtsStreamOptions options) {
  LC_RETURN_IF_ERROR(ValidateSegmenterConfig(options.segmenter));
  // A clause with no language evidence ("3.5") is read like the one before it,
  // and like the request's language before any.
  options.segmenter.default_language = options.voice.language;
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsSession> session, engine.OpenSession(options.voice));
  return std::unique_ptr<TtsStream>(new TtsStream(std::move(session), std::move(options)));
}

TtsStream::TtsStream(std::unique_ptr<TtsSession> session, TtsStreamOptions options)
    : session_(std::move(session)), options_(std::move(options)), segmenter_(options_.segmenter) {}

absl::Status TtsStream::Push(std::string_view text) {
  if (session_->cancelled()) return absl::CancelledError("speech synthesis was cancelled");
  if (finished_) return absl::FailedPreconditionError("text pushed to a speech stream after Finish()");
  original_.append(text);
  const SanitizedText sanitized = sanitizer_.Push(text);
  Accept(sanitized, segmenter_.Push(sanitized.text));
  return absl::OkStatus();
}

void TtsStream::Finish() {
  if (finished_) return;
  finished_ = true;
  const SanitizedText sanitized = sanitizer_.Flush();
  std::vector<Clause> clauses = segmenter_.Push(sanitized.text);
  for (Clause& clause : segmenter_.Flush()) clauses.push_back(std::move(clause));
  Accept(sanitized, std::move(clauses));
}

void TtsStream::Accept(const SanitizedText& sanitized, std::vector<Clause> clauses) {
  to_original_.insert(to_original_.end(), sanitized.source_offset.begin(), sanitized.source_offset.end());
  for (Clause& clause : clauses) {
    ReadyClause ready;
    const int64_t first = clause.source_offset - sanitized_base_;
    const int64_t last = first + static_cast<int64_t>(clause.text.size()) - 1;
    ready.original_offset = to_original_[first];
    // The clause's last character as pushed may be longer than as sanitized (a
    // full-width digit becomes ASCII): the original ends where that character does.
    const int64_t last_char = to_original_[last];
    int64_t original_end = last_char + 1;
    while (original_end - original_base_ < static_cast<int64_t>(original_.size()) &&
           (static_cast<unsigned char>(original_[original_end - original_base_]) & 0xC0) == 0x80) {
      ++original_end;
    }
    ready.original = original_.substr(ready.original_offset - original_base_, original_end - ready.original_offset);
    ready.to_original.reserve(clause.text.size());
    for (int64_t i = first; i <= last; ++i) {
      ready.to_original.push_back(static_cast<int>(to_original_[i] - ready.original_offset));
    }
    ready.clause = std::move(clause);
    // Everything up to the end of this clause is done with.
    const int64_t consumed = last + 1;
    to_original_.erase(to_original_.begin(), to_original_.begin() + consumed);
    sanitized_base_ += consumed;
    original_.erase(0, original_end - original_base_);
    original_base_ = original_end;
    ready_.push_back(std::move(ready));
  }
}

absl::StatusOr<std::optional<SpeechPiece>> TtsStream::Next() { return Next(nullptr); }

absl::StatusOr<std::optional<SpeechPiece>> TtsStream::Next(
    const std::function<absl::Status(const SpeechPiece& part)>& on_part) {
  if (session_->cancelled()) {
    ready_.clear();
    return absl::CancelledError("speech synthesis was cancelled");
  }
  if (ready_.empty()) return std::optional<SpeechPiece>();
  ReadyClause ready = std::move(ready_.front());
  ready_.pop_front();

  const Language language = options_.detect_language ? ready.clause.language : options_.voice.language;
  SynthesisResult speech;
  if (on_part) {
    SpeechPiece part;
    part.text = ready.original;
    part.text_offset = ready.original_offset;
    part.language = language;
    part.ends_sentence = ready.clause.ends_sentence;
    LC_RETURN_IF_ERROR(session_->StreamClause(ready.clause.text, language, [&](SynthesisResult made) {
      MapWordOffsets(made.track, ready.to_original, ready.original);
      part.speech = made;
      AppendClausePart(speech, std::move(made));
      return on_part(part);
    }));
  } else {
    LC_ASSIGN_OR_RETURN(speech, session_->SynthesizeClause(ready.clause.text, language));
    MapWordOffsets(speech.track, ready.to_original, ready.original);
  }
  SpeechPiece piece;
  piece.speech = std::move(speech);
  piece.text = std::move(ready.original);
  piece.text_offset = ready.original_offset;
  piece.language = language;
  piece.ends_sentence = ready.clause.ends_sentence;
  return std::optional<SpeechPiece>(std::move(piece));
}

absl::Status SynthesizeStreaming(TtsEngine& engine, const SynthesisRequest& request,
                                 const std::function<absl::Status(SpeechPiece piece)>& on_piece,
                                 bool detect_language, Logger* logger) {
  TtsStreamOptions options;
  options.voice = request;
  options.detect_language = detect_language;
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsStream> stream, TtsStream::Open(engine, std::move(options)));
  LC_RETURN_IF_ERROR(stream->Push(request.text));
  stream->Finish();
  if (logger != nullptr && stream->skipped().total() > 0) {
    logger->Warn("tts", "skipped characters that cannot be spoken",
                 {{"removed", DescribeRemovals(stream->skipped())}});
  }
  while (!stream->done()) {
    LC_ASSIGN_OR_RETURN(std::optional<SpeechPiece> piece, stream->Next());
    if (!piece) break;
    if (absl::Status delivered = on_piece(*std::move(piece)); !delivered.ok()) {
      stream->Cancel();
      return delivered;
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast
