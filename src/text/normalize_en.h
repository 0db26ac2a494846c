// English text normalization for speech: what a live-commerce host writes with digits,
// symbols and abbreviations becomes the words they say, with offsets back to the
// source as NormalizeChinese() keeps them (normalize_zh.h: NormalizedText).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "text/english_numbers.h"  // EnglishCardinal, EnglishYear ...
#include "text/normalize_zh.h"     // NormalizedText

namespace lingcast {

// Rewrites English text the way a host reads it aloud. ASCII digits only: run
// SanitizeText() first to turn full-width digits into ASCII.
//   Numbers:   "1,299" -> one thousand two hundred ninety-nine, "3.5" -> three point five,
//              "-5" -> minus five, "007" -> zero zero seven (a leading zero, or more than
//              15 digits, reads digit by digit), "100+" -> one hundred plus,
//              "4.8/5" -> four point eight out of five.
//   Ordinals:  "1st" -> first, "21st" -> twenty-first, "#1" -> number one, "No. 5" -> number five.
//   Money:     "$19.99" -> nineteen dollars and ninety-nine cents, "$1" -> one dollar,
//              "$0.50" -> fifty cents, "€5" euros, "£3.50" -> three pounds and fifty pence,
//              "¥99" / "99元" / "99 RMB" -> ninety-nine yuan ("¥19.9" -> nineteen point nine yuan),
//              "$10k" -> ten thousand dollars, "$1.5 million" -> one point five million dollars,
//              "$10-20" and "$10-$20" -> ten to twenty dollars.
//   Percent:   "50%" -> fifty percent; "5折" -> fifty percent off, "8.5折" -> fifteen percent off.
//   Dates:     "May 1, 2024" -> May first, twenty twenty-four; "May 1st" -> May first;
//              "2024-05-01" -> May first, twenty twenty-four; "5/1" -> May first,
//              "5/1/2024" -> May first, twenty twenty-four (month/day, US order; month
//              1-12 and day 1-31, else left alone). "1/2", "1/3", "2/3", "1/4", "3/4" are
//              fractions (one half, two thirds ...), not dates.
//   Times:     "10:30" -> ten thirty, "10:05" -> ten oh five, "10:00" -> ten o'clock,
//              "10:30 am" / "10:30am" / "10:30 a.m." -> ten thirty A M, "9pm" -> nine P M.
//   Phones:    three or more dash-joined digit groups ("400-123-4567"), "(555) 123-4567",
//              eleven digits starting with 1 (a Chinese mobile, grouped 3-4-4), "+86 138 0013
//              8000": digit by digit, groups separated by commas (a short pause).
//   Units:     after a number (multi-letter units also after one space), exact case:
//              GB TB MB KB mAh Wh kWh cm mm km m kg g mg ml mL L °C ℃ °F ° W kW V Hz kHz MHz
//              GHz nm ft oz lb lbs mph fps h hr hrs min sec ms pcs; singular after exactly 1
//              ("1 kg" -> one kilogram). 6.1" -> six point one inches. "2x" -> two times.
//   Models:    "iPhone 15 Pro" -> iPhone fifteen Pro, "RTX 4090" -> R T X forty ninety,
//              "RX 580" -> R X five eighty, "Galaxy S24" -> Galaxy S twenty-four, "PS5" -> P S five,
//              "4K" -> four K, "5G" -> five G, "1080p" -> ten eighty p, "USB-C" -> U S B C,
//              "GPT-4" -> G P T four. After a product word (one with a capital that does not
//              start the sentence, or an acronym) a 3-4 digit number reads in pairs.
//   Years:     a number 1100-2099 that is not a price, quantity with a unit or count of a
//              plural noun: "in 2024" -> in twenty twenty-four, "2008" -> two thousand eight,
//              "1905" -> nineteen oh five.
//   Ranges:    "3-5 days" -> three to five days, "10-20%" -> ten to twenty percent,
//              "2023-2024" -> twenty twenty-three to twenty twenty-four, "9am-5pm", "3~5".
//   Acronyms:  an all-capital word of 2-4 letters is spelled ("USB" -> U S B) unless it is a
//              word ("SALE", "FREE", "OFF", "NEW") or said as one ("NASA", "SIM", "RAM"); longer
//              all-capital words are words ("HURRY"). "OK" -> okay.
//   Abbreviations: e.g. -> for example, i.e. -> that is, etc. -> et cetera, vs. -> versus,
//              Mr. Mrs. Ms. Dr. -> Mister Missus Miz Doctor, approx. -> approximately,
//              "&" -> and, "w/" -> with, "24/7" -> twenty-four seven.
//   Web:       "www.shop.com" -> w w w dot shop dot com, "sales@shop.com" -> sales at shop dot com.
//   Chinese:   Han characters are copied untouched for the code-switcher, and so is a number
//              written against them ("第2件", "3件"), except 元, 块 and 折 after a number.
// Offsets: every output byte points at the source character it stands for (the number's
// first character for a spoken number, the unit for its word); they never decrease.
NormalizedText NormalizeEnglish(std::string_view text);

}  // namespace lingcast
