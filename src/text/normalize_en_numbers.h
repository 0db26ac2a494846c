// A number and what is written against it. Tries, in order, the forms that start
// with digits (year ranges, dates, phones, clock times, versions "2.0.1"), then reads
// the number with what follows: an ordinal suffix ("21st"), percent ("50%"), 折
// discounts ("8.5折"), am/pm, units, currency codes, "10k", "2x", "1920x1080",
// letters ("5G", "1080p"), "+", ratings ("4.8/5"), ranges ("3-5 days"), years and
// product numbers in pairs ("in 2024", "RTX 4090"). A number written against Han
// characters ("第2件", "3件") is copied for the Chinese voice.
#pragma once

#include <cstddef>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// Digits at i that do not continue a word or a decimal.
size_t RewriteNumber(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
