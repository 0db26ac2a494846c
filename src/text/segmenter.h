// Streaming sentence and clause segmentation for Chinese and English text.
//
// Text arrives in pieces (an LLM token stream, ASR finals, a script read in chunks);
// clauses come out as soon as their end is certain, so synthesis can start on the
// first clause while the rest is still arriving. Where a piece ends never changes the
// result: any split of the stream (inside a UTF-8 sequence, between "3." and "5",
// between "Mr" and ".") gives exactly the clauses of the whole text pushed at once.
//
// Where clauses end:
//   * sentence ends: 。！？｡ and ! ? (runs such as ?! or ！！ stay together), an
//     ellipsis (… …… ... ⋯), '.' and '．', and a line break;
//   * clause ends: ，、；：, ; : — (and " – " between spaces);
//   * closing quotes and brackets right after the punctuation stay with its clause
//     (他说：“好的。” -> 他说： | “好的。”).
// Where they do not: a '.' or ',' ';' ':' '!' '?' followed directly by a letter or
// digit (3.5, 1,299, 10:30, example.com, a@b.cn, ?id=3), titles (Mr. Mrs. Ms. Dr.
// Prof. St. Jr. Sr. vs.), e.g. and i.e., "No." before a number, a single capital
// initial (J. K. Rowling), and dotted abbreviations or "etc." followed by a lower-case
// word (U.S. and a.m. and etc. do end a sentence before a capital or Han character).
// An ellipsis before a lower-case word is a clause end, not a sentence end.
//
// Maximum length: a clause longer than max_han_characters Han characters or max_words
// words (letter/digit runs; mixed text counts each side in proportion) is cut so
// synthesis starts early: at the last space or punctuation in its second half, else
// between two Han characters (or a Han character and a Latin word), else at the last
// space or punctuation anywhere; never inside a word or a number. A run with no such
// place (one enormous "word") is cut at a character boundary once it reaches
// max_clause_bytes, which also bounds memory: pending text never exceeds about
// max_clause_bytes plus a few characters of look-ahead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "media/language.h"

namespace lingcast {

struct SegmenterConfig {
  int max_han_characters = 40;
  int max_words = 20;
  int max_clause_bytes = 512;  // hard cap for text with no place to break
  bool newline_ends_sentence = true;
  // The language of a clause with neither Han characters nor Latin letters ("3.5")
  // is the previous clause's; this one is used before any clause had one.
  Language default_language = Language::kEn;
};

// OK, or InvalidArgument naming the field ("max_words must be at least 1, got 0").
absl::Status ValidateSegmenterConfig(const SegmenterConfig& config);

struct Clause {
  std::string text;       // trimmed of surrounding white space; never blank
  int source_offset = 0;  // byte offset of text's first byte in the whole stream
  bool ends_sentence = false;
  Language language = Language::kEn;  // DetectLanguage(text), see above for no evidence
};

class ClauseSegmenter {
 public:
  // Limits below 1 (or max_clause_bytes below 16) are raised to those minimums;
  // call ValidateSegmenterConfig() first where the values come from a user.
  explicit ClauseSegmenter(SegmenterConfig config = {});

  // Appends `utf8_piece` to the stream; returns the clauses completed by it, in order.
  // Malformed UTF-8 is passed through untouched (run SanitizeText() first to drop it).
  std::vector<Clause> Push(std::string_view utf8_piece);

  // The stream (or utterance) ended: returns what is left as clauses, the last one
  // ending a sentence. Offsets keep counting, so Push() after Flush() continues the
  // same stream with a fresh sentence.
  std::vector<Clause> Flush();

  // Bytes received but not yet returned in a clause (for tests of bounded memory).
  size_t pending_bytes() const { return pending_.size(); }

 private:
  std::vector<Clause> Drain(bool end_of_stream);
  void Emit(std::string_view text, int64_t offset, bool ends_sentence, std::vector<Clause>& out);

  SegmenterConfig config_;
  std::string pending_;         // stream bytes from pending_offset_ on
  int64_t pending_offset_ = 0;  // stream offset of pending_[0]
  Language last_language_;
};

}  // namespace lingcast
