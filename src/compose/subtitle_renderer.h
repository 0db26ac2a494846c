// Lays out and rasterizes one bilingual subtitle (the spoken line above, its
// translation below, smaller) into a premultiplied RGBA sprite positioned in the
// bottom safe area of the frame. The compositor caches the sprite per cue, so
// shaping and rasterizing happen once per cue, not once per frame.
//
// Fitting: each line may wrap to `max_lines`. When a text needs more lines, its
// font shrinks in steps down to `min_scale` of the nominal size; if it still does
// not fit, the last line is cut and ends in an ellipsis ("…"). Shrinking first
// keeps the whole sentence readable; the ellipsis bounds the box for
// pathological input.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compose/font.h"
#include "compose/geometry.h"
#include "compose/glyph_cache.h"
#include "media/text_segment.h"
#include "media/video_frame.h"

namespace lingcast::compose {

// How the text stands out from what is behind it.
//   outline  a dark stroke around every glyph, its width a fraction of the font
//            size (the default: see README.md, "Subtitle styles")
//   box      a rounded translucent box behind each line
//   shadow   a soft-edged drop shadow down and right, with a hairline stroke
enum class SubtitleLook { kOutline, kBox, kShadow };

// "outline", "box", "shadow"; InvalidArgument naming the value otherwise.
absl::StatusOr<SubtitleLook> ParseSubtitleLook(const std::string& text);
const char* SubtitleLookName(SubtitleLook look);

// Sizes are fractions of the frame height (or width where named), so the layout
// scales with the resolution. Safe margins: the text stays inside the title-safe
// area (5 % of the width each side, 5.5 % of the height below).
struct SubtitleStyle {
  SubtitleLook look = SubtitleLook::kOutline;
  double primary_size = 0.050;      // em size of the spoken line
  double secondary_size = 0.037;    // em size of the translation
  int min_pixel_size = 14;          // never smaller than this, even at 640x360
  FontWeight primary_weight = FontWeight::kBold;
  FontWeight secondary_weight = FontWeight::kRegular;
  int primary_max_lines = 2;
  int secondary_max_lines = 2;
  double min_scale = 0.8;           // how far a long text may shrink before the ellipsis
  double line_spacing = 1.32;       // line pitch in em
  Rgba primary_color{255, 255, 255, 255};
  Rgba secondary_color{255, 224, 150, 255};
  Rgba highlight_color{92, 212, 255, 255};  // words already spoken (word highlight)
  // outline look
  Rgba outline_color{8, 10, 20, 230};
  double outline_width = 0.085;     // in em
  // shadow look (with a hairline stroke of outline_color)
  Rgba shadow_color{0, 0, 0, 170};
  double shadow_offset = 0.06;      // in em, down and right
  double hairline_width = 0.03;     // in em
  // box look
  Rgba box_color{10, 14, 28, 175};
  double box_corner_radius = 0.3;   // in em of the line
  double box_line_padding = 0.35;   // in em of the line, left and right of its text
  double box_padding_x = 0.6;       // in primary em: the sprite's margin around the text
  double box_padding_y = 0.22;      // in primary em
  double max_width = 0.84;          // of the frame width, box included
  double side_margin = 0.05;        // of the frame width, each side (title-safe)
  double bottom_margin = 0.055;     // of the frame height, below the box (title-safe)
};

// Font files; empty means Noto Sans CJK SC found on the system.
struct FontOptions {
  std::string regular_path;
  std::string bold_path;  // empty with a regular_path set: the regular face is used
};

// A cue's two lines shaped and broken into lines at their final sizes, with
// the sprite's geometry: everything but the pixels. Drawing it again (with
// another highlight) costs glyph blits only, no shaping.
struct SubtitleLayout {
  TextBlock top;                    // the spoken line
  TextBlock bottom;                 // the translation
  const SizedFont* top_font = nullptr;
  const SizedFont* bottom_font = nullptr;
  std::vector<int> top_byte_offsets;  // byte offset in the spoken text of each code point
  Rect area;                        // where the sprite goes in the frame
  double pad_y = 0;
  double gap = 0;                   // between the two blocks
};

struct SubtitleSprite {
  VideoFrame image;  // premultiplied RGBA, exactly the box
  Rect area;         // where it goes in the frame (always inside it)
  int primary_pixel_size = 0;
  int secondary_pixel_size = 0;
  int primary_lines = 0;
  int secondary_lines = 0;
  bool ellipsized = false;
};

class SubtitleRenderer {
 public:
  static absl::StatusOr<std::unique_ptr<SubtitleRenderer>> Create(const FontOptions& fonts,
                                                                  const SubtitleStyle& style,
                                                                  int frame_width, int frame_height,
                                                                  size_t glyph_cache_capacity = 2048);

