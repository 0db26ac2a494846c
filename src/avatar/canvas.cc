#include "avatar/canvas.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstring>

namespace lingcast {
namespace {

uint32_t PackPixel(Rgba8 c) {
  uint32_t v;
  static_assert(sizeof(Rgba8) == 4);
  std::memcpy(&v, &c, 4);
  return v;
}

// The end of a run of fully covered pixels (coverage and clip mask both 255)
// starting at `from`: such a run of an opaque colour is a plain fill.
int OpaqueRunEnd(const uint8_t* coverage, const uint8_t* mask, int from, int count) {
  int i = from;
  if (mask == nullptr) {
    while (i < count && coverage[i] == 255) ++i;
  } else {
    while (i < count && coverage[i] == 255 && mask[i] == 255) ++i;
  }
  return i;
}

// Stores `n` copies of a packed pixel (a loop the compiler vectorizes).
void FillRun(uint8_t* dst, uint32_t pixel, int n) {
  for (int i = 0; i < n; ++i) std::memcpy(dst + static_cast<size_t>(i) * 4, &pixel, 4);
}

// Geometry is snapped to 1/256 pixel: v -> floor(v * 256 + 0.5), in double so
// float inputs convert exactly. A pixel's full coverage is 2 * 256 * 256 units
// (kFullCoverage): each cell adds dy * (2*256 - (xa + xb - 2*left)) to itself
// and dy * (xa + xb - 2*left) to the next cell, for an edge piece inside it
// going from (xa, ya) to (xb, yb), dy = yb - ya (signed by edge direction).
// Summing cells left to right gives each pixel's signed covered area.
constexpr int64_t kSub = 256;
constexpr int64_t kLimit = int64_t{1} << 28;  // keeps every product within int64

}  // namespace

namespace canvas_rules {

int64_t SnapToSubpixel(float v) {
  const double d = std::floor(static_cast<double>(v) * kSub + 0.5);
  if (!(d > -static_cast<double>(kLimit))) return -kLimit;  // also NaN
  if (d > static_cast<double>(kLimit)) return kLimit;
  return static_cast<int64_t>(d);
}

}  // namespace canvas_rules

namespace {

using canvas_rules::SnapToSubpixel;
using canvas_rules::UnitToByte;

int64_t FloorDiv(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  if ((a % b) < 0) --q;
  return q;
}

// num / den rounded to nearest, halves up (towards +infinity); den > 0.
int64_t RoundDiv(int64_t num, int64_t den) {
  int64_t q = num / den, r = num % den;
  if (r < 0) {
    --q;
    r += den;
  }
  if (2 * r >= den) ++q;
  return q;
}

}  // namespace

namespace canvas_rules {

uint8_t UnitToByte(float v) { return static_cast<uint8_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); }

// 256 premultiplied colours along a gradient, interpolated in premultiplied space
// (so fading to a transparent stop does not darken).
std::array<Rgba8, 256> GradientTable(const Paint& paint) {
  std::array<Rgba8, 256> lut{};
  const auto& stops = paint.stops;
  if (stops.empty()) return lut;
  for (int i = 0; i < 256; ++i) {
    const float t = static_cast<float>(i) / 255.0f;
    size_t k = 0;
    while (k + 1 < stops.size() && stops[k + 1].offset < t) ++k;
    const GradientStop& s0 = stops[k];
    const GradientStop& s1 = stops[std::min(k + 1, stops.size() - 1)];
    float f = 0;
    if (t <= s0.offset) {
      f = 0;
    } else if (s1.offset > s0.offset) {
      f = std::clamp((t - s0.offset) / (s1.offset - s0.offset), 0.0f, 1.0f);
    } else {
      f = 1;
    }
    const float a0 = s0.color.a, a1 = s1.color.a;
    const float a = (a0 + (a1 - a0) * f);
    auto channel = [&](float c0, float c1) { return (c0 * a0 + (c1 * a1 - c0 * a0) * f) * paint.opacity; };
    lut[i] = {UnitToByte(channel(s0.color.r, s1.color.r)), UnitToByte(channel(s0.color.g, s1.color.g)),
              UnitToByte(channel(s0.color.b, s1.color.b)), UnitToByte(a * paint.opacity)};
  }
  return lut;
}

GradientMap GradientMapOf(const Paint& paint, const Affine& transform) {
  const Affine inv = transform.Inverse();  // device -> path coordinates
  GradientMap m;
  if (paint.kind == Paint::Kind::kLinear) {
    const Vec2 d = paint.to - paint.from;
    const float l2 = d.x * d.x + d.y * d.y;
    if (l2 <= 0) return m;
    m.ux = (d.x * inv.a + d.y * inv.b) / l2;
    m.uy = (d.x * inv.c + d.y * inv.d) / l2;
    m.u0 = (d.x * (inv.e - paint.from.x) + d.y * (inv.f - paint.from.y)) / l2;
  } else {
    const float rx = std::max(paint.radius.x, 1e-6f), ry = std::max(paint.radius.y, 1e-6f);
    m.ux = inv.a / rx;
    m.uy = inv.c / rx;
    m.u0 = (inv.e - paint.center.x) / rx;
    m.vx = inv.b / ry;
    m.vy = inv.d / ry;
    m.v0 = (inv.f - paint.center.y) / ry;
  }
  return m;
}

Rect PolygonBounds(const std::vector<Polygon>& polygons) {
  float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (const Polygon& poly : polygons) {
    for (const Vec2& p : poly) {
      x0 = std::min(x0, p.x);
      y0 = std::min(y0, p.y);
      x1 = std::max(x1, p.x);
      y1 = std::max(y1, p.y);
    }
  }
  if (!(x1 >= x0) || !(y1 >= y0)) return {};
  auto clampi = [](float v) { return static_cast<int>(std::clamp(v, -1e8f, 1e8f)); };
  const int l = clampi(std::floor(x0)), t = clampi(std::floor(y0));
  const int r = clampi(std::ceil(x1)) + 1, b = clampi(std::ceil(y1)) + 1;
  return {l, t, r - l, b - t};
}

Rgba8 SolidColor(const Paint& paint) {
  Rgba8 src = paint.color.Premultiplied();
  if (paint.opacity < 1) {
    const uint32_t o = UnitToByte(paint.opacity);
    src = {static_cast<uint8_t>(MulDiv255(src.r, o)), static_cast<uint8_t>(MulDiv255(src.g, o)),
           static_cast<uint8_t>(MulDiv255(src.b, o)), static_cast<uint8_t>(MulDiv255(src.a, o))};
  }
  return src;
}

bool ImageSampling(const Paint& paint, const Affine& transform, Affine* to_image) {
  if (!paint.image || paint.image->width <= 0 || paint.image->height <= 0) return false;
  if (paint.image_size.x == 0 || paint.image_size.y == 0) return false;
  const VideoFrame& image = *paint.image;
  *to_image = Affine::Scale(static_cast<float>(image.width) / paint.image_size.x,
                            static_cast<float>(image.height) / paint.image_size.y) *
              Affine::Translate(-paint.image_origin.x, -paint.image_origin.y) * transform.Inverse();
  return true;
}

float StrokeMargin(float width, const Affine& transform) {
  return 0.5f * width * transform.MeanScale() + Canvas::kTolerance;
}

std::vector<Polygon> StrokePolygons(const Path& path, float width, const Affine& transform) {
  std::vector<bool> closed;
  const std::vector<Polygon> lines = path.Flatten(transform, Canvas::kTolerance, &closed);
  const float half = 0.5f * width * transform.MeanScale();
  std::vector<Polygon> outline;
  for (size_t i = 0; i < lines.size(); ++i) {
    for (Polygon& p : StrokeOutline(lines[i], closed[i], half, Canvas::kTolerance)) outline.push_back(std::move(p));
  }
  return outline;
}

bool OutsideArea(const Rect& area, const Path& path, const Affine& transform, float margin) {
  if (area.empty()) return true;
  const Path::Box box = path.ControlBounds(transform);
  if (!(box.x1 >= box.x0) || !(box.y1 >= box.y0)) return false;  // empty or NaN: let the rasterizer decide
  // Two pixels of slack on top of the margin cover float rounding in flattening
  // and PolygonBounds' own one-pixel growth.
  const float slack = margin + 2.0f;
  return box.x1 + slack < static_cast<float>(area.x) || box.x0 - slack > static_cast<float>(area.right()) ||
         box.y1 + slack < static_cast<float>(area.y) || box.y0 - slack > static_cast<float>(area.bottom());
}

}  // namespace canvas_rules

