#include "text/normalize_en_dates.h"

#include <array>

#include "text/english_numbers.h"

namespace lingcast::normalize_en {

namespace {

constexpr std::array<std::string_view, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                                      "July",    "August",   "September", "October", "November", "December"};

}  // namespace

// "May first" [", twenty twenty-four"], or nullopt if month/day are not a date.
std::optional<std::string> DateWords(const std::string& month, const std::string& day, const std::string& year) {
  if (month.size() > 2 || day.size() > 2) return std::nullopt;
  const int m = std::stoi(month);
  const int d = std::stoi(day);
  if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  std::string out = std::string(kMonths[m - 1]) + " " + EnglishOrdinal(d);
  if (!year.empty()) out += ", " + EnglishYear(std::stoi(year));
  return out;
}

// "May 1", "May 1st", "Dec. 25, 2024", "January 5 2025".
size_t RewriteMonthDate(EnglishRewriter& r, size_t i, size_t end, const std::string& word) {
  int month = 0;
  for (int m = 0; m < 12; ++m) {
    const std::string_view full = kMonths[m];
    const bool abbreviated = word.size() >= 3 && word.size() < full.size() && full.starts_with(word) &&
                             (word.size() == 3 || word == "Sept");
    if (word == full || abbreviated) month = m + 1;
  }
  if (month == 0) return i;
  size_t k = end;
  if (r.At(k) == '.' && word != kMonths[month - 1]) ++k;
  if (r.At(k) != ' ' || !r.DigitAt(k + 1)) return i;
  const Number day = r.ParseNumber(k + 1, false);
  if (day.integer.size() > 2) return i;
  const int day_value = std::stoi(day.integer);
  if (day_value < 1 || day_value > 31) return i;
  size_t e = day.end;
  if (size_t s = r.OrdinalSuffixEnd(day); s > e) e = s;
  if (IsAsciiLetter(r.At(e)) || r.DigitAt(e) || r.At(e) == ':') return i;
  std::string spoken = std::string(kMonths[month - 1]) + " " + EnglishOrdinal(day_value);
  // ", 2024" or " 2024"
  size_t y = e;
  if (r.At(y) == ',') ++y;
  if (r.At(y) == ' ' && r.DigitAt(y + 1)) {
    const Number year = r.ParseNumber(y + 1, false);
    if (year.integer.size() == 4 && !r.DigitAt(year.end)) {
      r.Say(spoken, i);
      if (r.At(e) == ',') r.Emit(", ", r.OffsetOf(e));
      r.Say(EnglishYear(std::stoi(year.integer)), year.begin);
      return year.end;
    }
  }
  r.Say(spoken, i);
  return e;
}

// 5/1, 5/1/2024, 1/2 (a fraction), 24/7.
size_t RewriteSlashForms(EnglishRewriter& r, size_t i) {
  std::vector<Number> parts = {r.ParseNumber(i, false)};
  while (parts.size() < 4 && r.At(parts.back().end) == '/' && r.DigitAt(parts.back().end + 1)) {
    parts.push_back(r.ParseNumber(parts.back().end + 1, false));
  }
  if (parts.size() < 2 || parts.size() > 3 || IsAsciiAlnum(r.At(parts.back().end)) || r.At(parts.back().end) == '/') {
    return i;
  }
  const std::string& a = parts[0].integer;
  const std::string& b = parts[1].integer;
  if (parts.size() == 2) {
    if (a == "24" && b == "7") {
      r.Say("twenty-four seven", i);
      return parts[1].end;
    }
    static constexpr std::array<std::array<std::string_view, 3>, 5> kFractions = {{{"1", "2", "one half"},
                                                                                   {"1", "3", "one third"},
                                                                                   {"2", "3", "two thirds"},
                                                                                   {"1", "4", "one quarter"},
                                                                                   {"3", "4", "three quarters"}}};
    for (const auto& f : kFractions) {
      if (a == f[0] && b == f[1]) {
        r.Say(f[2], i);
        return parts[1].end;
      }
    }
  }
  const std::string year = parts.size() == 3 ? parts[2].integer : "";
  if (parts.size() == 3 && year.size() != 4) return i;
  if (const std::optional<std::string> date = DateWords(a, b, year)) {
    r.Say(*date, i);
    return parts.back().end;
  }
  return i;
}

// 2023-2024 -> twenty twenty-three to twenty twenty-four.
size_t RewriteYearRange(EnglishRewriter& r, size_t i) {
  const Number a = r.ParseNumber(i, false);
  if (a.integer.size() != 4 || !IsRangeSeparator(r.At(a.end)) || !r.DigitAt(a.end + 1)) return i;
  const Number b = r.ParseNumber(a.end + 1, false);
  if (b.integer.size() != 4 || IsAsciiAlnum(r.At(b.end)) || r.At(b.end) == '-') return i;
  const int from = std::stoi(a.integer);
  const int to = std::stoi(b.integer);
  if (from < 1100 || to > 2099 || to <= from) return i;
  r.Say(EnglishYear(from), i);
  r.Say("to", a.end);
  r.Say(EnglishYear(to), b.begin);
  return b.end;
}

}  // namespace lingcast::normalize_en
