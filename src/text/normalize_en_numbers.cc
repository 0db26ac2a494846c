#include "text/normalize_en_numbers.h"

#include <algorithm>

#include "text/english_numbers.h"
#include "text/normalize_en_acronyms.h"
#include "text/normalize_en_dates.h"
#include "text/normalize_en_money.h"
#include "text/normalize_en_phones.h"
#include "text/normalize_en_times.h"
#include "text/normalize_en_units.h"

namespace lingcast::normalize_en {

namespace {

size_t CopyNumber(EnglishRewriter& r, size_t i) {
  const Number n = r.ParseNumber(i);
  r.Emit(r.Slice(i, n.end), r.OffsetOf(i));
  r.set_last_spoken(false);
  return n.end;
}

// 2.0.1 -> two point zero point one (a version, not a decimal).
size_t RewriteVersionNumber(EnglishRewriter& r, size_t i) {
  std::vector<Number> parts = {r.ParseNumber(i, false)};
  while (r.At(parts.back().end) == '.' && r.DigitAt(parts.back().end + 1)) {
    parts.push_back(r.ParseNumber(parts.back().end + 1, false));
  }
  if (parts.size() < 3 || IsAsciiAlnum(r.At(parts.back().end))) return i;
  std::string spoken;
  for (const Number& part : parts) {
    if (!spoken.empty()) spoken += " point ";
    spoken += ReadNumber(part);
  }
  r.Say(spoken, i);
  return parts.back().end;
}

// 5折 -> fifty percent off; 8.5折 and 85折 -> fifteen percent off.
size_t RewriteDiscount(EnglishRewriter& r, const Number& n) {
  const std::string digits = n.integer + n.fraction;
  int paid = std::stoi(digits.substr(0, std::min<size_t>(digits.size(), 2)));
  if (digits.size() == 1) paid *= 10;
  if (paid <= 0 || paid >= 100 || n.integer.size() > 2) {
    r.Say(ReadNumber(n), n.begin);
    return n.end;  // not a discount we can read; 折 stays for the Chinese voice
  }
  r.Say(EnglishCardinal(static_cast<uint64_t>(100 - paid)) + " percent off", n.begin);
  return n.end + 1;
}

// 1800-2099 is a year unless a word follows that it counts ("1299 left", "2024 units"),
// and even then after "in", "since", "the" ... ("in 2024 we").
bool IsYear(const EnglishRewriter& r, const Number& n, int value) {
  if (n.integer.size() != 4 || value < 1800 || value > 2099) return false;
  const size_t end = n.end;
  if (r.At(end) != ' ' || !IsLower(r.At(end + 1))) return true;
  const size_t i = n.begin;
  if (i < 2 || r.At(i - 1) != ' ') return false;
  size_t start = i - 1;
  while (start > 0 && IsAsciiLetter(r.At(start - 1))) --start;
  const std::string before = Lower(r.Slice(start, i - 1));
  return IsOneOf(before, {"in", "since", "by", "from", "until", "till", "of", "before", "after", "year", "circa",
                          "around", "early", "late", "mid", "the", "spring", "summer", "autumn", "fall", "winter"});
}

// RTX 4090, Mate 60, iPhone 15: a product word right before the number (one space).
bool AfterProductWord(const EnglishRewriter& r, size_t i) {
  if (i < 2 || r.At(i - 1) != ' ') return false;
  const size_t end = i - 1;
  size_t start = end;
  while (start > 0 && IsAsciiAlnum(r.At(start - 1))) --start;
  if (start == end || !IsAsciiLetter(r.At(start))) return false;
  const std::string word = r.Slice(start, end);
  const bool all_capitals = word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char ch) {
                              return IsUpper(ch) || IsAsciiDigit(ch);
                            });
  if (all_capitals) return !IsCapitalWordSaidAsWord(Lower(word));
  const bool inner_capital = std::any_of(word.begin() + 1, word.end(), [](char ch) { return IsUpper(ch); });
  if (inner_capital) return true;  // iPhone, PlayStation
  if (!IsUpper(word[0])) return false;
  // A capital at the start of a sentence says nothing: "Only 1299".
  size_t k = start;
  while (k > 0 && IsSpace(r.At(k - 1))) --k;
  return k > 0 && !IsSentenceEnd(r.At(k - 1)) && !IsCapitalWordSaidAsWord(Lower(word));
}

