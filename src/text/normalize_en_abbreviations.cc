#include "text/normalize_en_abbreviations.h"

#include <array>

#include "text/normalize_en_acronyms.h"

namespace lingcast::normalize_en {

namespace {

// After an abbreviation that swallowed its period at k-1: a period that also ends the
// sentence (before a capital, a Han character or the end) is given back.
size_t KeepSentencePeriod(EnglishRewriter& r, size_t k) {
  const size_t next = r.SkipSpace(k, false);
  const char32_t c = r.At(next);
  if (next >= r.size() || IsUpper(c) || IsHan(c)) r.Emit(".", r.OffsetOf(k - 1));
  return k;
}

}  // namespace

// "e.g." "i.e." "U.S." "a.m." (letters each followed by a period).
size_t RewriteDottedAbbreviation(EnglishRewriter& r, size_t i) {
  size_t k = i;
  std::string letters;
  while (IsAsciiLetter(r.At(k)) && r.At(k + 1) == '.' && IsAsciiLetter(r.At(k + 2))) {
    letters.push_back(static_cast<char>(r.At(k)));
    k += 2;
  }
  if (IsAsciiLetter(r.At(k)) && r.At(k + 1) == '.' && !IsAsciiAlnum(r.At(k + 2))) {
    letters.push_back(static_cast<char>(r.At(k)));
    k += 2;
  } else {
    return i;
  }
  if (letters.size() < 2) return i;
  const std::string lower = Lower(letters);
  r.Say(lower == "eg" ? "for example" : lower == "ie" ? "that is" : Spell(letters), i);  // U.S. -> U S
  return KeepSentencePeriod(r, k);
}

size_t RewriteAbbreviation(EnglishRewriter& r, size_t i, size_t end, const std::string& word,
                           const std::string& lower) {
  const bool dot = r.At(end) == '.';
  const size_t after = dot ? end + 1 : end;
  struct Title {
    std::string_view written;
    std::string_view spoken;
  };
  static constexpr std::array<Title, 6> kTitles = {
      {{"Mr", "Mister"}, {"Mrs", "Missus"}, {"Ms", "Miz"}, {"Dr", "Doctor"}, {"Prof", "Professor"}, {"St", "Saint"}}};
  for (const Title& t : kTitles) {
    if (dot && word == t.written && r.At(after) == ' ' && IsUpper(r.At(after + 1))) {
      r.Say(t.spoken, i);
      return after;
    }
  }
  if (lower == "etc" && dot) {
    r.Say("et cetera", i);
    return KeepSentencePeriod(r, after);
  }
  if (lower == "vs" && (dot || r.At(end) == ' ')) {
    r.Say("versus", i);
    return after;
  }
  if (lower == "approx" && dot) {
    r.Say("approximately", i);
    return after;
  }
  if ((word == "No" || word == "no") && dot && r.DigitAt(r.SkipSpace(after))) {
    r.Say("number", i);
    return after;
  }
  return i;
}

}  // namespace lingcast::normalize_en
