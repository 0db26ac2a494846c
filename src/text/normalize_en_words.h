// A word and what it starts: web addresses, abbreviations, month dates (each in its
// own rule), model names with digits ("PS5", "S24", "RTX4090", "i7"), acronyms
// spelled ("USB" -> U S B) or shouted words lowered ("SALE" -> sale), "OK", "w/", and
// hyphens after them read as spaces ("USB-C", "GPT-4").
#pragma once

#include <cstddef>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// An ASCII letter at i that does not continue a word.
size_t RewriteWord(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
