// Phone numbers, read digit by digit in their groups with a comma (a short pause)
// between: "400-123-4567", "(555) 123-4567", "138 0013 8000", "+86 138 0013 8000";
// among dashed digits also ISO dates ("2024-05-01").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// Says digit groups for code point i: "one three eight, zero zero one three, ...".
void SayPhoneGroups(EnglishRewriter& r, const std::vector<std::string>& groups, size_t i);

// Digits joined by dashes at i (three or more groups, or two of seven digits or
// more): 400-123-4567 and 010-12345678; 2024-05-01 is a date.
size_t RewriteDashedDigits(EnglishRewriter& r, size_t i);
// 138 0013 8000: a Chinese mobile number written in groups.
size_t RewriteSpacedMobile(EnglishRewriter& r, size_t i);
// (555) 123-4567, at the parenthesis i.
size_t RewriteParenthesizedPhone(EnglishRewriter& r, size_t i);
// +86 138 0013 8000, +1-555-123-4567, at the plus i.
size_t RewriteInternationalPhone(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
