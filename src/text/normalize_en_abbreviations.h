// Abbreviations: dotted ones ("e.g." -> for example, "i.e." -> that is, "U.S." -> U S),
// titles before a name (Mr. Mrs. Ms. Dr. Prof. St.), "etc.", "vs.", "approx.", "No. 5".
// A period that also ends the sentence is given back.
#pragma once

#include <cstddef>
#include <string>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// Letters each followed by a period, at i.
size_t RewriteDottedAbbreviation(EnglishRewriter& r, size_t i);
// The word at i (`word`, ending at `end`; `lower` is it in lower case) when it is an
// abbreviation in its context.
size_t RewriteAbbreviation(EnglishRewriter& r, size_t i, size_t end, const std::string& word,
                           const std::string& lower);

}  // namespace lingcast::normalize_en
