// Matching keys for translation memory and script following: what two spoken
// lines have in common once case, width, punctuation and spacing are set aside,
// and (MatchSpelling) once the same words written two ways are written one way.
//
// Chinese is compared character by character and English word by word, so an edit
// distance counts what a listener would count as a difference: one wrong 字, one
// wrong word. Digits form one token per run ("99" is one token in both languages).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "media/language.h"
#include "text/zh_script.h"

namespace lingcast {

// Tokens of `text` for matching: each Han character is a token, each run of Latin
// letters or of digits is a token (lowercased; full-width forms folded to ASCII);
// punctuation, symbols and spaces separate tokens and are dropped.
std::vector<std::string> MatchTokens(std::string_view text);

// The tokens joined by single spaces: two texts with the same key are the same line
// for an exact match ("iPhone 15，只要99元！" and "iphone 15 只要 99 元" share one).
std::string MatchKey(std::string_view text);

// One spelling for words that are said the same but written differently, applied
// to both sides of a match (a script line and what the recognizer heard, a memory
// entry and a lookup) before MatchTokens. A recognizer writes what it hears its
// own way: Whisper writes Mandarin in Traditional characters and numbers as
// digits (專櫃價格是328元 for 专柜价格是三百二十八元), pocketsphinx writes words
// ("eighty nine dollars" for "$89"). The one spelling is the line's language as
// spoken, in Simplified characters:
//   * full-width digits and signs are ASCII (SanitizeText: ５０％ -> 50%);
//   * Traditional characters are Simplified (the converter given: OpenCC t2s,
//     character by character, so a line and any part of it fold alike);
//   * numbers, prices, percentages, dates, units ... are read as words, the way
//     the text front-end reads them for speech: NormalizeChinese for Chinese
//     (328元 -> 三百二十八元, 50毫升 -> 五十毫升), NormalizeEnglish for English
//     ($89 -> eighty-nine dollars, 80% -> eighty percent, 15 -> fifteen);
//   * Chinese numerals that say the same number are one: 两 is 二 (两百 and 200,
//     read 二百, match), 〇 is 零, 幺 (a phone number's 1) is 一.
// Words stay words: "eighty nine" and "eighty-nine" already match (a hyphen
// separates tokens). What the normalizers read differently from a person stays
// different ("$19.99" is "nineteen dollars and ninety-nine cents", not "nineteen
// ninety-nine").
class MatchSpelling {
 public:
  // As written: only what MatchTokens folds (case, width, punctuation, spacing).
  MatchSpelling() = default;
  // Texts in `language`. `to_simplified`, when given, writes their Han characters
  // in Simplified (a converter loaded once and shared; its Convert is thread-safe).
  explicit MatchSpelling(Language language, std::shared_ptr<const ZhScriptConverter> to_simplified = nullptr);
  // For `language`, with OpenCC's t2s loaded for Chinese (English needs none);
  // the converter's error (a missing config, naming the file) otherwise.
  static absl::StatusOr<MatchSpelling> Load(Language language);

  // `text` in the one spelling (the input as it is for a default MatchSpelling).
  std::string Spell(std::string_view text) const;
  // MatchTokens / MatchKey of Spell(text).
  std::vector<std::string> Tokens(std::string_view text) const;
  std::string Key(std::string_view text) const;
  // Tokens(text) with each number said in words as one token, as a run of digits
  // is one token to MatchTokens: 三百二十八 (三点五 too) and "eighty nine" are
  // one token each. For matching whole lines (the translation memory): a wrong
  // number is one edit, and a number keeps telling lines apart in the memory's
  // index of token pairs (编号9876 read as 编号九千八百七十六 would be eight tokens
  // of an alphabet of thirteen, paired alike in thousands of lines). A follower
  // matching speech as it streams keeps one token per character or word, so that
  // half a number heard ("三百") matches the start of the line's.
  std::vector<std::string> TokensWithWholeNumbers(std::string_view text) const;

  std::optional<Language> language() const { return language_; }
  const std::shared_ptr<const ZhScriptConverter>& to_simplified() const { return to_simplified_; }

 private:
  std::optional<Language> language_;
  std::shared_ptr<const ZhScriptConverter> to_simplified_;
};

// Levenshtein distance between two token sequences. When the distance exceeds
// `max_distance`, returns some value > max_distance without finishing (a banded
// computation), which is all a thresholded lookup needs.
int TokenEditDistance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                      int max_distance = 1 << 30);

// Edit distances from one fixed sequence (a lookup's query) to many others: a
// machine word holds a whole column of the distance table (Myers' bit-parallel
// algorithm, global form), so a line costs a few word operations per token instead
// of a row of cells. Queries longer than 64 tokens fall back to TokenEditDistance.
// Exact: Distance equals TokenEditDistance for every input.
class QueryEditDistance {
 public:
  explicit QueryEditDistance(const std::vector<uint32_t>& query);

  // The distance from the query to `line` (`length` tokens); some value >
  // `max_distance` as soon as the distance is known to exceed it.
  int Distance(const uint32_t* line, int length, int max_distance) const;

 private:
  uint64_t Match(uint32_t token) const;  // the query positions holding `token`

  std::vector<uint32_t> query_;
  // A small open-addressed table: token -> bit mask of its positions in the query.
  static constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;
  std::vector<uint32_t> slot_token_;
  std::vector<uint64_t> slot_mask_;
  uint32_t slot_bits_ = 0;
  uint64_t reserved_token_mask_ = 0;  // the positions of token kEmptySlot, which the table cannot hold
};

// The stretch of `line` closest to `query`: the edit distance from the whole
// query to a contiguous stretch of the line that may start and end anywhere in
// it (a host may start mid-line, and a recognizer often loses an utterance's
// first words). `end` is one past the stretch's last token (the first such end
// when several tie).
struct StretchMatch {
  int distance = 0;
  size_t end = 0;
};

template <typename Token>
StretchMatch BestStretch(const std::vector<Token>& query, const std::vector<Token>& line) {
  const size_t m = line.size();
  std::vector<int> previous(m + 1, 0), current(m + 1, 0);
  for (size_t i = 1; i <= query.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      current[j] = std::min({previous[j - 1] + (query[i - 1] == line[j - 1] ? 0 : 1), previous[j] + 1,
                             current[j - 1] + 1});
    }
    std::swap(previous, current);
  }
  StretchMatch best{previous[0], 0};
  for (size_t j = 1; j <= m; ++j) {
    if (previous[j] < best.distance) best = StretchMatch{previous[j], j};
  }
  return best;
}

// 1 - distance / max(|a|, |b|), in [0, 1]; 1 for two empty sequences.
double TokenSimilarity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace lingcast