  // The sprite for the two lines, or null when both are empty.
  absl::StatusOr<std::unique_ptr<SubtitleSprite>> Render(const TextSegment& primary,
                                                       const TextSegment& secondary);

  // The two steps of Render: shaping and line breaking (null when both lines
  // are empty), then drawing. `highlight_end` > 0 draws the spoken line's
  // characters that start before that byte offset in the highlight colour.
  absl::StatusOr<std::unique_ptr<SubtitleLayout>> Layout(const TextSegment& primary,
                                                         const TextSegment& secondary);
  absl::StatusOr<std::unique_ptr<SubtitleSprite>> Draw(const SubtitleLayout& layout, int highlight_end = 0);

  // Re-colours, in place, a sprite drawn from `layout` with highlight `from_end`
  // into the one Draw(layout, to_end) gives, redrawing only the rectangles of
  // the glyphs whose colour changes. Returns the rectangle changed (sprite
  // coordinates; empty when nothing changed).
  absl::StatusOr<Rect> Rehighlight(const SubtitleLayout& layout, int from_end, int to_end, SubtitleSprite& sprite);

  // The top edge of the tallest box a cue can have (both lines at their most
  // lines, nominal size): overlays placed above it never meet a subtitle.
  int SubtitleZoneTop() const;

  // Exposed for tests and tools: the font used for `weight` at `pixel_size`.
  absl::StatusOr<const SizedFont*> Font(FontWeight weight, int pixel_size);
  const GlyphCache& glyph_cache() const { return *glyph_cache_; }
  GlyphCache& mutable_glyph_cache() { return *glyph_cache_; }
  int frame_width() const { return frame_width_; }
  int frame_height() const { return frame_height_; }
  const SubtitleStyle& style() const { return style_; }

 private:
  SubtitleRenderer(std::unique_ptr<FontLibrary> library, std::unique_ptr<GlyphCache> cache,
                   FontLocation regular, FontLocation bold, SubtitleStyle style, int width,
                   int height);

  // A line of a layout where it is drawn in the sprite.
  struct PlacedLine {
    const LaidOutLine* line;
    const SizedFont* font;
    bool spoken;     // the primary (spoken) block
    double em;
    double pitch;
    double top;      // of the line's pitch
    int x;           // pen start
    int baseline;
  };
  std::vector<PlacedLine> PlaceLines(const SubtitleLayout& layout) const;
  TextPaint PaintFor(double em, Rgba color) const;
  static size_t CharsBefore(const SubtitleLayout& layout, int byte_offset);
  // Boxes and text of `layout` into the sprite-sized `image`, inside `clip` when given.
  absl::Status Paint(const SubtitleLayout& layout, int highlight_end, VideoFrame& image, const Rect* clip);

  int PrimaryNominal() const;    // nominal em sizes in pixels for this frame
  int SecondaryNominal() const;

  std::unique_ptr<FontLibrary> library_;
  std::unique_ptr<GlyphCache> glyph_cache_;
  FontLocation regular_;
  FontLocation bold_;
  SubtitleStyle style_;
  int frame_width_;
  int frame_height_;
  std::map<std::pair<FontWeight, int>, std::unique_ptr<SizedFont>> fonts_;
};

}  // namespace lingcast::compose
