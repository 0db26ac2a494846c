// The packed-pixel source-over of BlitOver (blend.h), shared by the CPU blits
// and the CUDA compositor's (gpu_compose_kernels.cu) so both give the same
// bytes. C++17 and LC_HOST_DEVICE: nvcc compiles it.
#pragma once

#include <cstdint>

#include "media/host_device.h"

namespace lingcast::compose {

// Two channels at once: `pair` holds 8-bit values in bits 0-7 and 16-23.
// Returns pair * scale / 255 for both, rounded (the classic packed-lane trick).
LC_HOST_DEVICE inline uint32_t ScalePair(uint32_t pair, uint32_t scale) {
  uint32_t x = pair * scale + 0x00800080u;
  x += (x >> 8) & 0x00FF00FFu;
  return (x >> 8) & 0x00FF00FFu;
}

// Premultiplied source-over of one packed RGBA pixel (little-endian bytes R, G, B, A).
LC_HOST_DEVICE inline uint32_t OverPacked(uint32_t src, uint32_t dst) {
  const uint32_t inv = 255 - (src >> 24);
  const uint32_t rb = ScalePair(dst & 0x00FF00FFu, inv);
  const uint32_t ga = ScalePair((dst >> 8) & 0x00FF00FFu, inv);
  return src + (rb | (ga << 8));
}

// All four channels of a packed pixel times scale / 255 (a fade's opacity).
LC_HOST_DEVICE inline uint32_t ScalePacked(uint32_t pixel, uint32_t scale) {
  return ScalePair(pixel & 0x00FF00FFu, scale) | (ScalePair((pixel >> 8) & 0x00FF00FFu, scale) << 8);
}

}  // namespace lingcast::compose
