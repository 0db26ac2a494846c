// Line breaking for mixed Chinese / English subtitles, on code points with
// measured advances (no font needed, so the rules are testable alone).
//
// Rules: Latin text breaks after spaces (and after a hyphen inside a word); CJK
// text may break between any two characters, except the basic kinsoku rules:
// never before closing punctuation (，。！？、」 ...) and never after opening
// punctuation (「（“ ...). A word wider than the line is broken between
// characters as a last resort. Spaces at a break hang (they are not counted).
// Where a line could end after clause punctuation (，。, ; ...) and still be at
// least 60% full, it ends there: subtitles read best broken at clauses.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace lingcast::compose {

// Ideographs, kana, hangul, fullwidth forms: characters that may break on either side.
bool IsCjkCharacter(char32_t c);
// Characters that must not start a line (closing punctuation, small kana, ...).
bool IsNoBreakBefore(char32_t c);
// Characters that must not end a line (opening brackets and quotes, currency).
bool IsNoBreakAfter(char32_t c);
bool IsBreakSpace(char32_t c);

// True when a line may end between text[i - 1] and text[i] (0 < i < size).
bool CanBreakBefore(std::u32string_view text, size_t i);

struct LineSpan {
  size_t begin = 0;   // first code point
  size_t end = 0;     // one past the last code point (trailing spaces excluded)
  double width = 0;   // sum of advances of [begin, end)
  bool operator==(const LineSpan&) const = default;
};

// Greedy breaking of `text` (advances[i] is the width of text[i]) into lines no
// wider than `max_width`, except a single character wider than the line.
std::vector<LineSpan> BreakLines(std::u32string_view text, std::span<const double> advances,
                                 double max_width);

// The longest prefix of text[begin, ...) that fits in `max_width`, shortened to a
// word boundary when one is near, with trailing spaces and opening punctuation
// trimmed: where to cut before appending an ellipsis.
LineSpan FitPrefixForEllipsis(std::u32string_view text, std::span<const double> advances,
                              size_t begin, double max_width);

}  // namespace lingcast::compose
