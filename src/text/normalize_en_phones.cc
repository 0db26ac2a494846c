#include "text/normalize_en_phones.h"

#include "text/english_numbers.h"
#include "text/normalize_en_dates.h"

namespace lingcast::normalize_en {

void SayPhoneGroups(EnglishRewriter& r, const std::vector<std::string>& groups, size_t i) {
  std::string spoken;
  for (const std::string& g : groups) {
    if (!spoken.empty()) spoken += ", ";
    spoken += EnglishDigits(g);
  }
  r.Say(spoken, i);
}

// 400-123-4567 and 010-12345678 digit by digit; 2024-05-01 is a date.
size_t RewriteDashedDigits(EnglishRewriter& r, size_t i) {
  std::vector<Number> groups = {r.ParseNumber(i, false)};
  while (r.At(groups.back().end) == '-' && r.DigitAt(groups.back().end + 1)) {
    groups.push_back(r.ParseNumber(groups.back().end + 1, false));
  }
  size_t total = 0;
  for (const Number& g : groups) total += g.integer.size();
  if (groups.size() < 2 || (groups.size() == 2 && total < 7)) return i;
  if (r.At(groups.back().end) == '.' && r.DigitAt(groups.back().end + 1)) return i;
  if (IsAsciiLetter(r.At(groups.back().end)) || IsHan(r.At(groups.back().end))) return i;
  if (groups.size() == 3 && groups[0].integer.size() == 4) {
    if (const std::optional<std::string> date = DateWords(groups[1].integer, groups[2].integer, groups[0].integer)) {
      r.Say(*date, i);
      return groups.back().end;
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) r.Emit(", ", r.OffsetOf(groups[g].begin - 1));
    r.Say(EnglishDigits(groups[g].integer), groups[g].begin);
  }
  return groups.back().end;
}

// 138 0013 8000: a Chinese mobile number written in groups.
size_t RewriteSpacedMobile(EnglishRewriter& r, size_t i) {
  const Number a = r.ParseNumber(i, false);
  if (a.integer.size() != 3 || a.integer[0] != '1' || r.At(a.end) != ' ' || !r.DigitAt(a.end + 1)) return i;
  const Number b = r.ParseNumber(a.end + 1, false);
  if (b.integer.size() != 4 || r.At(b.end) != ' ' || !r.DigitAt(b.end + 1)) return i;
  const Number c = r.ParseNumber(b.end + 1, false);
  if (c.integer.size() != 4 || IsAsciiAlnum(r.At(c.end))) return i;
  SayPhoneGroups(r, {a.integer, b.integer, c.integer}, i);
  return c.end;
}

// (555) 123-4567
size_t RewriteParenthesizedPhone(EnglishRewriter& r, size_t i) {
  const Number area = r.ParseNumber(i + 1, false);
  if (r.At(area.end) != ')' || area.integer.size() < 2 || area.integer.size() > 4) return i;
  const size_t k = r.SkipSpace(area.end + 1);
  if (!r.DigitAt(k)) return i;
  const Number a = r.ParseNumber(k, false);
  if (r.At(a.end) != '-' || !r.DigitAt(a.end + 1)) return i;
  const Number b = r.ParseNumber(a.end + 1, false);
  if (a.integer.size() + b.integer.size() < 7 || IsAsciiAlnum(r.At(b.end))) return i;
  SayPhoneGroups(r, {area.integer, a.integer, b.integer}, i);
  return b.end;
}

// +86 138 0013 8000, +1-555-123-4567
size_t RewriteInternationalPhone(EnglishRewriter& r, size_t i) {
  if (!r.DigitAt(i + 1) || (i > 0 && IsAsciiAlnum(r.At(i - 1)))) return i;
  std::vector<std::string> groups;
  size_t k = i + 1;
  size_t total = 0;
  while (r.DigitAt(k)) {
    const Number g = r.ParseNumber(k, false);
    groups.push_back(g.integer);
    total += g.integer.size();
    k = g.end;
    if ((r.At(k) == ' ' || r.At(k) == '-') && r.DigitAt(k + 1)) ++k;
  }
  if (groups.size() < 2 || total < 8 || groups[0].size() > 3 || IsAsciiAlnum(r.At(k))) return i;
  r.Say("plus", i);
  SayPhoneGroups(r, groups, i + 1);
  return k;
}

}  // namespace lingcast::normalize_en
