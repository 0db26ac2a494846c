// Rasterized glyphs (FreeType), with a stroked outline (FT_Stroker) for
// readability, kept in a bounded least-recently-used cache; and drawing of laid
// out text with them.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "compose/font.h"
#include "compose/geometry.h"
#include "compose/text_layout.h"
#include "media/video_frame.h"

struct FT_StrokerRec_;

namespace lingcast::compose {

// An 8-bit coverage image placed relative to the glyph origin on the baseline.
struct GlyphBitmap {
  int left = 0;    // pixels from the origin to the first column
  int top = 0;     // pixels from the baseline up to the first row
  int width = 0;
  int height = 0;
  std::vector<uint8_t> coverage;  // width * height, row-major
};

struct RasterGlyph {
  GlyphBitmap fill;
  GlyphBitmap outline;  // the glyph grown by the outline width (empty when none)
};

class GlyphCache {
 public:
  // At most `capacity` glyphs (each font size and outline width counts apart)
  // and `max_bytes` of bitmaps stay cached: 4K glyphs are ~100x larger than 360p ones.
  static absl::StatusOr<std::unique_ptr<GlyphCache>> Create(const FontLibrary& library,
                                                             size_t capacity,
                                                             size_t max_bytes = size_t{16} << 20);
  ~GlyphCache();
  GlyphCache(const GlyphCache&) = delete;
  GlyphCache& operator=(const GlyphCache&) = delete;

  // The glyph of `font` with an outline `outline_px` wide (0 for none).
  absl::StatusOr<std::shared_ptr<const RasterGlyph>> Get(const SizedFont& font, uint32_t glyph_id,
                                                         double outline_px);

  size_t size() const { return entries_.size(); }
  size_t capacity() const { return capacity_; }
  size_t bytes() const { return bytes_; }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Key {
    uint32_t font_id;
    uint32_t glyph_id;
    int32_t pixel_size;
    int32_t outline_64;  // outline width in 1/64 pixel
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  using Lru = std::list<std::pair<Key, std::shared_ptr<const RasterGlyph>>>;

  GlyphCache(FT_StrokerRec_* stroker, size_t capacity, size_t max_bytes)
      : stroker_(stroker), capacity_(capacity), max_bytes_(max_bytes) {}
  absl::StatusOr<RasterGlyph> Rasterize(const SizedFont& font, uint32_t glyph_id, int outline_64);

  FT_StrokerRec_* stroker_;  // owned: FT_Stroker_Done in the destructor
  size_t capacity_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  Lru lru_;  // most recently used first
  std::unordered_map<Key, Lru::iterator, KeyHash> entries_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

// How a text block is painted: shadow, then outline, then fill.
struct TextPaint {
  Rgba fill{255, 255, 255, 255};
  // Glyphs of the paragraph's first `highlight_chars` code points are filled
  // with `highlight` instead (spoken words, karaoke style).
  Rgba highlight{255, 255, 255, 255};
  size_t highlight_chars = 0;
  Rgba outline{0, 0, 0, 200};
  double outline_px = 0;
  Rgba shadow{0, 0, 0, 0};   // alpha 0: no shadow
  int shadow_dx = 0;
  int shadow_dy = 0;
};

// Draws `line` with its baseline starting at (x, baseline_y); only inside
// `clip` when given (pixels there get the bytes of the unclipped draw).
absl::Status DrawTextLine(VideoFrame& dst, const LaidOutLine& line, const SizedFont& font,
                          GlyphCache& cache, int x, int baseline_y, const TextPaint& paint,
                          const Rect* clip = nullptr);

// Where glyph `g` of `line` drawn at (x, baseline_y) puts its fill coverage.
absl::StatusOr<Rect> GlyphFillRect(const ShapedGlyph& g, const SizedFont& font, GlyphCache& cache, int x,
                                   int baseline_y, double outline_px);

}  // namespace lingcast::compose
