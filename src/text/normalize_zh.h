// Chinese text normalization for speech: numbers written with digits (prices, dates,
// times, phone numbers, quantities with units, model numbers) become the Chinese words
// a live-commerce anchor says.
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

// Rewrites digit strings in Chinese text the way a live-commerce anchor reads them.
// Full-width digits, ％, ．, － and ： are accepted. Everything else is copied unchanged.
//   Numbers:  "99元" -> 九十九元, "3.5" -> 三点五, "10086" -> 一万零八十六, "0.05" -> 零点零五,
//             "1,299" -> 一千二百九十九 (a comma before exactly three digits groups thousands),
//             "2个" -> 两个 (2 before a measure word or a unit, except ℃, and not after 第:
//             "第2件" -> 第二件), "20000" -> 两万 (a leading 2 before 千/万/亿), "007" -> 零零七
//             (a leading zero, or more than 16 digits, reads digit by digit).
//   Signs:    "-10度" -> 负十度, "-5℃" -> 零下五摄氏度 (a '-' not after a digit or a Latin
//             letter); '+' is left as written.
//   Prices:   "¥99"/"￥99" -> 九十九元, "$19.99" -> 十九点九九美元, "¥99-199" -> 九十九到一百九十九元,
//             "满300减50" -> 满三百减五十; trailing zeros go: "19.90元", "¥19.9" -> 十九点九元.
//   Discount: a number before 折 reads digit by digit: "5折" -> 五折, "8.5折" -> 八五折.
//   Percent:  "50%" -> 百分之五十, "12.5%" -> 百分之十二点五.
//   Years:    "2024年" -> 二零二四年 (2-4 digits before 年, digit by digit).
//   Dates:    "5/1" -> 五月一日, "2024/5/1" and "2024-05-01" -> 二零二四年五月一日, only when
//             the month is 1-12 and the day 1-31 (so 13/5 stays). A fraction written as
//             1/2 is read as a date (一月二日); write 二分之一 for a fraction.
//   Times:    H:MM[:SS] with hour 0-24 and two-digit minutes/seconds below 60:
//             "10:30" -> 十点三十分, "8:05" -> 八点零五分, "20:00" -> 二十点, "2:15" -> 两点十五分.
//             A score such as 3:2 (one-digit minutes) is left alone.
//             Two dates or two times joined by a dash are a range: "5/1-5/3" ->
//             五月一日到五月三日, "12:00-14:00" -> 十二点到十四点.
//   Phones:   11 digits starting with 1, or three or more dash-joined digit groups, or two
//             groups of 7+ digits ("400-123-4567", "010-12345678"), read digit by digit
//             with 1 as 幺; the dashes become "，" (a short pause).
//   Units:    after a number, optionally after one space, with this exact spelling:
//             GB 吉字节, TB 太字节, mAh 毫安时, m 米, cm 厘米, mm 毫米, km 公里, kg 千克, g 克,
//             ml/mL 毫升, W 瓦, ℃/°C 摄氏度. Units are said in Chinese (not left to the
//             English voice) so the amount and its unit are one phrase. "5G" stays 五G.
//   Ranges:   a number, then - ~ ～ – or —, then a number: "3-5天" -> 三到五天,
//             "1.5~2kg" -> 一点五到两千克, "2023-2024年" -> 二零二三到二零二四年,
//             "10-20%" -> 百分之十到二十, "10%-20%" -> 百分之十到百分之二十.
//   Models:   after a Latin word with a capital letter (directly or after one space; so
//             "hello 123" stays a plain number) a number of three or more
//             digits is a model number read digit by digit: "RTX 4090" -> RTX 四零九零;
//             shorter ones read as numbers: "iPhone 15 Pro" -> iPhone 十五 Pro. The Latin
//             word is kept for the English voice. A unit after it wins: "Pro 256GB" is a
//             capacity (二百五十六吉字节).
// Offsets: a rewritten piece points at the source character it stands for (到 at the dash,
// 点 at the colon, 吉字节 at "GB"); where speech reorders the source (¥99 -> 九十九元, 50% ->
// 百分之五十) the whole expansion points at the first source character. Offsets never
// decrease along the text.
NormalizedText NormalizeChinese(std::string_view text);

// Reads a non-negative integer the Chinese way: 0 -> 零, 10 -> 十, 110 -> 一百一十,
// 1001 -> 一千零一, 120000 -> 十二万, 100000000 -> 一亿. Valid below 10^16.
std::string ChineseInteger(uint64_t value);

// Reads each digit of an ASCII digit string: "2024" -> 二零二四.
std::string ChineseDigits(std::string_view digits);

}  // namespace lingcast
