// English number words, as a host says them: cardinals, ordinals, years, digits,
// and product numbers read in pairs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lingcast {

// 1299 -> "one thousand two hundred ninety-nine" (no "and"); valid below 10^18.
std::string EnglishCardinal(uint64_t value);
// 21 -> "twenty-first".
std::string EnglishOrdinal(uint64_t value);
// A four-digit year: 2024 -> "twenty twenty-four", 2000 -> "two thousand", 2008 ->
// "two thousand eight", 1905 -> "nineteen oh five", 1900 -> "nineteen hundred".
std::string EnglishYear(int year);
// "2024" -> "two zero two four".
std::string EnglishDigits(std::string_view digits);

// A product number read in pairs: "4090" -> "forty ninety", "580" -> "five eighty",
// "605" -> "six oh five", "15" -> "fifteen"; more than four digits read digit by digit.
std::string EnglishPairs(std::string_view digits);

}  // namespace lingcast
