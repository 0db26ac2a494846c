// Canvas: an antialiased vector rasterizer of our own drawing into a premultiplied
// RGBA8 VideoFrame, restricted to a clip rectangle.
//
// Coverage is exact-area: every polygon edge adds, per pixel cell it crosses,
// its signed height ("cover") and the area to its right, and a running sum along
// each row turns that into the covered fraction of every pixel, as font
// rasterizers do. Coordinates are snapped to 1/256 pixel and all coverage
// arithmetic is integer (see canvas.cc), so the same input gives the same pixels
// on every machine. Fill rule: non-zero. Pixel (x, y) is the square
// [x, x+1) x [y, y+1); shading is evaluated at its centre.
//
// A Canvas only ever writes inside its clip rectangle, and only inside each
// shape's bounding box. It holds scratch buffers: one Canvas per thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "avatar/geometry.h"
#include "avatar/path.h"
#include "avatar/shading.h"
#include "media/video_frame.h"

namespace lingcast {

// A colour as authored: straight (not premultiplied) sRGB components in [0, 1].
struct Color {
  float r = 0, g = 0, b = 0, a = 1;
  // 0xRRGGBB plus an alpha.
  static Color Hex(uint32_t rgb, float alpha = 1.0f) {
    return {static_cast<float>((rgb >> 16) & 0xFF) / 255.0f, static_cast<float>((rgb >> 8) & 0xFF) / 255.0f,
            static_cast<float>(rgb & 0xFF) / 255.0f, alpha};
  }
  Color WithAlpha(float alpha) const { return {r, g, b, alpha}; }
  Rgba8 Premultiplied() const;
};

struct GradientStop {
  float offset = 0;  // 0 .. 1
  Color color;
};

// What fills a shape. Gradient geometry is in the same coordinates as the path
// and goes through the same transform.
struct Paint {
  enum class Kind { kSolid, kLinear, kRadial, kImage };
  Kind kind = Kind::kSolid;
  Color color;                      // kSolid
  Vec2 from, to;                    // kLinear: t = 0 at `from`, 1 at `to`
  Vec2 center;                      // kRadial: t = 0 at `center`, 1 on the ellipse of radii
  Vec2 radius;                      //          radius.x, radius.y
  std::vector<GradientStop> stops;  // gradients, sorted by offset
  // kImage: a premultiplied image stretched over the rectangle from `image_origin`
  // of size `image_size` (path coordinates), sampled bilinearly, clamped at its edges.
  std::shared_ptr<const VideoFrame> image;
  Vec2 image_origin, image_size;
  float opacity = 1;

  static Paint Solid(Color c) { return Paint{Kind::kSolid, c}; }
  static Paint Linear(Vec2 from, Vec2 to, std::vector<GradientStop> stops);
  static Paint Radial(Vec2 center, Vec2 radius, std::vector<GradientStop> stops);
  static Paint Image(std::shared_ptr<const VideoFrame> image, Vec2 origin, Vec2 size);
  Paint WithOpacity(float o) const {
    Paint p = *this;
    p.opacity = o;
    return p;
  }
};

// What a rig is drawn on: the CPU Canvas below, or the CUDA renderer's display
// list (GpuCanvas, gpu_canvas.h), which must give the same pixels.
class VectorSurface {
 public:
  virtual ~VectorSurface() = default;
  virtual void Fill(const Path& path, const Paint& paint, const Affine& transform) = 0;
  // A stroke of `width` path units (scaled by the transform), round joins and caps.
  virtual void Stroke(const Path& path, float width, const Paint& paint, const Affine& transform) = 0;
  // Limits drawing to the inside of `path` (antialiased) until PopClip().
  // Nested clips intersect.
  virtual void PushClip(const Path& path, const Affine& transform) = 0;
  virtual void PopClip() = 0;
};

class Canvas final : public VectorSurface {
 public:
  // No target yet: draws nothing until Reset().
  Canvas() = default;
  // Draws into `clip` intersected with the frame.
  Canvas(VideoFrame& target, const Rect& clip);
  explicit Canvas(VideoFrame& target) : Canvas(target, Rect{0, 0, target.width, target.height}) {}

  // Retargets the canvas, keeping its scratch memory.
  void Reset(VideoFrame& target, const Rect& clip);

  void Fill(const Path& path, const Paint& paint, const Affine& transform = {}) override;
  void Stroke(const Path& path, float width, const Paint& paint, const Affine& transform = {}) override;
  void PushClip(const Path& path, const Affine& transform = {}) override;
  void PopClip() override;

  const Rect& clip() const { return clip_; }
  // Pixels blended since construction: what the bounding-box culling saves.
  int64_t pixels_shaded() const { return pixels_shaded_; }

  // Flattening tolerance in device pixels.
  static constexpr float kTolerance = 0.1f;

 private:
  struct Mask {
    Rect rect;
    std::vector<uint8_t> alpha;  // rect.width * rect.height
  };

  void FillPolygons(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform);
  void FillImage(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform,
                 const Rect& area);
  // Rasterizes `polygons` within `area`; calls row(y, x_begin, coverage) for each
  // row with coverage[i] the 8-bit alpha of pixel x_begin + i (row_length of them).
  template <typename RowFn>
  void Rasterize(const std::vector<Polygon>& polygons, const Rect& area, RowFn&& row);
  Rect DrawableArea() const;

  VideoFrame* target_ = nullptr;  // not owned
  Rect clip_;
  std::vector<Mask> masks_;
  std::vector<int32_t> cells_;     // coverage accumulation for one shape's box
  std::vector<int> row_min_, row_max_;
  std::vector<uint8_t> row_coverage_;
  int64_t pixels_shaded_ = 0;
};

// The decisions Canvas makes around its rasterizer, shared with GpuCanvas so
// that both draw the same pixels from the same inputs.
namespace canvas_rules {

// Coordinates snap to 1/256 pixel: floor(v * 256 + 0.5), clamped to +-2^28.
int64_t SnapToSubpixel(float v);
// The pixel box of `polygons` grown by one pixel right and down; empty for none.
Rect PolygonBounds(const std::vector<Polygon>& polygons);
// A [0, 1] value as a byte, rounded to nearest.
uint8_t UnitToByte(float v);
// A solid paint's premultiplied colour with its opacity applied.
Rgba8 SolidColor(const Paint& paint);
// 256 premultiplied colours along a gradient paint (opacity applied).
std::array<Rgba8, 256> GradientTable(const Paint& paint);
// The gradient parameter as affine functions of device pixel centres.
GradientMap GradientMapOf(const Paint& paint, const Affine& transform);
// Device pixel centre -> image pixels for an image paint; false when the paint
// draws nothing (no image, or an empty rectangle).
bool ImageSampling(const Paint& paint, const Affine& transform, Affine* to_image);
// The outline polygons of a stroke in device pixels.
std::vector<Polygon> StrokePolygons(const Path& path, float width, const Affine& transform);
// How far a stroke reaches beyond its path, in device pixels.
float StrokeMargin(float width, const Affine& transform);
// True when no part of `path` under `transform`, grown by `margin` device
// pixels, can reach `area`: the shape would change no pixel there.
bool OutsideArea(const Rect& area, const Path& path, const Affine& transform, float margin);

}  // namespace canvas_rules

}  // namespace lingcast