using canvas_rules::GradientMapOf;
using canvas_rules::GradientTable;
using canvas_rules::PolygonBounds;


Rgba8 Color::Premultiplied() const {
  return {UnitToByte(r * a), UnitToByte(g * a), UnitToByte(b * a), UnitToByte(a)};
}

Paint Paint::Linear(Vec2 from, Vec2 to, std::vector<GradientStop> stops) {
  Paint p;
  p.kind = Kind::kLinear;
  p.from = from;
  p.to = to;
  p.stops = std::move(stops);
  return p;
}

Paint Paint::Image(std::shared_ptr<const VideoFrame> image, Vec2 origin, Vec2 size) {
  Paint p;
  p.kind = Kind::kImage;
  p.image = std::move(image);
  p.image_origin = origin;
  p.image_size = size;
  return p;
}

Paint Paint::Radial(Vec2 center, Vec2 radius, std::vector<GradientStop> stops) {
  Paint p;
  p.kind = Kind::kRadial;
  p.center = center;
  p.radius = radius;
  p.stops = std::move(stops);
  return p;
}

Canvas::Canvas(VideoFrame& target, const Rect& clip) { Reset(target, clip); }

void Canvas::Reset(VideoFrame& target, const Rect& clip) {
  target_ = &target;
  clip_ = clip.Intersect(Rect{0, 0, target.width, target.height});
  masks_.clear();
}

