#include "compose/text_layout.h"

#include <hb.h>

#include <algorithm>
#include <memory>

#include "compose/line_breaker.h"

namespace lingcast::compose {
namespace {

constexpr char32_t kEllipsis = 0x2026;

enum class Script { kNeutral, kHan, kLatin };

Script ScriptOf(char32_t c) {
  if (IsCjkCharacter(c)) return Script::kHan;
  if (c < 0x80) {
    const bool letter = (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z');
    return letter ? Script::kLatin : Script::kNeutral;
  }
  if (c >= 0x2000 && c <= 0x206F) return Script::kNeutral;  // general punctuation
  return Script::kLatin;
}

// Fullwidth punctuation whose glyph sits on one side of its em box in
// Simplified Chinese fonts, leaving the other half blank.
bool IsSqueezableClosing(char32_t c) { return std::u32string_view(U"，。、；：」』）》】〕").find(c) != std::u32string_view::npos; }
bool IsSqueezableOpening(char32_t c) { return std::u32string_view(U"「『（《【〔").find(c) != std::u32string_view::npos; }

struct BufferDeleter {
  void operator()(hb_buffer_t* b) const { hb_buffer_destroy(b); }
};

}  // namespace

std::u32string DecodeUtf8(std::string_view utf8) {
  std::u32string out;
  out.reserve(utf8.size());
  size_t i = 0;
  while (i < utf8.size()) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    char32_t c = length == 1 ? lead : length == 2 ? lead & 0x1F : length == 3 ? lead & 0x0F : lead & 0x07;
    bool valid = length > 0 && i + length <= utf8.size();
    for (int k = 1; valid && k < length; ++k) {
      const auto cont = static_cast<unsigned char>(utf8[i + k]);
      valid = (cont & 0xC0) == 0x80;
      c = (c << 6) | (cont & 0x3F);
    }
    const char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
    if (valid && (c < min_for_length[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))) valid = false;
    if (!valid) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    // Line breaks and tabs inside a subtitle line are set as spaces.
    out.push_back(c == U'\n' || c == U'\r' || c == U'\t' ? U' ' : c);
    i += length;
  }
  return out;
}

std::vector<int> CodePointByteOffsets(std::string_view utf8) {
  // Mirrors DecodeUtf8's steps exactly: a malformed byte is one code point.
  std::vector<int> offsets;
  offsets.reserve(utf8.size() + 1);
  size_t i = 0;
  while (i < utf8.size()) {
    offsets.push_back(static_cast<int>(i));
    const auto lead = static_cast<unsigned char>(utf8[i]);
    int length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
    char32_t c = length == 1 ? lead : length == 2 ? lead & 0x1F : length == 3 ? lead & 0x0F : lead & 0x07;
    bool valid = length > 0 && i + length <= utf8.size();
    for (int k = 1; valid && k < length; ++k) {
      const auto cont = static_cast<unsigned char>(utf8[i + k]);
      valid = (cont & 0xC0) == 0x80;
      c = (c << 6) | (cont & 0x3F);
    }
    const char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
    if (valid && (c < min_for_length[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))) valid = false;
    i += valid ? length : 1;
  }
  offsets.push_back(static_cast<int>(utf8.size()));
  return offsets;
}

ShapedText Shape(const SizedFont& font, std::u32string text) {
  ShapedText shaped;
  shaped.text = std::move(text);
  const std::u32string& t = shaped.text;
  shaped.advances.assign(t.size(), 0.0);
  if (t.empty()) return shaped;

  // Script of each code point; neutral characters take the script before them
  // (or, at the start, the first strong script after them).
  std::vector<Script> scripts(t.size());
  Script current = Script::kNeutral;
  for (size_t i = 0; i < t.size(); ++i) {
    const Script s = ScriptOf(t[i]);
    if (s != Script::kNeutral) current = s;
    scripts[i] = s == Script::kNeutral ? current : s;
  }
  Script next_strong = Script::kLatin;
  for (size_t i = t.size(); i-- > 0;) {
    if (scripts[i] == Script::kNeutral) scripts[i] = next_strong;
    else next_strong = scripts[i];
  }

  // Two fullwidth punctuation marks side by side ("」，", "，「") would leave a
  // full em of blank between them: the half-width form ('halt') of the first
  // (when it closes) or the second (when it opens) squeezes it, as typesetters do.
  std::vector<hb_feature_t> squeeze;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const bool closes_first = IsSqueezableClosing(t[i]) && (IsSqueezableClosing(t[i + 1]) || IsSqueezableOpening(t[i + 1]));
    const bool opens_second = IsSqueezableOpening(t[i + 1]) && (IsSqueezableClosing(t[i]) || IsSqueezableOpening(t[i]));
    const size_t target = closes_first ? i : opens_second ? i + 1 : t.size();
    if (target < t.size()) {
      squeeze.push_back({HB_TAG('h', 'a', 'l', 't'), 1, static_cast<unsigned>(target),
                         static_cast<unsigned>(target + 1)});
    }
  }

