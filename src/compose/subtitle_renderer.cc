#include "compose/subtitle_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compose/blend.h"
#include "compose/line_breaker.h"
#include "compose/text_layout.h"
#include "core/status.h"

namespace lingcast::compose {
namespace {

// In Noto Sans CJK the ideographic em box spans 0.88 em above the baseline to
// 0.12 em below; its middle (0.38 em above the baseline) is centred in each line.
constexpr double kEmCenterAboveBaseline = 0.38;
constexpr double kShrinkStep = 0.9;

// Blank: nothing but spaces (ASCII or ideographic), tabs and line breaks.
bool IsBlank(const std::string& s) {
  const std::u32string text = DecodeUtf8(s);  // line breaks and tabs become spaces
  return std::all_of(text.begin(), text.end(), [](char32_t c) { return IsBreakSpace(c); });
}

absl::StatusOr<FontLocation> Locate(const std::string& path, FontWeight weight) {
  if (!path.empty()) return ResolveFontFile(path);
  return FindNotoSansCjkSc(weight);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SubtitleRenderer>> SubtitleRenderer::Create(
    const FontOptions& fonts, const SubtitleStyle& style, int frame_width, int frame_height,
    size_t glyph_cache_capacity) {
  if (frame_width <= 0 || frame_height <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("subtitle frame size ", frame_width, "x", frame_height, " must be positive"));
  }
  LC_ASSIGN_OR_RETURN(FontLocation regular, Locate(fonts.regular_path, FontWeight::kRegular));
  const std::string bold_path = fonts.bold_path.empty() && !fonts.regular_path.empty()
                                    ? fonts.regular_path
                                    : fonts.bold_path;
  LC_ASSIGN_OR_RETURN(FontLocation bold, Locate(bold_path, FontWeight::kBold));
  LC_ASSIGN_OR_RETURN(auto library, FontLibrary::Create());
  LC_ASSIGN_OR_RETURN(auto cache, GlyphCache::Create(*library, glyph_cache_capacity));
  return std::unique_ptr<SubtitleRenderer>(new SubtitleRenderer(
      std::move(library), std::move(cache), std::move(regular), std::move(bold), style,
      frame_width, frame_height));
}

SubtitleRenderer::SubtitleRenderer(std::unique_ptr<FontLibrary> library,
                                   std::unique_ptr<GlyphCache> cache, FontLocation regular,
                                   FontLocation bold, SubtitleStyle style, int width, int height)
    : library_(std::move(library)), glyph_cache_(std::move(cache)), regular_(std::move(regular)),
      bold_(std::move(bold)), style_(style), frame_width_(width), frame_height_(height) {}

absl::StatusOr<const SizedFont*> SubtitleRenderer::Font(FontWeight weight, int pixel_size) {
  auto& slot = fonts_[{weight, pixel_size}];
  if (!slot) {
    LC_ASSIGN_OR_RETURN(slot, library_->Open(weight == FontWeight::kBold ? bold_ : regular_, pixel_size));
  }
  return slot.get();
}

absl::StatusOr<SubtitleLook> ParseSubtitleLook(const std::string& text) {
  if (text == "outline") return SubtitleLook::kOutline;
  if (text == "box") return SubtitleLook::kBox;
  if (text == "shadow") return SubtitleLook::kShadow;
  return absl::InvalidArgumentError(absl::StrCat("--subtitle-style ", text, ": expected outline, box or shadow"));
}

const char* SubtitleLookName(SubtitleLook look) {
  switch (look) {
    case SubtitleLook::kOutline: return "outline";
    case SubtitleLook::kBox: return "box";
    case SubtitleLook::kShadow: return "shadow";
  }
  return "?";
}

int SubtitleRenderer::PrimaryNominal() const {
  return std::max(style_.min_pixel_size, static_cast<int>(std::lround(frame_height_ * style_.primary_size)));
}

int SubtitleRenderer::SecondaryNominal() const {
  return std::max(style_.min_pixel_size, static_cast<int>(std::lround(frame_height_ * style_.secondary_size)));
}

int SubtitleRenderer::SubtitleZoneTop() const {
  const SubtitleStyle& s = style_;
  const int top_px = PrimaryNominal(), bottom_px = SecondaryNominal();
  const double height = s.primary_max_lines * std::round(top_px * s.line_spacing) +
                        s.secondary_max_lines * std::round(bottom_px * s.line_spacing) + std::round(0.22 * top_px) +
                        2 * std::round(top_px * s.box_padding_y);
  const double box = std::min(frame_height_ * 0.45, std::ceil(height));
  return std::max(0, frame_height_ - static_cast<int>(std::lround(frame_height_ * s.bottom_margin)) -
                         static_cast<int>(box));
}

absl::StatusOr<std::unique_ptr<SubtitleSprite>> SubtitleRenderer::Render(const TextSegment& primary,
                                                                       const TextSegment& secondary) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<SubtitleLayout> layout, Layout(primary, secondary));
  if (layout == nullptr) return nullptr;
  return Draw(*layout);
}

