// Money: "$19.99" -> nineteen dollars and ninety-nine cents, "£3.50", "€5", "¥99"
// (yuan amounts read with "point"), "$10k", "$1.5 million", "$10-$20"; and the
// currency codes after an amount ("99 RMB"), which the number rule reads with SayMoney.
#pragma once

#include <cstddef>
#include <string_view>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

struct Currency {
  std::string_view major_singular;
  std::string_view major_plural;
  std::string_view minor_singular;  // empty: amounts read with "point"
  std::string_view minor_plural;
};

// $ € £ ¥ ￥; null for anything else.
const Currency* CurrencyOfSymbol(char32_t c);
// USD EUR GBP RMB CNY (upper or lower case); null for anything else.
const Currency* CurrencyOfCode(std::string_view word);

// Says `amount` in `currency` for code point `source`: major and minor units
// ("one pound and one penny"), or with "point" where the currency has no minor unit
// read aloud or the fraction is longer than two digits; after a `multiplier`
// ("thousand", "million") the plural alone.
void SayMoney(EnglishRewriter& r, const Number& amount, const Currency& currency, std::string_view multiplier,
              size_t source);

// A multiplier written after an amount at k: "k"/"K" (thousand), "M" (million), or
// " thousand", " million", " billion". Sets `end` past it; empty when none.
std::string_view MultiplierAt(const EnglishRewriter& r, size_t k, size_t& end);

// A currency symbol at i followed by an amount, or a range of amounts ("$10-20").
size_t RewriteMoney(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