Rect Canvas::DrawableArea() const {
  return masks_.empty() ? clip_ : clip_.Intersect(masks_.back().rect);
}

template <typename RowFn>
void Canvas::Rasterize(const std::vector<Polygon>& polygons, const Rect& area, RowFn&& row) {
  const int w = area.width, h = area.height;
  const int stride = w + 2;
  if (cells_.size() < static_cast<size_t>(stride) * h) cells_.resize(static_cast<size_t>(stride) * h, 0);
  row_min_.assign(h, INT_MAX);
  row_max_.assign(h, -1);
  if (row_coverage_.size() < static_cast<size_t>(w)) row_coverage_.resize(w);

  const int64_t clip_x0 = area.x * kSub, clip_x1 = int64_t{area.right()} * kSub;
  const int64_t clip_y0 = area.y * kSub, clip_y1 = int64_t{area.bottom()} * kSub;

  auto touch = [&](int r, int lo, int hi) {
    row_min_[r] = std::min(row_min_[r], lo);
    row_max_[r] = std::max(row_max_[r], hi);
  };
  // Everything left of the area covers its first pixel column entirely.
  auto add_left = [&](int r, int64_t dy) {
    cells_[static_cast<size_t>(r) * stride] += static_cast<int32_t>(dy * 2 * kSub);
    touch(r, 0, 0);
  };
  auto add_cell = [&](int r, int64_t col, int64_t xa, int64_t xb, int64_t dy) {
    const int local = static_cast<int>(col - area.x);
    const int64_t sum = xa + xb - 2 * col * kSub;  // 0 .. 512
    int32_t* cell = &cells_[static_cast<size_t>(r) * stride + local];
    cell[0] += static_cast<int32_t>(dy * (2 * kSub - sum));
    cell[1] += static_cast<int32_t>(dy * sum);
    touch(r, local, local + 1);
  };
  // One edge piece within a pixel row, (xa, ya) -> (xb, yb) with yb > ya.
  auto add_row_piece = [&](int r, int64_t xa, int64_t xb, int64_t total, int sign) {
    const int64_t lo = std::min(xa, xb), hi = std::max(xa, xb);
    if (hi <= clip_x0) return add_left(r, total * sign);
    if (lo >= clip_x1) return;
    if (lo == hi) return add_cell(r, FloorDiv(lo, kSub), lo, lo, total * sign);
    // Height climbed from the `lo` end to x (only magnitudes matter per piece).
    auto rise = [&](int64_t x) { return x >= hi ? total : RoundDiv((x - lo) * total, hi - lo); };
    int64_t x = lo, prev = 0;
    if (lo < clip_x0) {
      prev = rise(clip_x0);
      add_left(r, prev * sign);
      x = clip_x0;
    }
    const int64_t end = std::min(hi, clip_x1);
    int64_t col = FloorDiv(x, kSub);
    while (x < end) {
      const int64_t nx = std::min(end, (col + 1) * kSub);
      const int64_t next = rise(nx);
      add_cell(r, col, x, nx, (next - prev) * sign);
      x = nx;
      prev = next;
      ++col;
    }
  };

  for (const Polygon& poly : polygons) {
    const size_t n = poly.size();
    if (n < 2) continue;
    for (size_t i = 0; i < n; ++i) {
      int64_t x0 = SnapToSubpixel(poly[i].x), y0 = SnapToSubpixel(poly[i].y);
      int64_t x1 = SnapToSubpixel(poly[(i + 1) % n].x), y1 = SnapToSubpixel(poly[(i + 1) % n].y);
      if (y0 == y1) continue;
      int sign = 1;
      if (y0 > y1) {
        std::swap(x0, x1);
        std::swap(y0, y1);
        sign = -1;
      }
      if (y1 <= clip_y0 || y0 >= clip_y1) continue;
      auto x_at = [&](int64_t y) {
        if (y == y0) return x0;
        if (y == y1) return x1;
        return x0 + RoundDiv((y - y0) * (x1 - x0), y1 - y0);
      };
      int64_t ya = std::max(y0, clip_y0);
      const int64_t ye = std::min(y1, clip_y1);
      int64_t xa = x_at(ya);
      int64_t row = FloorDiv(ya, kSub);
      while (ya < ye) {
        const int64_t yb = std::min(ye, (row + 1) * kSub);
        const int64_t xb = x_at(yb);
        add_row_piece(static_cast<int>(row - area.y), xa, xb, yb - ya, sign);
        ya = yb;
        xa = xb;
        ++row;
      }
    }
  }

  for (int r = 0; r < h; ++r) {
    if (row_min_[r] > row_max_[r]) continue;
    int32_t* cells = &cells_[static_cast<size_t>(r) * stride];
    const int first = row_min_[r];
    const int last_cell = row_max_[r];  // <= w
    // Local pointers: byte stores could alias the vectors' own members otherwise,
    // and the compiler would reload them on every pixel.
    uint8_t* const coverage = row_coverage_.data();
    const int last_pixel = std::min(last_cell, w - 1);
    int32_t acc = 0;
    int count = 0;
    uint8_t alpha = 0;
    for (int i = first; i <= last_pixel; ++i) {
      // Inside a shape most cells are untouched (0): the coverage only changes,
      // and a cell only needs clearing, where an edge passed.
      const int32_t cell = cells[i];
      if (cell != 0) {
        acc += cell;
        cells[i] = 0;  // leave the buffer clean for the next shape
        alpha = static_cast<uint8_t>(CoverageToAlpha(acc));
      }
      coverage[count++] = alpha;
    }
    if (last_cell >= w) {
      acc += cells[w];
      cells[w] = 0;
    }
    // Past the last touched cell the coverage stays constant (non-zero only when
    // the shape continues beyond the area's right edge).
    if (acc != 0) {
      const uint8_t c = static_cast<uint8_t>(CoverageToAlpha(acc));
      while (first + count < w) coverage[count++] = c;
    }
    if (count > 0) row(area.y + r, area.x + first, count, coverage);
  }
}


