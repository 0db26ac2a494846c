// Shaping (HarfBuzz) and line layout of one paragraph of subtitle text.
//
// Text is split into runs by script: Han (ideographs, kana, CJK punctuation,
// tagged zh-Hans) and Latin (tagged en); spaces, digits and ASCII punctuation
// join the run around them. Each run is shaped with its own script and
// language, with the whole paragraph as context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compose/font.h"

namespace lingcast::compose {

// Decodes UTF-8; malformed bytes become U+FFFD so a subtitle never fails to draw.
std::u32string DecodeUtf8(std::string_view utf8);
// Where each code point DecodeUtf8 gives starts in `utf8` (bytes), and one more
// entry: utf8.size().
std::vector<int> CodePointByteOffsets(std::string_view utf8);

struct ShapedGlyph {
  uint32_t glyph_id = 0;
  double x = 0;            // pen position of the glyph origin, pixels from the paragraph start
  double y = 0;            // baseline offset, pixels, down is positive
  size_t char_index = 0;   // the code point (cluster) this glyph belongs to
};

struct ShapedText {
  std::u32string text;
  std::vector<double> advances;   // per code point: its cluster's advance on the first one
  std::vector<ShapedGlyph> glyphs;
  double width = 0;
};

ShapedText Shape(const SizedFont& font, std::u32string text);

struct LaidOutLine {
  // x relative to the line start; char_index relative to `begin` (an ellipsis
  // ending a cut line has the index of the first character cut).
  std::vector<ShapedGlyph> glyphs;
  double width = 0;
  size_t begin = 0;  // the paragraph's code point where the line starts
};

// A paragraph broken into lines at one font size.
struct TextBlock {
  std::vector<LaidOutLine> lines;
  int pixel_size = 0;
  bool ellipsized = false;
  double width() const;
};

// Breaks `utf8` into at most `max_lines` lines no wider than `max_width`; when it
// does not fit, the last line ends in an ellipsis ("…"). Lines that fit are
// balanced: set at the narrowest width that needs no extra line.
TextBlock LayoutText(const SizedFont& font, std::string_view utf8, double max_width, int max_lines);

// Width in pixels of `utf8` set on one line.
double MeasureText(const SizedFont& font, std::string_view utf8);

}  // namespace lingcast::compose
