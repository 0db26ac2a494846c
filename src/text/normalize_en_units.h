// Units of measure after a number: "256GB", "1 kg", "4°C", "6.1\"", "10 pcs".
#pragma once

#include <cstddef>
#include <string_view>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

struct Unit {
  std::u32string_view written;
  std::string_view singular;
  std::string_view plural;
};

// The unit written at k, right after a number (case matters: "5G" is no grams).
// Multi-letter units may follow one space ("1 kg"); one-letter units and symbols
// must touch the number ("5 m" may be prose). Sets `end` past it; null when none.
const Unit* UnitAt(const EnglishRewriter& r, size_t k, size_t& end);

}  // namespace lingcast::normalize_en