void Canvas::Fill(const Path& path, const Paint& paint, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, 0)) return;
  FillPolygons(path.Flatten(transform, kTolerance), paint, transform);
}

void Canvas::Stroke(const Path& path, float width, const Paint& paint, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, canvas_rules::StrokeMargin(width, transform))) return;
  FillPolygons(canvas_rules::StrokePolygons(path, width, transform), paint, transform);
}

void Canvas::FillPolygons(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform) {
  const Rect area = PolygonBounds(polygons).Intersect(DrawableArea());
  if (area.empty()) return;
  const Mask* mask = masks_.empty() ? nullptr : &masks_.back();
  auto mask_row = [&](int y, int x) -> const uint8_t* {
    return mask ? &mask->alpha[static_cast<size_t>(y - mask->rect.y) * mask->rect.width + (x - mask->rect.x)]
                : nullptr;
  };
  VideoFrame& frame = *target_;

  if (paint.kind == Paint::Kind::kSolid) {
    const Rgba8 src = canvas_rules::SolidColor(paint);
    if (src.a == 0) return;
    const uint32_t opaque = PackPixel(src);
    Rasterize(polygons, area, [&, src, opaque](int y, int x, int count, const uint8_t* coverage) {
      uint8_t* const row = frame.Row(y) + static_cast<size_t>(x) * 4;
      const uint8_t* m = mask_row(y, x);
      for (int i = 0; i < count;) {
        uint32_t c = coverage[i];
        if (m) c = MulDiv255(c, m[i]);
        if (c == 255 && src.a == 255) {
          const int end = OpaqueRunEnd(coverage, m, i + 1, count);
          FillRun(row + static_cast<size_t>(i) * 4, opaque, end - i);
          i = end;
          continue;
        }
        if (c != 0) BlendSourceOver(row + static_cast<size_t>(i) * 4, src, c);
        ++i;
      }
      pixels_shaded_ += count;
    });
    return;
  }

  if (paint.kind == Paint::Kind::kImage) {
    FillImage(polygons, paint, transform, area);
    return;
  }

  const std::array<Rgba8, 256> lut = GradientTable(paint);
  const GradientMap map = GradientMapOf(paint, transform);
  // A gradient that does not vary along x (vertical, unrotated) has one colour per
  // row: evaluating it once gives bit-identical results (0 * x is exactly 0).
  const bool constant_per_row = paint.kind == Paint::Kind::kLinear && map.ux == 0.0f;
  auto shade_rows = [&](auto gradient_t) {
    Rasterize(polygons, area, [&, map](int y, int x, int count, const uint8_t* coverage) {
      uint8_t* px = frame.Row(y) + static_cast<size_t>(x) * 4;
      const uint8_t* m = mask_row(y, x);
      const float py = static_cast<float>(y) + 0.5f;
      if (constant_per_row) {
        const Rgba8 color = lut[GradientIndex(gradient_t(map, static_cast<float>(x) + 0.5f, py))];
        const uint32_t opaque = PackPixel(color);
        for (int i = 0; i < count;) {
          uint32_t c = coverage[i];
          if (m) c = MulDiv255(c, m[i]);
          if (c == 255 && color.a == 255) {
            const int end = OpaqueRunEnd(coverage, m, i + 1, count);
            FillRun(px + static_cast<size_t>(i) * 4, opaque, end - i);
            i = end;
            continue;
          }
          if (c != 0) BlendSourceOver(px + static_cast<size_t>(i) * 4, color, c);
          ++i;
        }
        pixels_shaded_ += count;
        return;
      }
      for (int i = 0; i < count; ++i, px += 4) {
        uint32_t c = coverage[i];
        if (m) c = MulDiv255(c, m[i]);
        if (c == 0) continue;
        const float pxc = static_cast<float>(x + i) + 0.5f;
        const Rgba8 color = lut[GradientIndex(gradient_t(map, pxc, py))];
        if (c == 255 && color.a == 255) {  // opaque interior: a plain store
          std::memcpy(px, &color, 4);
        } else {
          BlendSourceOver(px, color, c);
        }
      }
      pixels_shaded_ += count;
    });
  };
  if (paint.kind == Paint::Kind::kLinear) {
    shade_rows([](const GradientMap& g, float px, float py) { return LinearGradientT(g, px, py); });
  } else {
    shade_rows([](const GradientMap& g, float px, float py) { return RadialGradientT(g, px, py); });
  }
}

