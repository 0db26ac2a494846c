#include "compose/glyph_cache.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compose/blend.h"
#include "core/status.h"

namespace lingcast::compose {
namespace {

struct GlyphDeleter {
  void operator()(FT_Glyph g) const { FT_Done_Glyph(g); }
};
using GlyphPtr = std::unique_ptr<FT_GlyphRec_, GlyphDeleter>;

// Renders `glyph` (consumed) into a coverage bitmap.
absl::StatusOr<GlyphBitmap> ToBitmap(GlyphPtr glyph, uint32_t glyph_id) {
  FT_Glyph raw = glyph.release();
  if (FT_Error error = FT_Glyph_To_Bitmap(&raw, FT_RENDER_MODE_NORMAL, nullptr, 1); error != 0) {
    FT_Done_Glyph(raw);
    return absl::InternalError(
        absl::StrCat("FreeType cannot render glyph ", glyph_id, " (error ", error, ")"));
  }
  GlyphPtr rendered(raw);
  const auto* bitmap_glyph = reinterpret_cast<FT_BitmapGlyph>(rendered.get());
  const FT_Bitmap& bitmap = bitmap_glyph->bitmap;
  GlyphBitmap out;
  out.left = bitmap_glyph->left;
  out.top = bitmap_glyph->top;
  out.width = static_cast<int>(bitmap.width);
  out.height = static_cast<int>(bitmap.rows);
  out.coverage.resize(static_cast<size_t>(out.width) * out.height);
  for (int row = 0; row < out.height; ++row) {
    const unsigned char* src = bitmap.pitch >= 0
                                   ? bitmap.buffer + static_cast<ptrdiff_t>(row) * bitmap.pitch
                                   : bitmap.buffer + static_cast<ptrdiff_t>(out.height - 1 - row) * -bitmap.pitch;
    std::memcpy(out.coverage.data() + static_cast<size_t>(row) * out.width, src, out.width);
  }
  return out;
}

size_t BytesOf(const RasterGlyph& glyph) {
  return glyph.fill.coverage.size() + glyph.outline.coverage.size() + sizeof(RasterGlyph);
}

}  // namespace

size_t GlyphCache::KeyHash::operator()(const Key& k) const {
  uint64_t h = k.font_id;
  h = h * 0x9E3779B97F4A7C15ULL + k.glyph_id;
  h = h * 0x9E3779B97F4A7C15ULL + static_cast<uint32_t>(k.pixel_size);
  h = h * 0x9E3779B97F4A7C15ULL + static_cast<uint32_t>(k.outline_64);
  return static_cast<size_t>(h ^ (h >> 29));
}

absl::StatusOr<std::unique_ptr<GlyphCache>> GlyphCache::Create(const FontLibrary& library,
                                                               size_t capacity, size_t max_bytes) {
  FT_Stroker stroker = nullptr;
  if (FT_Error error = FT_Stroker_New(library.handle(), &stroker); error != 0) {
    return absl::InternalError(absl::StrCat("FreeType stroker failed (error ", error, ")"));
  }
  return std::unique_ptr<GlyphCache>(new GlyphCache(stroker, std::max<size_t>(1, capacity), max_bytes));
}

GlyphCache::~GlyphCache() { FT_Stroker_Done(stroker_); }

absl::StatusOr<std::shared_ptr<const RasterGlyph>> GlyphCache::Get(const SizedFont& font,
                                                                   uint32_t glyph_id,
                                                                   double outline_px) {
  const Key key{font.id(), glyph_id, font.pixel_size(),
                static_cast<int32_t>(std::lround(std::max(0.0, outline_px) * 64))};
  if (auto it = entries_.find(key); it != entries_.end()) {
    ++hits_;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }
  ++misses_;
  LC_ASSIGN_OR_RETURN(RasterGlyph raster, Rasterize(font, glyph_id, key.outline_64));
  auto value = std::make_shared<const RasterGlyph>(std::move(raster));
  lru_.emplace_front(key, value);
  entries_[key] = lru_.begin();
  bytes_ += BytesOf(*value);
  while (entries_.size() > capacity_ || (bytes_ > max_bytes_ && entries_.size() > 1)) {
    bytes_ -= BytesOf(*lru_.back().second);
    entries_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return value;
}

absl::StatusOr<RasterGlyph> GlyphCache::Rasterize(const SizedFont& font, uint32_t glyph_id,
                                                  int outline_64) {
  FT_Face face = font.face();
  if (FT_Error error = FT_Load_Glyph(face, glyph_id, FT_LOAD_NO_BITMAP | FT_LOAD_TARGET_LIGHT);
      error != 0) {
    return absl::InternalError(absl::StrCat("FreeType cannot load glyph ", glyph_id, " of '",
                                            font.location().path, "' (error ", error, ")"));
  }
  FT_Glyph raw = nullptr;
  if (FT_Error error = FT_Get_Glyph(face->glyph, &raw); error != 0) {
    return absl::InternalError(absl::StrCat("FreeType cannot copy glyph ", glyph_id, " (error ", error, ")"));
  }
  GlyphPtr glyph(raw);
  RasterGlyph out;
  if (outline_64 > 0 && glyph->format == FT_GLYPH_FORMAT_OUTLINE) {
    FT_Glyph copy = nullptr;
    if (FT_Glyph_Copy(glyph.get(), &copy) != 0) {
      return absl::InternalError(absl::StrCat("FreeType cannot copy glyph ", glyph_id));
    }
    FT_Stroker_Set(stroker_, outline_64, FT_STROKER_LINECAP_ROUND, FT_STROKER_LINEJOIN_ROUND, 0);
    // The outside border of the stroke, filled: the glyph grown by the outline width.
    if (FT_Error error = FT_Glyph_StrokeBorder(&copy, stroker_, /*inside=*/0, /*destroy=*/1);
        error != 0) {
      FT_Done_Glyph(copy);
      return absl::InternalError(absl::StrCat("FreeType cannot stroke glyph ", glyph_id, " (error ", error, ")"));
    }
    LC_ASSIGN_OR_RETURN(out.outline, ToBitmap(GlyphPtr(copy), glyph_id));
  }
  LC_ASSIGN_OR_RETURN(out.fill, ToBitmap(std::move(glyph), glyph_id));
  return out;
}

absl::StatusOr<Rect> GlyphFillRect(const ShapedGlyph& g, const SizedFont& font, GlyphCache& cache, int x,
                                   int baseline_y, double outline_px) {
  LC_ASSIGN_OR_RETURN(auto raster, cache.Get(font, g.glyph_id, outline_px));
  const GlyphBitmap& bitmap = raster->fill;
  return Rect{x + static_cast<int>(std::lround(g.x)) + bitmap.left,
              baseline_y + static_cast<int>(std::lround(g.y)) - bitmap.top, bitmap.width, bitmap.height};
}

absl::Status DrawTextLine(VideoFrame& dst, const LaidOutLine& line, const SizedFont& font,
                          GlyphCache& cache, int x, int baseline_y, const TextPaint& paint, const Rect* clip) {
  auto draw_pass = [&](auto bitmap_of, Rgba color, int dx, int dy, bool fill) -> absl::Status {
    if (color.a == 0 && !(fill && paint.highlight_chars > 0)) return absl::OkStatus();
    for (const ShapedGlyph& g : line.glyphs) {
      const Rgba glyph_color =
          fill && line.begin + g.char_index < paint.highlight_chars ? paint.highlight : color;
      if (glyph_color.a == 0) continue;
      LC_ASSIGN_OR_RETURN(auto raster, cache.Get(font, g.glyph_id, paint.outline_px));
      const GlyphBitmap& bitmap = bitmap_of(*raster);
      if (bitmap.width == 0) continue;
      const int gx = x + static_cast<int>(std::lround(g.x)) + bitmap.left + dx;
      const int gy = baseline_y + static_cast<int>(std::lround(g.y)) - bitmap.top + dy;
      if (clip != nullptr && Rect{gx, gy, bitmap.width, bitmap.height}.Intersect(*clip).empty()) continue;
      BlendMask(dst, gx, gy, bitmap.coverage.data(), bitmap.width, bitmap.height, bitmap.width, glyph_color, clip);
    }
    return absl::OkStatus();
  };
  const bool outlined = paint.outline_px > 0;
  auto outer = [outlined](const RasterGlyph& r) -> const GlyphBitmap& {
    return outlined ? r.outline : r.fill;
  };
  auto inner = [](const RasterGlyph& r) -> const GlyphBitmap& { return r.fill; };
  LC_RETURN_IF_ERROR(draw_pass(outer, paint.shadow, paint.shadow_dx, paint.shadow_dy, false));
  if (outlined) LC_RETURN_IF_ERROR(draw_pass(outer, paint.outline, 0, 0, false));
  return draw_pass(inner, paint.fill, 0, 0, true);
}

}  // namespace lingcast::compose
