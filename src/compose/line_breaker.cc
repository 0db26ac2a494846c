#include "compose/line_breaker.h"

#include <algorithm>

namespace lingcast::compose {
namespace {

constexpr std::u32string_view kNoBreakBefore =
    U"，。！？、；：」』）》〉】〕〗〙〛”’…‥・ー々〜～ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    U"！），．：；？］｝｠｣､％"
    U",.!?;:)]}%";
constexpr std::u32string_view kNoBreakAfter = U"「『（《〈【〔〖〘〚“‘（［｛｟｢([{$¥￥£€＄";

// Ending a line at a clause is preferred when the line stays at least this full.
constexpr double kClauseBreakMinFill = 0.6;

bool IsClauseEnd(char32_t c) { return std::u32string_view(U"，。！？；：、」』）,.;:!?").find(c) != std::u32string_view::npos; }

// A break right after clause punctuation (and the spaces that follow it).
bool IsClauseBreak(std::u32string_view text, size_t i) {
  size_t k = i;
  while (k > 0 && IsBreakSpace(text[k - 1])) --k;
  return k > 0 && IsClauseEnd(text[k - 1]);
}

double SumAdvances(std::span<const double> advances, size_t begin, size_t end) {
  double width = 0;
  for (size_t i = begin; i < end; ++i) width += advances[i];
  return width;
}

size_t TrimTrailingSpaces(std::u32string_view text, size_t begin, size_t end) {
  while (end > begin && IsBreakSpace(text[end - 1])) --end;
  return end;
}

}  // namespace

bool IsCjkCharacter(char32_t c) {
  return (c >= 0x2E80 && c <= 0x2FDF) ||   // CJK radicals, Kangxi radicals
         (c >= 0x3000 && c <= 0x303F) ||   // CJK symbols and punctuation
         (c >= 0x3040 && c <= 0x31FF) ||   // kana, bopomofo, kanbun
         (c >= 0x3400 && c <= 0x4DBF) ||   // extension A
         (c >= 0x4E00 && c <= 0x9FFF) ||   // unified ideographs
         (c >= 0xAC00 && c <= 0xD7AF) ||   // hangul syllables
         (c >= 0xF900 && c <= 0xFAFF) ||   // compatibility ideographs
         (c >= 0xFE30 && c <= 0xFE4F) ||   // compatibility forms
         (c >= 0xFF00 && c <= 0xFF60) ||   // fullwidth forms
         (c >= 0xFFE0 && c <= 0xFFE6) ||
         (c >= 0x20000 && c <= 0x3FFFF);   // extensions B and later
}

bool IsNoBreakBefore(char32_t c) { return kNoBreakBefore.find(c) != std::u32string_view::npos; }
bool IsNoBreakAfter(char32_t c) { return kNoBreakAfter.find(c) != std::u32string_view::npos; }
bool IsBreakSpace(char32_t c) { return c == U' ' || c == U'\t' || c == 0x3000; }

bool CanBreakBefore(std::u32string_view text, size_t i) {
  if (i == 0 || i >= text.size()) return false;
  const char32_t prev = text[i - 1], next = text[i];
  if (IsBreakSpace(next)) return false;           // spaces hang at the end of a line
  if (IsNoBreakBefore(next) || IsNoBreakAfter(prev)) return false;
  if (prev == 0x2014 && next == 0x2014) return false;  // keep "——" together
  if (IsBreakSpace(prev)) return true;
  if (IsCjkCharacter(prev) || IsCjkCharacter(next)) return true;
  // A hyphen inside a Latin word ("real-time") is a break opportunity.
  return prev == U'-' && i >= 2 && !IsBreakSpace(text[i - 2]) && text[i - 2] != U'-';
}

std::vector<LineSpan> BreakLines(std::u32string_view text, std::span<const double> advances,
                                 double max_width) {
  std::vector<LineSpan> lines;
  const size_t n = text.size();
  size_t start = 0;
  while (start < n && IsBreakSpace(text[start])) ++start;
  while (start < n) {
    double x = 0;
    size_t last_break = start;  // start means "none yet"
    size_t last_clause_break = start;
    double clause_width = 0;
    size_t i = start;
    for (; i < n; ++i) {
      if (i > start && CanBreakBefore(text, i)) {
        last_break = i;
        if (IsClauseBreak(text, i)) last_clause_break = i, clause_width = x;
      }
      // Overflow is only decided at visible characters: spaces may hang.
      if (i > start && !IsBreakSpace(text[i]) && x + advances[i] > max_width) break;
      x += advances[i];
    }
    size_t end = i;
    if (i < n && last_break > start) end = last_break;
    // A line that ends at a clause reads better, if it is not much shorter.
    if (i < n && last_clause_break > start && clause_width >= kClauseBreakMinFill * max_width) {
      end = last_clause_break;
    }
    const size_t visible_end = TrimTrailingSpaces(text, start, end);
    lines.push_back({start, visible_end, SumAdvances(advances, start, visible_end)});
    start = end;
    while (start < n && IsBreakSpace(text[start])) ++start;
  }
  return lines;
}

LineSpan FitPrefixForEllipsis(std::u32string_view text, std::span<const double> advances,
                              size_t begin, double max_width) {
  const size_t n = text.size();
  size_t end = begin;
  double x = 0;
  while (end < n && x + advances[end] <= max_width) x += advances[end++];
  // Inside a Latin word: back up to the last break if that keeps most of the line.
  if (end < n && end > begin && !IsBreakSpace(text[end]) && !CanBreakBefore(text, end)) {
    for (size_t b = end - 1; b > begin; --b) {
      if (CanBreakBefore(text, b) || IsBreakSpace(text[b])) {
        if (b - begin >= (end - begin) / 2) end = b;
        break;
      }
    }
  }
  end = TrimTrailingSpaces(text, begin, end);
  while (end > begin && IsNoBreakAfter(text[end - 1])) end = TrimTrailingSpaces(text, begin, end - 1);
  return {begin, end, SumAdvances(advances, begin, end)};
}

}  // namespace lingcast::compose
