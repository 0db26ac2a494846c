// TtsStream: speech for text that arrives in pieces (a translator's output, a
// script read line by line), clause by clause, so the first audio is ready long
// before the whole text has been spoken.
//
// Push() only cuts text into clauses (text/segmenter.h); Next() synthesizes one
// complete clause and returns it. Synthesis is pulled, so a stage synthesizes no
// faster than its output queue drains and memory holds one clause of audio, however
// long the text (a 10,000-character line is a few hundred short clauses).
//
// Each piece is timed from its own start; AppendSynthesis(whole, piece.speech,
// piece.text_offset) puts pieces on one timeline with word offsets into the whole
// stream. Characters that cannot be spoken (emoji, control characters, unassigned
// code points, malformed UTF-8) are skipped and counted (text/sanitize.h); word
// offsets still point into the text as pushed.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/logger.h"
#include "text/sanitize.h"
#include "text/segmenter.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct SpeechPiece {
  SynthesisResult speech;   // timed from the piece's start; word offsets into `text`
  std::string text;         // the clause, as pushed
  int64_t text_offset = 0;  // byte offset of `text` in the whole stream
  Language language = Language::kEn;  // the voice that read it (code-switched words aside)
  bool ends_sentence = false;
};

struct TtsStreamOptions {
  VoiceSettings voice;
  // true: each clause is read in the language it is written in (`--lang auto`);
  // false: every clause is voice.language (words of the other language inside it
  // are still code-switched).
  bool detect_language = false;
  SegmenterConfig segmenter;
};

class TtsStream {
 public:
  // Opens a session on `engine` (which must outlive the stream). Bad voices or
  // parameters fail here (InvalidArgument naming the value).
  static absl::StatusOr<std::unique_ptr<TtsStream>> Open(TtsEngine& engine, TtsStreamOptions options);

  // Adds text (any split, even inside a UTF-8 sequence). FailedPrecondition after
  // Finish() or Cancel().
  absl::Status Push(std::string_view text);
  // No more text: the unfinished last clause becomes complete.
  void Finish();

  // Synthesizes and returns the next complete clause; nullopt when none is
  // complete (push more text, or done()). Cancelled after Cancel().
  absl::StatusOr<std::optional<SpeechPiece>> Next();
  // The same, and the clause's speech is handed to `on_part` in parts as the
  // engine makes them (TtsSession::StreamClause: the first part of a neural
  // voice's clause comes after a few frames are decoded). Each part is a piece of
  // the clause (its text, offset, language) whose audio follows the part before
  // it and whose track is timed from the clause's start. An error from `on_part`
  // stops the clause and is returned. The whole clause is returned as Next() does.
  absl::StatusOr<std::optional<SpeechPiece>> Next(const std::function<absl::Status(const SpeechPiece& part)>& on_part);

  // True once Finish() was called and every clause has been returned.
  bool done() const { return finished_ && ready_.empty(); }
  // Clauses complete but not yet synthesized.
  size_t ready_clauses() const { return ready_.size(); }
  // What was skipped as unspeakable so far (DescribeRemovals() words it).
  const SanitizeCounts& skipped() const { return sanitizer_.removed(); }

  // Thread-safe: stops a Next() in progress on another thread (it returns
  // Cancelled soon) and every later call; text not yet spoken is dropped.
  void Cancel() { session_->Cancel(); }

 private:
  // A complete clause waiting to be spoken, with the text as pushed.
  struct ReadyClause {
    Clause clause;               // sanitized text; offsets in the sanitized stream
    std::string original;        // the same clause as pushed
    int64_t original_offset = 0;  // of `original` in the pushed stream
    std::vector<int> to_original;  // per byte of clause.text: its offset in `original`
  };

  TtsStream(std::unique_ptr<TtsSession> session, TtsStreamOptions options);
  void Accept(const SanitizedText& sanitized, std::vector<Clause> clauses);

  std::unique_ptr<TtsSession> session_;
  const TtsStreamOptions options_;
  TextSanitizer sanitizer_;
  ClauseSegmenter segmenter_;
  // Pushed bytes from original_base_ on, and for each sanitized byte from
  // sanitized_base_ on, the pushed offset it came from: only what the segmenter
  // still holds, so both stay as small as its pending text.
  std::string original_;
  int64_t original_base_ = 0;
  std::deque<int64_t> to_original_;
  int64_t sanitized_base_ = 0;
  std::deque<ReadyClause> ready_;
  bool finished_ = false;
};

// The whole of request.text through a TtsStream: `on_piece` gets each clause as soon
// as it is synthesized. An error from on_piece cancels the rest and is returned.
// What was skipped is warned about once, through `logger` when given.
absl::Status SynthesizeStreaming(TtsEngine& engine, const SynthesisRequest& request,
                                 const std::function<absl::Status(SpeechPiece piece)>& on_piece,
                                 bool detect_language = false, Logger* logger = nullptr);

}  // namespace lingcast