// How a number is said alone or before what follows it; returns the index past it.
size_t RewriteQuantity(EnglishRewriter& r, const Number& n) {
  const size_t i = n.begin;
  size_t end = n.end;
  if (size_t s = r.OrdinalSuffixEnd(n); s > n.end && n.integer.size() <= kMaxCardinalDigits) {
    r.Say(EnglishOrdinal(std::stoull(n.integer)), i);
    return s;
  }
  if (r.At(end) == '%') {
    r.Say(ReadNumber(n) + " percent", i);
    return end + 1;
  }
  std::string meridiem;
  if (size_t e = MeridiemEnd(r, end, meridiem);
      e > end && !n.has_fraction && n.integer.size() <= 2 && std::stoi(n.integer) <= 12) {
    r.Say(ReadNumber(n) + " " + meridiem, i);
    return ThenTimeRange(r, e);
  }
  if (size_t unit_end = 0; const Unit* unit = UnitAt(r, end, unit_end)) {
    r.Say(ReadNumber(n), i);
    r.Say(n.IsOne() ? unit->singular : unit->plural, r.SkipSpace(end));
    return unit_end;
  }
  // Currency codes and words after the amount: 99 RMB, 20 USD.
  if (r.At(end) == ' ' && IsUpper(r.At(end + 1))) {
    const size_t e = r.WordEnd(end + 1);
    if (const Currency* currency = CurrencyOfCode(r.Slice(end + 1, e)); currency && !IsAsciiAlnum(r.At(e))) {
      SayMoney(r, n, *currency, "", i);
      return e;
    }
  }
  const char32_t next = r.At(end);
  const char32_t after = r.At(end + 1);
  if (next == 'k' && !IsAsciiAlnum(after)) {  // 10k; "4K" is a resolution (below)
    r.Say(ReadNumber(n) + " thousand", i);
    return end + 1;
  }
  if ((next == 'x' || next == 'X') && r.DigitAt(end + 1) && !n.has_fraction) {  // 1920x1080
    const Number second = r.ParseNumber(end + 1, false);
    const auto side = [](const Number& x) { return x.integer.size() <= 4 ? EnglishPairs(x.integer) : ReadNumber(x); };
    r.Say(side(n) + " by " + side(second), i);
    return second.end;
  }
  if ((next == 'x' || next == 'X') && !IsAsciiAlnum(after)) {
    r.Say(ReadNumber(n) + " times", i);
    return end + 1;
  }
  if (IsAsciiLetter(next)) {  // 5G, 4K, 3D, 1080p, 2FA: the number, then the letters
    const size_t e = r.WordEnd(end);
    const std::string letters = r.Slice(end, e);
    const bool capitals = std::all_of(letters.begin(), letters.end(), [](char ch) { return IsUpper(ch); });
    r.Say(n.has_fraction || n.integer.size() > 4 ? ReadNumber(n) : EnglishPairs(n.integer), i);
    r.Say(capitals && letters.size() <= 4 ? Spell(letters) : letters, end);
    return e;
  }
  if (next == '+') {
    r.Say(ReadNumber(n) + " plus", i);
    return end + 1;
  }
  if (next == '/' && n.has_fraction && r.DigitAt(end + 1)) {  // a rating: 9.5/10 -> nine point five out of ten
    const Number scale = r.ParseNumber(end + 1, false);
    if (!IsAsciiAlnum(r.At(scale.end)) && scale.integer.size() <= 3) {
      r.Say(ReadNumber(n) + " out of " + ReadNumber(scale), i);
      return scale.end;
    }
  }
  if (next == '-' && IsAsciiLetter(after)) {  // a 3-day trip: the hyphen is a space
    r.Say(ReadNumber(n), i);
    r.Emit(" ", r.OffsetOf(end));
    r.set_last_spoken(false);
    return end + 1;
  }
  if (!n.has_fraction && !n.grouped && n.integer.size() >= 3 && n.integer.size() <= 4 && n.integer[0] != '0') {
    const int value = std::stoi(n.integer);
    if (IsYear(r, n, value) || AfterProductWord(r, i)) {
      r.Say(EnglishPairs(n.integer), i);
      return end;
    }
  }
  r.Say(ReadNumber(n), i);
  return end;
}

// 3-5 days, 10-20%, 3~5kg, $ ranges are in RewriteMoney(). Returns n.begin when not a range.
size_t RewriteRange(EnglishRewriter& r, const Number& first) {
  size_t sep = first.end;
  const bool first_percent = r.At(sep) == '%';
  if (first_percent) ++sep;
  if (!IsRangeSeparator(r.At(sep)) || !r.DigitAt(sep + 1) || first.integer.size() > 6) return first.begin;
  const Number second = r.ParseNumber(sep + 1);
  if (second.integer.size() > 6 || IsHan(r.At(second.end)) || (first_percent && r.At(second.end) != '%')) {
    return first.begin;
  }
  r.Say(ReadNumber(first) + (first_percent ? " percent" : ""), first.begin);
  r.Say("to", sep);
  return RewriteQuantity(r, second);
}

}  // namespace

size_t RewriteNumber(EnglishRewriter& r, size_t i) {
  const char32_t prev = i > 0 ? r.At(i - 1) : 0;
  if (IsHan(prev)) return CopyNumber(r, i);  // 第2件: for the Chinese voice
  if (size_t k = RewriteYearRange(r, i); k > i) return k;
  if (size_t k = RewriteDashedDigits(r, i); k > i) return k;
  if (size_t k = RewriteSpacedMobile(r, i); k > i) return k;
  if (size_t k = RewriteSlashForms(r, i); k > i) return k;
  if (size_t k = RewriteClockTime(r, i); k > i) return ThenTimeRange(r, k);
  if (size_t k = RewriteVersionNumber(r, i); k > i) return k;
  const Number n = r.ParseNumber(i);
  if (!n.has_fraction && n.integer.size() == 11 && n.integer[0] == '1' && !n.grouped) {
    SayPhoneGroups(r, {n.integer.substr(0, 3), n.integer.substr(3, 4), n.integer.substr(7)}, i);
    return n.end;
  }
  const char32_t next = r.At(n.end);
  if (next == U'折') return RewriteDiscount(r, n);
  if (next == U'元' || next == U'块') {
    r.Say(ReadNumber(n) + " yuan", i);
    return n.end + 1;
  }
  if (IsHan(next)) return CopyNumber(r, i);
  if (size_t k = RewriteRange(r, n); k > i) return k;
  return RewriteQuantity(r, n);
}

}  // namespace lingcast::normalize_en