absl::StatusOr<std::unique_ptr<SubtitleLayout>> SubtitleRenderer::Layout(const TextSegment& primary,
                                                                         const TextSegment& secondary) {
  const bool has_primary = !IsBlank(primary.text), has_secondary = !IsBlank(secondary.text);
  if (!has_primary && !has_secondary) return nullptr;
  const SubtitleStyle& s = style_;
  const double h = frame_height_, w = frame_width_;
  const int primary_nominal = PrimaryNominal();
  const int secondary_nominal = SecondaryNominal();

  // Sprite geometry is tied to the nominal primary size so it does not jump
  // when one cue's text shrinks.
  const double pad_x = std::round(primary_nominal * s.box_padding_x);
  const double pad_y = std::round(primary_nominal * s.box_padding_y);
  const double max_box_width = std::min(w * s.max_width, w * (1 - 2 * s.side_margin));
  const double max_text_width = std::max(1.0, max_box_width - 2 * pad_x);
  const double max_box_height = h * 0.45;

  auto layout = std::make_unique<SubtitleLayout>();
  TextBlock& top = layout->top;
  TextBlock& bottom = layout->bottom;
  double text_height = 0;
  double gap = 0;
  for (double scale = 1.0;; scale *= kShrinkStep) {
    const bool last_try = scale * kShrinkStep < s.min_scale - 1e-9;
    const int top_px = std::max(s.min_pixel_size, static_cast<int>(std::lround(primary_nominal * scale)));
    const int bottom_px = std::max(s.min_pixel_size, static_cast<int>(std::lround(secondary_nominal * scale)));
    top = {};
    bottom = {};
    if (has_primary) {
      LC_ASSIGN_OR_RETURN(layout->top_font, Font(s.primary_weight, top_px));
      top = LayoutText(*layout->top_font, primary.text, max_text_width, s.primary_max_lines);
    }
    if (has_secondary) {
      LC_ASSIGN_OR_RETURN(layout->bottom_font, Font(s.secondary_weight, bottom_px));
      bottom = LayoutText(*layout->bottom_font, secondary.text, max_text_width, s.secondary_max_lines);
    }
    gap = has_primary && has_secondary ? std::round(0.22 * top_px) : 0;
    text_height = top.lines.size() * std::round(top_px * s.line_spacing) +
                  bottom.lines.size() * std::round(bottom_px * s.line_spacing) + gap;
    const bool fits = !top.ellipsized && !bottom.ellipsized && text_height + 2 * pad_y <= max_box_height;
    if (fits || last_try) break;
  }
  if (has_primary) layout->top_byte_offsets = CodePointByteOffsets(primary.text);

  const double text_width = std::max(top.width(), bottom.width());
  const int box_width = static_cast<int>(std::min(max_box_width, std::ceil(text_width + 2 * pad_x)));
  const int box_height = static_cast<int>(std::min(max_box_height, std::ceil(text_height + 2 * pad_y)));
  layout->area = {(frame_width_ - box_width) / 2,
                  frame_height_ - static_cast<int>(std::lround(h * s.bottom_margin)) - box_height, box_width,
                  box_height};
  layout->area.y = std::max(0, layout->area.y);
  layout->pad_y = pad_y;
  layout->gap = gap;
  return layout;
}

absl::StatusOr<std::unique_ptr<SubtitleSprite>> SubtitleRenderer::Draw(const SubtitleLayout& layout,
                                                                     int highlight_end) {
  auto sprite = std::make_unique<SubtitleSprite>();
  sprite->area = layout.area;
  sprite->image.Allocate(layout.area.width, layout.area.height);
  sprite->primary_pixel_size = layout.top.pixel_size;
  sprite->secondary_pixel_size = layout.bottom.pixel_size;
  sprite->primary_lines = static_cast<int>(layout.top.lines.size());
  sprite->secondary_lines = static_cast<int>(layout.bottom.lines.size());
  sprite->ellipsized = layout.top.ellipsized || layout.bottom.ellipsized;
  LC_RETURN_IF_ERROR(Paint(layout, highlight_end, sprite->image, nullptr));
  return sprite;
}

size_t SubtitleRenderer::CharsBefore(const SubtitleLayout& layout, int byte_offset) {
  if (byte_offset <= 0) return 0;
  const std::vector<int>& offsets = layout.top_byte_offsets;
  return static_cast<size_t>(std::lower_bound(offsets.begin(), offsets.end(), byte_offset) - offsets.begin());
}

