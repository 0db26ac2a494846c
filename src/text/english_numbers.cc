#include "text/english_numbers.h"

#include <algorithm>
#include <array>

namespace lingcast {
namespace {

constexpr std::array<std::string_view, 20> kOnes = {
    "zero", "one",    "two",    "three",    "four",     "five",    "six",       "seven",     "eight",    "nine",
    "ten",  "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr std::array<std::string_view, 10> kTens = {"",      "",      "twenty",  "thirty", "forty",
                                                    "fifty", "sixty", "seventy", "eighty", "ninety"};

// Strings are built by appending: GCC 12 reports a false -Wrestrict on inlined
// `"literal" + std::string` chains.
std::string BelowHundred(int n) {
  if (n < 20) return std::string(kOnes[n]);
  std::string out(kTens[n / 10]);
  if (n % 10 != 0) {
    out += '-';
    out += kOnes[n % 10];
  }
  return out;
}

std::string BelowThousand(int n) {
  if (n < 100) return BelowHundred(n);
  std::string out(kOnes[n / 100]);
  out += " hundred";
  if (n % 100 != 0) {
    out += ' ';
    out += BelowHundred(n % 100);
  }
  return out;
}

}  // namespace

std::string EnglishCardinal(uint64_t value) {
  if (value == 0) return "zero";
  static constexpr std::array<std::pair<uint64_t, std::string_view>, 5> kScales = {{
      {1'000'000'000'000'000ULL, "quadrillion"},
      {1'000'000'000'000ULL, "trillion"},
      {1'000'000'000ULL, "billion"},
      {1'000'000ULL, "million"},
      {1'000ULL, "thousand"},
  }};
  std::string out;
  const auto append = [&out](std::string_view words) {
    if (!out.empty()) out += ' ';
    out += words;
  };
  for (const auto& [scale, name] : kScales) {
    if (value >= scale) {
      append(EnglishCardinal(value / scale));
      append(name);
      value %= scale;
    }
  }
  if (value > 0) append(BelowThousand(static_cast<int>(value)));
  return out;
}

std::string EnglishOrdinal(uint64_t value) {
  std::string words = EnglishCardinal(value);
  const size_t cut = words.find_last_of(" -") == std::string::npos ? 0 : words.find_last_of(" -") + 1;
  const std::string last = words.substr(cut);
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kIrregular = {
      {{"one", "first"}, {"two", "second"}, {"three", "third"}, {"five", "fifth"}, {"eight", "eighth"}, {"nine", "ninth"}}};
  for (const auto& [cardinal, ordinal] : kIrregular) {
    if (last == cardinal) return words.substr(0, cut) + std::string(ordinal);
  }
  if (last == "twelve") return words.substr(0, cut) + "twelfth";
  if (last.ends_with("y")) return words.substr(0, words.size() - 1) + "ieth";
  return words + "th";
}

std::string EnglishYear(int year) {
  if (year < 1000 || year > 9999) return EnglishCardinal(static_cast<uint64_t>(std::max(year, 0)));
  const int high = year / 100;
  const int low = year % 100;
  if (high % 10 == 0 && low < 10) {  // 2000 -> two thousand, 2008 -> two thousand eight
    return low == 0 ? EnglishCardinal(year) : EnglishCardinal(year - low) + " " + std::string(kOnes[low]);
  }
  std::string out = BelowHundred(high);
  if (low == 0) {
    out += " hundred";
  } else {
    out += low < 10 ? " oh " : " ";
    out += BelowHundred(low);
  }
  return out;
}

std::string EnglishDigits(std::string_view digits) {
  std::string out;
  for (const char c : digits) {
    if (c < '0' || c > '9') continue;
    if (!out.empty()) out += ' ';
    out += kOnes[c - '0'];
  }
  return out;
}

std::string EnglishPairs(std::string_view digits) {
  if (digits.empty() || digits.size() > 4) return EnglishDigits(digits);
  int value = 0;
  for (const char c : digits) value = value * 10 + (c - '0');
  if (digits.size() == 4) return EnglishYear(value);
  if (digits.size() == 3 && value >= 100 && value % 100 != 0) {
    const int rest = value % 100;
    std::string out(kOnes[value / 100]);
    out += rest < 10 ? " oh " : " ";
    out += BelowHundred(rest);
    return out;
  }
  return EnglishCardinal(static_cast<uint64_t>(value));
}

}  // namespace lingcast
