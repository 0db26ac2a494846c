#include "text/normalize_en_money.h"

#include <string>

#include "text/english_numbers.h"

namespace lingcast::normalize_en {

namespace {

constexpr Currency kDollar = {"dollar", "dollars", "cent", "cents"};
constexpr Currency kEuro = {"euro", "euros", "cent", "cents"};
constexpr Currency kPound = {"pound", "pounds", "penny", "pence"};
constexpr Currency kYuan = {"yuan", "yuan", "", ""};

}  // namespace

const Currency* CurrencyOfSymbol(char32_t c) {
  switch (c) {
    case '$': return &kDollar;
    case U'€': return &kEuro;
    case U'£': return &kPound;
    case U'¥': case U'￥': return &kYuan;
    default: return nullptr;
  }
}

const Currency* CurrencyOfCode(std::string_view word) {
  if (IsOneOf(word, {"USD", "usd"})) return &kDollar;
  if (IsOneOf(word, {"EUR", "eur"})) return &kEuro;
  if (IsOneOf(word, {"GBP", "gbp"})) return &kPound;
  if (IsOneOf(word, {"RMB", "CNY", "rmb", "cny"})) return &kYuan;
  return nullptr;
}

// Reads an amount with its currency: nineteen dollars and ninety-nine cents.
void SayMoney(EnglishRewriter& r, const Number& amount, const Currency& currency, std::string_view multiplier,
              size_t source) {
  if (!multiplier.empty()) {
    r.Say(ReadNumber(amount) + " " + std::string(multiplier) + " " + std::string(currency.major_plural), source);
    return;
  }
  std::string fraction = amount.fraction;
  if (!currency.minor_singular.empty() && fraction.size() <= 2 && amount.integer.size() <= kMaxCardinalDigits) {
    if (fraction.size() == 1) fraction += "0";
    const uint64_t major = std::stoull(amount.integer);
    const int minor = fraction.empty() ? 0 : std::stoi(fraction);
    std::string spoken;
    if (major > 0 || minor == 0) {
      spoken = EnglishCardinal(major) + " " +
               std::string(major == 1 ? currency.major_singular : currency.major_plural);
    }
    if (minor > 0) {
      if (!spoken.empty()) spoken += " and ";
      spoken += EnglishCardinal(minor) + " " +
                std::string(minor == 1 ? currency.minor_singular : currency.minor_plural);
    }
    r.Say(spoken, source);
    return;
  }
  Number trimmed = amount;  // ¥19.90 -> nineteen point nine yuan
  while (!trimmed.fraction.empty() && trimmed.fraction.back() == '0') trimmed.fraction.pop_back();
  trimmed.has_fraction = !trimmed.fraction.empty();
  r.Say(ReadNumber(trimmed) + " " + std::string(trimmed.IsOne() ? currency.major_singular : currency.major_plural),
        source);
}

// Multiplier written after an amount: 10k, 1.5M, 2 million. Sets `end` past it.
std::string_view MultiplierAt(const EnglishRewriter& r, size_t k, size_t& end) {
  if ((r.At(k) == 'k' || r.At(k) == 'K') && !IsAsciiAlnum(r.At(k + 1))) {
    end = k + 1;
    return "thousand";
  }
  if (r.At(k) == 'M' && !IsAsciiAlnum(r.At(k + 1))) {
    end = k + 1;
    return "million";
  }
  if (r.At(k) == ' ') {
    const size_t e = r.WordEnd(k + 1);
    const std::string word = r.Slice(k + 1, e);
    for (const std::string_view big : {"thousand", "million", "billion"}) {
      if (word == big) {
        end = e;
        return big;
      }
    }
  }
  return "";
}

size_t RewriteMoney(EnglishRewriter& r, size_t i) {
  const Currency& currency = *CurrencyOfSymbol(r.At(i));
  const Number low = r.ParseNumber(i + 1);
  size_t end = low.end;
  std::string_view multiplier = MultiplierAt(r, end, end);
  // $10-20, $10-$20, $10 - $20
  size_t sep = end;
  if (r.At(sep) == ' ' && IsRangeSeparator(r.At(sep + 1)) && r.At(sep + 2) == ' ') ++sep;
  const bool spaced = sep != end;
  if (multiplier.empty() && IsRangeSeparator(r.At(sep))) {
    size_t k = sep + 1 + (spaced ? 1 : 0);
    if (r.At(k) == r.At(i)) ++k;
    if (r.DigitAt(k)) {
      const Number high = r.ParseNumber(k);
      size_t high_end = high.end;
      const std::string_view high_multiplier = MultiplierAt(r, high_end, high_end);
      if (low.has_fraction || high.has_fraction) {
        SayMoney(r, low, currency, "", i);
      } else {
        r.Say(ReadNumber(low), i);
      }
      r.Say("to", sep);
      SayMoney(r, high, currency, high_multiplier, high.begin);
      return high_end;
    }
  }
  SayMoney(r, low, currency, multiplier, i);
  if (currency.minor_singular.empty() && (r.At(end) == U'元' || r.At(end) == U'块')) return end + 1;  // ¥99元
  return end;
}

}  // namespace lingcast::normalize_en