  std::unique_ptr<hb_buffer_t, BufferDeleter> buffer(hb_buffer_create());
  const hb_language_t zh = hb_language_from_string("zh-Hans", -1);
  const hb_language_t en = hb_language_from_string("en", -1);
  double pen_x = 0;
  size_t run_start = 0;
  while (run_start < t.size()) {
    size_t run_end = run_start;
    while (run_end < t.size() && scripts[run_end] == scripts[run_start]) ++run_end;
    const bool han = scripts[run_start] == Script::kHan;
    hb_buffer_clear_contents(buffer.get());
    hb_buffer_add_utf32(buffer.get(), reinterpret_cast<const uint32_t*>(t.data()),
                        static_cast<int>(t.size()), static_cast<unsigned>(run_start),
                        static_cast<int>(run_end - run_start));
    hb_buffer_set_direction(buffer.get(), HB_DIRECTION_LTR);
    hb_buffer_set_script(buffer.get(), han ? HB_SCRIPT_HAN : HB_SCRIPT_LATIN);
    hb_buffer_set_language(buffer.get(), han ? zh : en);
    hb_buffer_set_cluster_level(buffer.get(), HB_BUFFER_CLUSTER_LEVEL_MONOTONE_CHARACTERS);
    hb_shape(font.hb_font(), buffer.get(), han ? squeeze.data() : nullptr,
             han ? static_cast<unsigned>(squeeze.size()) : 0);

    unsigned count = 0;
    const hb_glyph_info_t* infos = hb_buffer_get_glyph_infos(buffer.get(), &count);
    const hb_glyph_position_t* positions = hb_buffer_get_glyph_positions(buffer.get(), &count);
    for (unsigned g = 0; g < count; ++g) {
      const size_t cluster = std::min<size_t>(infos[g].cluster, t.size() - 1);
      shaped.glyphs.push_back({infos[g].codepoint, pen_x + positions[g].x_offset / 64.0,
                               -positions[g].y_offset / 64.0, cluster});
      const double advance = positions[g].x_advance / 64.0;
      shaped.advances[cluster] += advance;
      pen_x += advance;
    }
    run_start = run_end;
  }
  shaped.width = pen_x;
  return shaped;
}

double TextBlock::width() const {
  double w = 0;
  for (const LaidOutLine& line : lines) w = std::max(w, line.width);
  return w;
}

double MeasureText(const SizedFont& font, std::string_view utf8) {
  return Shape(font, DecodeUtf8(utf8)).width;
}

TextBlock LayoutText(const SizedFont& font, std::string_view utf8, double max_width, int max_lines) {
  TextBlock block;
  block.pixel_size = font.pixel_size();
  const ShapedText shaped = Shape(font, DecodeUtf8(utf8));
  std::vector<LineSpan> spans = BreakLines(shaped.text, shaped.advances, max_width);
  max_lines = std::max(1, max_lines);
  if (spans.size() > 1 && static_cast<int>(spans.size()) <= max_lines) {
    // Balance: the narrowest width that needs no more lines, so a two-line
    // subtitle reads as two similar lines rather than a full line and a short remnant.
    double narrow = 0, wide = max_width;
    for (int step = 0; step < 14 && wide - narrow > 0.5; ++step) {
      const double mid = (narrow + wide) / 2;
      (BreakLines(shaped.text, shaped.advances, mid).size() <= spans.size() ? wide : narrow) = mid;
    }
    if (auto balanced = BreakLines(shaped.text, shaped.advances, wide); balanced.size() <= spans.size()) {
      spans = std::move(balanced);
    }
  }

  ShapedText ellipsis;
  if (static_cast<int>(spans.size()) > max_lines) {
    ellipsis = Shape(font, std::u32string(1, kEllipsis));
    spans.resize(max_lines);
    spans.back() = FitPrefixForEllipsis(shaped.text, shaped.advances, spans.back().begin,
                                        max_width - ellipsis.width);
    block.ellipsized = true;
  }

  // Pen position at each code point, to place each line's glyphs from its start.
  std::vector<double> pen(shaped.text.size() + 1, 0.0);
  for (size_t i = 0; i < shaped.text.size(); ++i) pen[i + 1] = pen[i] + shaped.advances[i];

  for (const LineSpan& span : spans) {
    LaidOutLine line;
    line.width = span.width;
    line.begin = span.begin;
    // A full-width comma or stop ending a line is blank in its right half: leave
    // that half out of the width so the line centres on its ink.
    if (span.end > span.begin && IsSqueezableClosing(shaped.text[span.end - 1]) &&
        shaped.advances[span.end - 1] >= 0.9 * font.pixel_size()) {
      line.width -= shaped.advances[span.end - 1] / 2;
    }
    const double origin = pen[span.begin];
    for (const ShapedGlyph& g : shaped.glyphs) {
      if (g.char_index >= span.begin && g.char_index < span.end) {
        ShapedGlyph placed = g;
        placed.x -= origin;
        placed.char_index -= span.begin;
        line.glyphs.push_back(placed);
      }
    }
    block.lines.push_back(std::move(line));
  }
  if (block.ellipsized) {
    LaidOutLine& last = block.lines.back();
    for (ShapedGlyph g : ellipsis.glyphs) {
      g.x += last.width;
      g.char_index = spans.back().end - spans.back().begin;
      last.glyphs.push_back(g);
    }
    last.width += ellipsis.width;
  }
  return block;
}

}  // namespace lingcast::compose
