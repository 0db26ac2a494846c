// Per-pixel shading: coverage to alpha, gradient evaluation and premultiplied
// source-over blending. Plain inline functions marked LC_HOST_DEVICE so a CUDA
// backend compiles the very same code; the CPU renderer is the reference.
//
// Rounding rules (all integer, so results are bit-exact everywhere):
//  - coverage is accumulated in units of 1/131072 of a pixel (see canvas.cc) and
//    becomes an 8-bit alpha by round-half-up: (min(|c|, 131072) * 255 + 65536) >> 17;
//  - x * y / 255 for 8-bit values is rounded to nearest: t = x*y + 128; (t + (t >> 8)) >> 8;
//  - gradients: t is computed in float at the pixel centre with plain multiplies
//    and adds (no fused multiply-add: a CUDA build must use --fmad=false) and picks
//    entry floor(t * 255 + 0.5) of a 256-entry premultiplied colour table.
#pragma once

#include <cmath>
#include <cstdint>

#include "media/host_device.h"

namespace lingcast {

// A premultiplied 8-bit colour (r, g, b <= a).
struct Rgba8 {
  uint8_t r = 0, g = 0, b = 0, a = 0;
};

inline constexpr int32_t kFullCoverage = 1 << 17;

LC_HOST_DEVICE inline uint32_t MulDiv255(uint32_t x, uint32_t y) {
  const uint32_t t = x * y + 128;
  return (t + (t >> 8)) >> 8;
}

// Non-zero winding: the accumulated signed area's magnitude, saturated at a full pixel.
LC_HOST_DEVICE inline uint32_t CoverageToAlpha(int32_t accumulated) {
  uint32_t c = static_cast<uint32_t>(accumulated < 0 ? -accumulated : accumulated);
  if (c > static_cast<uint32_t>(kFullCoverage)) c = kFullCoverage;
  return (c * 255u + (kFullCoverage >> 1)) >> 17;
}

// dst = src * coverage + dst * (1 - src.a * coverage), premultiplied RGBA8.
LC_HOST_DEVICE inline void BlendSourceOver(uint8_t* dst, Rgba8 src, uint32_t coverage) {
  if (coverage != 255) {
    src.r = static_cast<uint8_t>(MulDiv255(src.r, coverage));
    src.g = static_cast<uint8_t>(MulDiv255(src.g, coverage));
    src.b = static_cast<uint8_t>(MulDiv255(src.b, coverage));
    src.a = static_cast<uint8_t>(MulDiv255(src.a, coverage));
  }
  const uint32_t keep = 255u - src.a;
  dst[0] = static_cast<uint8_t>(src.r + MulDiv255(dst[0], keep));
  dst[1] = static_cast<uint8_t>(src.g + MulDiv255(dst[1], keep));
  dst[2] = static_cast<uint8_t>(src.b + MulDiv255(dst[2], keep));
  dst[3] = static_cast<uint8_t>(src.a + MulDiv255(dst[3], keep));
}

// Gradient parameter as affine functions of the pixel centre: u = ux*x + uy*y + u0
// (and v likewise for radial gradients, which use t = |(u, v)|).
struct GradientMap {
  float ux = 0, uy = 0, u0 = 0;
  float vx = 0, vy = 0, v0 = 0;
};

LC_HOST_DEVICE inline float LinearGradientT(const GradientMap& m, float px, float py) {
  return m.ux * px + m.uy * py + m.u0;
}

LC_HOST_DEVICE inline float RadialGradientT(const GradientMap& m, float px, float py) {
  const float u = m.ux * px + m.uy * py + m.u0;
  const float v = m.vx * px + m.vy * py + m.v0;
  return sqrtf(u * u + v * v);
}

// Index into a 256-entry colour table, clamping t to [0, 1] (pad spread).
LC_HOST_DEVICE inline int GradientIndex(float t) {
  if (!(t > 0.0f)) return 0;  // also catches NaN
  if (t >= 1.0f) return 255;
  return static_cast<int>(t * 255.0f + 0.5f);
}

// Bilinear sample of a premultiplied RGBA8 image at (u, v) in image pixels
// (pixel i's centre at i + 0.5), clamped to the edge. The fractions are
// quantized to 1/256 and the blend is integer, so the result is bit-exact.
// Premultiplied inputs give a premultiplied output (every channel uses the same
// weights and the same rounding, so r <= a still holds).
LC_HOST_DEVICE inline Rgba8 SampleBilinear(const uint8_t* pixels, int stride, int width, int height, float u,
                                           float v) {
  const float fx = u - 0.5f, fy = v - 0.5f;
  const float flx = floorf(fx), fly = floorf(fy);
  int x0 = static_cast<int>(flx), y0 = static_cast<int>(fly);
  int wx = static_cast<int>((fx - flx) * 256.0f + 0.5f), wy = static_cast<int>((fy - fly) * 256.0f + 0.5f);
  int x1 = x0 + 1, y1 = y0 + 1;
  auto clampi = [](int a, int lo, int hi) { return a < lo ? lo : (a > hi ? hi : a); };
  x0 = clampi(x0, 0, width - 1);
  x1 = clampi(x1, 0, width - 1);
  y0 = clampi(y0, 0, height - 1);
  y1 = clampi(y1, 0, height - 1);
  wx = clampi(wx, 0, 256);
  wy = clampi(wy, 0, 256);
  const uint8_t* p00 = pixels + y0 * stride + x0 * 4;
  const uint8_t* p10 = pixels + y0 * stride + x1 * 4;
  const uint8_t* p01 = pixels + y1 * stride + x0 * 4;
  const uint8_t* p11 = pixels + y1 * stride + x1 * 4;
  uint8_t out[4];
  for (int c = 0; c < 4; ++c) {
    const uint32_t top = static_cast<uint32_t>(p00[c] * (256 - wx) + p10[c] * wx);
    const uint32_t bottom = static_cast<uint32_t>(p01[c] * (256 - wx) + p11[c] * wx);
    out[c] = static_cast<uint8_t>((top * static_cast<uint32_t>(256 - wy) + bottom * static_cast<uint32_t>(wy) + 32768u) >> 16);
  }
  return {out[0], out[1], out[2], out[3]};
}

}  // namespace lingcast
