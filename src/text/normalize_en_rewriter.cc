#include "text/normalize_en_rewriter.h"

#include <algorithm>

#include "text/english_numbers.h"

namespace lingcast::normalize_en {

bool IsSentenceEnd(char32_t c) {
  return c == '.' || c == '!' || c == '?' || c == '\n' || c == U'。' || c == U'！' || c == U'？';
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

bool IsOneOf(std::string_view word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

std::string ReadNumber(const Number& n) {
  std::string out;
  if ((n.integer.size() > 1 && n.integer[0] == '0') || n.integer.size() > kMaxCardinalDigits) {
    out = EnglishDigits(n.integer);
  } else {
    out = EnglishCardinal(std::stoull(n.integer));
  }
  if (n.has_fraction) out += " point " + EnglishDigits(n.fraction);
  return out;
}

EnglishRewriter::EnglishRewriter(std::string_view text) : text_(text), cps_(DecodeUtf8(text)) {}

std::string EnglishRewriter::Slice(size_t begin, size_t end) const {
  return std::string(text_.substr(OffsetOf(begin), OffsetOf(end) - OffsetOf(begin)));
}

size_t EnglishRewriter::WordEnd(size_t k) const {
  while (IsAsciiLetter(At(k))) ++k;
  return k;
}

size_t EnglishRewriter::SkipSpace(size_t k, bool one_space) const {
  if (At(k) == ' ') return k + 1;
  while (!one_space && IsSpace(At(k))) ++k;
  return k;
}

Number EnglishRewriter::ParseNumber(size_t k, bool allow_fraction) const {
  Number n;
  n.begin = k;
  while (DigitAt(k)) n.integer.push_back(static_cast<char>(At(k++)));
  // 1,299 is one number; "3,5" is a list.
  while (allow_fraction && n.integer.size() <= 3 && n.integer[0] != '0' && At(k) == ',' && DigitAt(k + 1) &&
         DigitAt(k + 2) && DigitAt(k + 3) && !DigitAt(k + 4)) {
    for (size_t j = k + 1; j <= k + 3; ++j) n.integer.push_back(static_cast<char>(At(j)));
    n.grouped = true;
    k += 4;
  }
  if (allow_fraction && At(k) == '.' && DigitAt(k + 1)) {
    n.has_fraction = true;
    ++k;
    while (DigitAt(k)) n.fraction.push_back(static_cast<char>(At(k++)));
  }
  n.end = k;
  return n;
}

size_t EnglishRewriter::OrdinalSuffixEnd(const Number& n) const {
  if (n.has_fraction || !IsAsciiLetter(At(n.end)) || !IsAsciiLetter(At(n.end + 1)) || IsAsciiLetter(At(n.end + 2))) {
    return n.end;
  }
  const std::string suffix = Lower(Slice(n.end, n.end + 2));
  return IsOneOf(suffix, {"st", "nd", "rd", "th"}) ? n.end + 2 : n.end;
}

void EnglishRewriter::Emit(std::string_view piece, int source) {
  result_.text.append(piece);
  result_.source_offset.insert(result_.source_offset.end(), piece.size(), source);
}

void EnglishRewriter::Say(std::string_view words, size_t source_index) {
  if (words.empty()) return;
  const int source = OffsetOf(source_index);
  if (EndsWithAlnum() && IsAsciiAlnum(static_cast<unsigned char>(words.front()))) Emit(" ", source);
  Emit(words, source);
  last_spoken_ = true;
}

void EnglishRewriter::Copy(size_t k) { Emit(text_.substr(cps_[k].offset, cps_[k].length), cps_[k].offset); }

bool EnglishRewriter::EndsWithAlnum() const {
  return !result_.text.empty() && IsAsciiAlnum(static_cast<unsigned char>(result_.text.back()));
}

void EnglishRewriter::Truncate(size_t size) {
  result_.text.resize(size);
  result_.source_offset.resize(size);
}

}  // namespace lingcast::normalize_en