void Canvas::FillImage(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform,
                       const Rect& area) {
  // Device pixel centre -> path coordinates -> image pixels.
  Affine to_image;
  if (!canvas_rules::ImageSampling(paint, transform, &to_image)) return;
  const VideoFrame& image = *paint.image;
  const uint32_t opacity = UnitToByte(paint.opacity);
  const Mask* mask = masks_.empty() ? nullptr : &masks_.back();
  VideoFrame& frame = *target_;
  Rasterize(polygons, area, [&](int y, int x, int count, const uint8_t* coverage) {
    uint8_t* px = frame.Row(y) + static_cast<size_t>(x) * 4;
    const uint8_t* m =
        mask ? &mask->alpha[static_cast<size_t>(y - mask->rect.y) * mask->rect.width + (x - mask->rect.x)] : nullptr;
    const float py = static_cast<float>(y) + 0.5f;
    for (int i = 0; i < count; ++i, px += 4) {
      uint32_t c = coverage[i];
      if (m) c = MulDiv255(c, m[i]);
      if (opacity != 255) c = MulDiv255(c, opacity);
      if (c == 0) continue;
      const float pxc = static_cast<float>(x + i) + 0.5f;
      const float u = to_image.a * pxc + to_image.c * py + to_image.e;
      const float v = to_image.b * pxc + to_image.d * py + to_image.f;
      const Rgba8 color = SampleBilinear(image.rgba.data(), image.stride, image.width, image.height, u, v);
      if (color.a == 0) continue;
      BlendSourceOver(px, color, c);
    }
    pixels_shaded_ += count;
  });
}

