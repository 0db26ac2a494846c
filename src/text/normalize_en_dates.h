// Dates and years: "May 1, 2024", "Dec. 25", "5/1", "5/1/2024" (month/day, US order),
// the fractions and "24/7" written like them, and year ranges ("2023-2024").
// ISO dates ("2024-05-01") are found among dashed digits (normalize_en_phones.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// "May first" [", twenty twenty-four"] for month, day and an optional four-digit
// year (empty for none); nullopt unless month is 1-12 and day 1-31 (at most two
// digits each).
std::optional<std::string> DateWords(const std::string& month, const std::string& day, const std::string& year);

// A month name at i (`word`, ending at `end`; "Sept" and three-letter abbreviations,
// with or without a period) followed by a day, and maybe a year.
size_t RewriteMonthDate(EnglishRewriter& r, size_t i, size_t end, const std::string& word);
// Numbers joined by slashes at i: 5/1, 5/1/2024, 1/2 (a fraction), 24/7.
size_t RewriteSlashForms(EnglishRewriter& r, size_t i);
// 2023-2024 -> twenty twenty-three to twenty twenty-four.
size_t RewriteYearRange(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
