#include "compose/blend.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "compose/blend_pixel.h"

static_assert(std::endian::native == std::endian::little, "packed RGBA math assumes little-endian");

namespace lingcast::compose {
namespace {

// dst = src + dst * (1 - src.a), all premultiplied.
inline void Over(uint8_t* d, uint32_t r, uint32_t g, uint32_t b, uint32_t a) {
  const uint32_t inv = 255 - a;
  d[0] = static_cast<uint8_t>(r + Div255(d[0] * inv));
  d[1] = static_cast<uint8_t>(g + Div255(d[1] * inv));
  d[2] = static_cast<uint8_t>(b + Div255(d[2] * inv));
  d[3] = static_cast<uint8_t>(a + Div255(d[3] * inv));
}

}  // namespace

void BlendMask(VideoFrame& dst, int x, int y, const uint8_t* mask, int mask_width,
               int mask_height, int mask_stride, Rgba color, const Rect* clip) {
  const Rect c = clip ? clip->Intersect(Rect{0, 0, dst.width, dst.height}) : Rect{0, 0, dst.width, dst.height};
  const int x0 = std::max(c.x, x), y0 = std::max(c.y, y);
  const int x1 = std::min(c.right(), x + mask_width), y1 = std::min(c.bottom(), y + mask_height);
  if (x0 >= x1 || y0 >= y1 || color.a == 0) return;
  for (int py = y0; py < y1; ++py) {
    const uint8_t* m = mask + static_cast<size_t>(py - y) * mask_stride + (x0 - x);
    uint8_t* d = dst.Row(py) + static_cast<size_t>(x0) * 4;
    for (int px = x0; px < x1; ++px, ++m, d += 4) {
      if (*m == 0) continue;
      const uint32_t a = Div255(static_cast<uint32_t>(*m) * color.a);
      Over(d, Div255(color.r * a), Div255(color.g * a), Div255(color.b * a), a);
    }
  }
}

void FillRoundedRect(VideoFrame& dst, float x, float y, float width, float height, float radius,
                     Rgba color, const Rect* clip) {
  if (width <= 0 || height <= 0 || color.a == 0) return;
  radius = std::clamp(radius, 0.0f, std::min(width, height) / 2);
  const Rect c = clip ? clip->Intersect(Rect{0, 0, dst.width, dst.height}) : Rect{0, 0, dst.width, dst.height};
  const int x0 = std::max(c.x, static_cast<int>(std::floor(x)));
  const int y0 = std::max(c.y, static_cast<int>(std::floor(y)));
  const int x1 = std::min(c.right(), static_cast<int>(std::ceil(x + width)));
  const int y1 = std::min(c.bottom(), static_cast<int>(std::ceil(y + height)));
  const float cx = x + width / 2, cy = y + height / 2;
  const float inner_x = width / 2 - radius, inner_y = height / 2 - radius;
  const uint32_t full_r = Div255(color.r * color.a), full_g = Div255(color.g * color.a),
                 full_b = Div255(color.b * color.a);
  for (int py = y0; py < y1; ++py) {
    uint8_t* d = dst.Row(py) + static_cast<size_t>(x0) * 4;
    const float qy = std::fabs(py + 0.5f - cy) - inner_y;
    for (int px = x0; px < x1; ++px, d += 4) {
      // Signed distance from the pixel centre to the rounded rectangle's edge.
      const float qx = std::fabs(px + 0.5f - cx) - inner_x;
      if (qx <= -0.5f - radius || qy <= -0.5f - radius) {
        // Away from the corners the distance is along one axis only.
        const float edge = std::min(-qx, -qy) + radius;  // distance inside the edge
        if (edge >= 0.5f) {
          Over(d, full_r, full_g, full_b, color.a);
          continue;
        }
      }
      const float ox = std::max(qx, 0.0f), oy = std::max(qy, 0.0f);
      const float dist = std::sqrt(ox * ox + oy * oy) + std::min(std::max(qx, qy), 0.0f) - radius;
      const float coverage = std::clamp(0.5f - dist, 0.0f, 1.0f);
      if (coverage <= 0) continue;
      const uint32_t a = static_cast<uint32_t>(std::lround(coverage * color.a));
      Over(d, Div255(color.r * a), Div255(color.g * a), Div255(color.b * a), a);
    }
  }
}

void BlitOver(VideoFrame& dst, const VideoFrame& src, int x, int y, int opacity) {
  BlitOver(dst, src, x, y, opacity, Rect{0, 0, dst.width, dst.height});
}

void CopyRect(VideoFrame& dst, const VideoFrame& src, const Rect& rect) {
  const Rect r = rect.Intersect(Rect{0, 0, std::min(dst.width, src.width), std::min(dst.height, src.height)});
  if (r.empty()) return;
  const size_t bytes = static_cast<size_t>(r.width) * 4;
  for (int y = r.y; y < r.bottom(); ++y) {
    std::memcpy(dst.Row(y) + static_cast<size_t>(r.x) * 4, src.Row(y) + static_cast<size_t>(r.x) * 4, bytes);
  }
}

void BlitOver(VideoFrame& dst, const VideoFrame& src, int x, int y, int opacity, const Rect& clip) {
  opacity = std::clamp(opacity, 0, 255);
  const Rect c = clip.Intersect(Rect{0, 0, dst.width, dst.height});
  const int x0 = std::max(c.x, x), y0 = std::max(c.y, y);
  const int x1 = std::min(c.right(), x + src.width), y1 = std::min(c.bottom(), y + src.height);
  if (x0 >= x1 || y0 >= y1 || opacity == 0) return;
  const uint32_t scale = static_cast<uint32_t>(opacity);
  for (int py = y0; py < y1; ++py) {
    const uint8_t* s = src.Row(py - y) + static_cast<size_t>(x0 - x) * 4;
    uint8_t* d = dst.Row(py) + static_cast<size_t>(x0) * 4;
    for (int px = x0; px < x1; ++px, s += 4, d += 4) {
      uint32_t sp, dp;
      std::memcpy(&sp, s, 4);  // memcpy: rows need not be 4-byte aligned
      if (sp == 0) continue;
      if (scale != 255) sp = ScalePacked(sp, scale);
      std::memcpy(&dp, d, 4);
      dp = OverPacked(sp, dp);
      std::memcpy(d, &dp, 4);
    }
  }
}

}  // namespace lingcast::compose
