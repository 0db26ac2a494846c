// Times of day: "10:30", "10:05" (ten oh five), "10:00" (ten o'clock), "18:00"
// (eighteen hundred), "10:30 am" / "9pm" / "9 a.m." (A M, P M), and time ranges
// ("9:00-18:00", "9am-5pm").
#pragma once

#include <cstddef>
#include <string>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// am/pm at k, after a time: " am", "am", " a.m.", " AM". Sets `spoken` ("A M") and
// returns the index past it; k when there is none.
size_t MeridiemEnd(const EnglishRewriter& r, size_t k, std::string& spoken);
// A clock time at i (hours:minutes[:seconds], then maybe am/pm).
size_t RewriteClockTime(EnglishRewriter& r, size_t i);
// After a time ending at k: a range separator and another time say "to" and it;
// otherwise nothing is written and k is returned.
size_t ThenTimeRange(EnglishRewriter& r, size_t k);

}  // namespace lingcast::normalize_en