TextPaint SubtitleRenderer::PaintFor(double em, Rgba color) const {
  const SubtitleStyle& s = style_;
  TextPaint paint;
  paint.fill = color;
  switch (s.look) {
    case SubtitleLook::kOutline:
      paint.outline = s.outline_color;
      paint.outline_px = std::max(1.0, em * s.outline_width);
      paint.shadow.a = 0;
      break;
    case SubtitleLook::kShadow:
      paint.outline = s.outline_color;
      paint.outline_px = std::max(1.0, em * s.hairline_width);
      paint.shadow = s.shadow_color;
      paint.shadow_dx = paint.shadow_dy = std::max(1, static_cast<int>(std::lround(em * s.shadow_offset)));
      break;
    case SubtitleLook::kBox:
      paint.outline_px = 0;
      paint.shadow.a = 0;
      break;
  }
  return paint;
}

std::vector<SubtitleRenderer::PlacedLine> SubtitleRenderer::PlaceLines(const SubtitleLayout& layout) const {
  std::vector<PlacedLine> placed;
  double line_top = layout.pad_y;
  auto place_block = [&](const TextBlock& block, const SizedFont* font, bool spoken) {
    const double em = block.pixel_size;
    const double pitch = std::round(em * style_.line_spacing);
    for (const LaidOutLine& line : block.lines) {
      PlacedLine p{&line, font, spoken, em, pitch, line_top,
                   static_cast<int>(std::lround((layout.area.width - line.width) / 2)),
                   static_cast<int>(std::lround(line_top + pitch / 2 + kEmCenterAboveBaseline * em))};
      placed.push_back(p);
      line_top += pitch;
    }
  };
  place_block(layout.top, layout.top_font, /*spoken=*/true);
  line_top += layout.gap;
  place_block(layout.bottom, layout.bottom_font, /*spoken=*/false);
  return placed;
}

absl::Status SubtitleRenderer::Paint(const SubtitleLayout& layout, int highlight_end, VideoFrame& image,
                                     const Rect* clip) {
  const SubtitleStyle& s = style_;
  const size_t highlight_chars = CharsBefore(layout, highlight_end);
  // Line by line: its box, then its text (shadow, outline, fill).
  for (const PlacedLine& p : PlaceLines(layout)) {
    TextPaint paint = PaintFor(p.em, p.spoken ? s.primary_color : s.secondary_color);
    if (p.spoken) {
      paint.highlight = s.highlight_color;
      paint.highlight_chars = highlight_chars;
    }
    if (s.look == SubtitleLook::kBox) {
      // One box per line, hugging its text; a sliver of space between the
      // boxes of stacked lines keeps them from doubling their opacity.
      const double pad = std::round(p.em * s.box_line_padding);
      const double inset = std::max(1.0, std::round(p.em * 0.04));
      const double left = std::max(0.0, p.x - pad);
      const double right = std::min<double>(layout.area.width, p.x + p.line->width + pad);
      FillRoundedRect(image, static_cast<float>(left), static_cast<float>(p.top + inset),
                      static_cast<float>(right - left), static_cast<float>(p.pitch - 2 * inset),
                      static_cast<float>(p.em * s.box_corner_radius), s.box_color, clip);
    }
    LC_RETURN_IF_ERROR(DrawTextLine(image, *p.line, *p.font, *glyph_cache_, p.x, p.baseline, paint, clip));
  }
  return absl::OkStatus();
}

absl::StatusOr<Rect> SubtitleRenderer::Rehighlight(const SubtitleLayout& layout, int from_end, int to_end,
                                                   SubtitleSprite& sprite) {
  const size_t a = CharsBefore(layout, from_end), b = CharsBefore(layout, to_end);
  const size_t lo = std::min(a, b), hi = std::max(a, b);
  const Rect bounds{0, 0, sprite.image.width, sprite.image.height};
  Rect changed;
  for (const PlacedLine& p : PlaceLines(layout)) {
    if (!p.spoken) continue;
    // Only the fill of the glyphs whose colour flips changes: redraw, from
    // nothing, everything inside their rectangle (neighbours' strokes and the
    // box included), which gives the bytes of a whole new draw.
    Rect region;
    const double outline_px = PaintFor(p.em, style_.primary_color).outline_px;
    for (const ShapedGlyph& g : p.line->glyphs) {
      const size_t index = p.line->begin + g.char_index;
      if (index < lo || index >= hi) continue;
      LC_ASSIGN_OR_RETURN(Rect r, GlyphFillRect(g, *p.font, *glyph_cache_, p.x, p.baseline, outline_px));
      region = Union(region, r.Intersect(bounds));
    }
    if (region.empty()) continue;
    for (int y = region.y; y < region.bottom(); ++y) {
      std::memset(sprite.image.Row(y) + static_cast<size_t>(region.x) * 4, 0, static_cast<size_t>(region.width) * 4);
    }
    LC_RETURN_IF_ERROR(Paint(layout, to_end, sprite.image, &region));
    changed = Union(changed, region);
  }
  return changed;
}

}  // namespace lingcast::compose
