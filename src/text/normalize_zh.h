// Chinese text normalization for speech: numbers written with digits become the
// Chinese words a speaker says. First version (issue 2): integers, decimals,
// percentages and years. Prices, dates, units, phone numbers ... grow here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lingcast {

// Normalized text plus, for every byte of it, the byte offset in the original text
// that it came from, so timings on the spoken text map back to what the user wrote.
struct NormalizedText {
  std::string text;
  std::vector<int> source_offset;  // size() == text.size()
};

// Rewrites digit strings in Chinese text:
//   "99元" -> 九十九元, "3.5" -> 三点五, "10086" -> 一万零八十六, "0.05" -> 零点零五,
//   "2024年" -> 二零二四年 (years digit by digit), "50%" -> 百分之五十,
//   "2个" -> 两个 (2 before a measure word), "007" -> 零零七 (a leading zero, or more
//   than 16 digits, reads digit by digit). Full-width digits and ％ are accepted.
// Everything else is copied unchanged.
NormalizedText NormalizeChinese(std::string_view text);

// Reads a non-negative integer the Chinese way: 0 -> 零, 10 -> 十, 110 -> 一百一十,
// 1001 -> 一千零一, 120000 -> 十二万, 100000000 -> 一亿. Valid below 10^16.
std::string ChineseInteger(uint64_t value);

// Reads each digit of an ASCII digit string: "2024" -> 二零二四.
std::string ChineseDigits(std::string_view digits);

}  // namespace lingcast
