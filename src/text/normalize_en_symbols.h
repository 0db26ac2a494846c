// Symbols said as words: "#1" (number), "-5" (minus), "$49.99/month" (per), "C++" and
// "Disney+" (plus; "100+" is the number rule's), "R&D" (and); "(555) 123-4567" and
// "+86 ..." go to the phone rules.
#pragma once

#include <cstddef>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// The symbol at i, in its context.
size_t RewriteSymbol(EnglishRewriter& r, size_t i);

}  // namespace lingcast::normalize_en