void Canvas::PushClip(const Path& path, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, 0)) {
    masks_.push_back(Mask{});  // an empty clip: nothing is drawn until PopClip()
    return;
  }
  const std::vector<Polygon> polygons = path.Flatten(transform, kTolerance);
  Mask mask;
  mask.rect = PolygonBounds(polygons).Intersect(DrawableArea());
  mask.alpha.assign(static_cast<size_t>(std::max(0, mask.rect.width)) * std::max(0, mask.rect.height), 0);
  if (!mask.rect.empty()) {
    const Mask* outer = masks_.empty() ? nullptr : &masks_.back();
    Rasterize(polygons, mask.rect, [&](int y, int x, int count, const uint8_t* coverage) {
      uint8_t* dst = &mask.alpha[static_cast<size_t>(y - mask.rect.y) * mask.rect.width + (x - mask.rect.x)];
      const uint8_t* o = outer ? &outer->alpha[static_cast<size_t>(y - outer->rect.y) * outer->rect.width +
                                               (x - outer->rect.x)]
                               : nullptr;
      for (int i = 0; i < count; ++i) dst[i] = static_cast<uint8_t>(o ? MulDiv255(coverage[i], o[i]) : coverage[i]);
    });
  }
  masks_.push_back(std::move(mask));
}

void Canvas::PopClip() {
  if (!masks_.empty()) masks_.pop_back();
}

}  // namespace lingcast
