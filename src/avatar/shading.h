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

#if defined(__CUDACC__)
#define LC_HOST_DEVICE __host__ __device__
#else
#define LC_HOST_DEVICE
#endif

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

}  // namespace lingcast
