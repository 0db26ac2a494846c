// What every rule of the English normalizer (normalize_en.h) works on: the source
// as code points, read at any index, and the spoken text written for it, each
// output byte pointing back at the source character it stands for.
//
// The rules ("taggers", each in a normalize_en_<kind>.h) are functions
// `size_t RewriteX(EnglishRewriter& r, size_t i)`: when what starts at code point
// i is theirs, they write its words and return the index past it; otherwise they
// write nothing and return i. NormalizeEnglish() tries them in order at every
// index and copies what none of them takes.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "text/normalize_zh.h"  // NormalizedText
#include "text/utf8.h"

namespace lingcast::normalize_en {

// Longer numbers read digit by digit (and do not fit EnglishCardinal).
inline constexpr size_t kMaxCardinalDigits = 15;

inline bool IsAsciiLetter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
inline bool IsUpper(char32_t c) { return c >= 'A' && c <= 'Z'; }
inline bool IsLower(char32_t c) { return c >= 'a' && c <= 'z'; }
inline bool IsAsciiAlnum(char32_t c) { return IsAsciiLetter(c) || IsAsciiDigit(c); }
inline bool IsRangeSeparator(char32_t c) { return c == '-' || c == '~' || c == U'～' || c == U'–' || c == U'〜'; }
bool IsSentenceEnd(char32_t c);
std::string Lower(std::string_view s);
bool IsOneOf(std::string_view word, std::initializer_list<std::string_view> list);

// A number as written: "1,299.50" is integer "1299", fraction "50", grouped.
struct Number {
  std::string integer;  // digits, thousands separators removed
  std::string fraction;
  bool has_fraction = false;
  bool grouped = false;  // written with thousands separators
  size_t begin = 0;      // code point indices [begin, end)
  size_t end = 0;
  bool IsOne() const { return integer == "1" && !has_fraction; }
};

// "1299" -> one thousand two hundred ninety-nine, "007" and very long numbers digit by
// digit, a fraction after "point" digit by digit.
std::string ReadNumber(const Number& n);

class EnglishRewriter {
 public:
  explicit EnglishRewriter(std::string_view text);

  // ---- the source ----
  size_t size() const { return cps_.size(); }
  // The code point at k; 0 past the end, so rules may look ahead freely.
  char32_t At(size_t k) const { return k < cps_.size() ? cps_[k].value : 0; }
  bool DigitAt(size_t k) const { return IsAsciiDigit(At(k)); }
  // Byte offset of code point k in the source (its size past the end).
  int OffsetOf(size_t k) const { return k < cps_.size() ? cps_[k].offset : static_cast<int>(text_.size()); }
  // The source text of code points [begin, end).
  std::string Slice(size_t begin, size_t end) const;
  // Letters [k, end) of the ASCII word at k.
  size_t WordEnd(size_t k) const;
  // Index past the spaces at k (at most one space when `one_space`).
  size_t SkipSpace(size_t k, bool one_space = true) const;
  // The number at k (digits; with `allow_fraction`, also 1,299 groups and a decimal part).
  Number ParseNumber(size_t k, bool allow_fraction = true) const;
  // Ordinal suffix right after the number (1st, 22nd, 3rd, 4th); the index past it, or n.end.
  size_t OrdinalSuffixEnd(const Number& n) const;

  // ---- the spoken text ----
  // Appends `piece`, every byte pointing at source byte `source`.
  void Emit(std::string_view piece, int source);
  // Emits spoken words for code point `source_index`, separated by a space from a word
  // already written.
  void Say(std::string_view words, size_t source_index);
  // Copies code point k as written.
  void Copy(size_t k);
  bool EndsWithAlnum() const;
  // Whether the last output was words a rule produced (not text copied from the source).
  bool last_spoken() const { return last_spoken_; }
  void set_last_spoken(bool spoken) { last_spoken_ = spoken; }
  const std::string& written() const { return result_.text; }
  // Drops what was written past the first `size` bytes (a rule taking back a guess).
  void Truncate(size_t size);
  NormalizedText Take() && { return std::move(result_); }

 private:
  std::string_view text_;
  std::vector<CodePoint> cps_;
  NormalizedText result_;
  bool last_spoken_ = false;
};

}  // namespace lingcast::normalize_en
