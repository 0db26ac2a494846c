// RGB -> BT.709 limited-range YUV in fixed point: the one definition that the
// CPU converter (output/rgba_to_yuv.cc) and the CUDA renderer's converter
// (compose/gpu_yuv_kernels.cu) both use, so their planes are bit-identical.
// C++17 and free of other project headers: nvcc compiles it.
#pragma once

#include <cstdint>

#include "media/host_device.h"

namespace lingcast {
namespace bt709 {

// Kr = 0.2126, Kb = 0.0722. Limited range scales luma by 219/255 and chroma by
// 224/255. Chroma coefficients in 1/2^15 units.
inline constexpr int kShift = 15;
inline constexpr double kKr = 0.2126, kKb = 0.0722, kKg = 1 - kKr - kKb;
inline constexpr double kCScale = 224.0 / 255.0;
constexpr int Fixed(double c) { return static_cast<int>(c * (1 << kShift) + (c >= 0 ? 0.5 : -0.5)); }

// Luma in 1/256 units: 47 + 157 + 16 = 220, so white maps to 235 and black to 16
// (16-bit lanes vectorise twice as wide; within one code value of exact).
inline constexpr int kYR8 = 47, kYG8 = 157, kYB8 = 16;
inline constexpr int kYOffset8 = (16 << 8) + 128;
static_assert(kYR8 * 255 + kYG8 * 255 + kYB8 * 255 + kYOffset8 < 65536, "luma must fit 16 bits");
// Cb = (B - Y') / (2 (1 - Kb)),  Cr = (R - Y') / (2 (1 - Kr)),  Y' = Kr R + Kg G + Kb B
inline constexpr int kUR = Fixed(-kKr / (2 * (1 - kKb)) * kCScale), kUG = Fixed(-kKg / (2 * (1 - kKb)) * kCScale);
inline constexpr int kUB = Fixed(0.5 * kCScale);
inline constexpr int kVR = Fixed(0.5 * kCScale), kVG = Fixed(-kKg / (2 * (1 - kKr)) * kCScale);
inline constexpr int kVB = Fixed(-kKb / (2 * (1 - kKr)) * kCScale);
// Chroma from 2x2 sums (4x the value), hence the two extra bits of shift.
inline constexpr int kCOffset = (128 << (kShift + 2)) + (1 << (kShift + 1));

LC_HOST_DEVICE inline uint8_t Luma(int r, int g, int b) {
  return static_cast<uint8_t>(static_cast<uint16_t>(kYR8 * r + kYG8 * g + kYB8 * b + kYOffset8) >> 8);
}
// From the sums of a 2x2 block's channels.
LC_HOST_DEVICE inline uint8_t Cb(int r4, int g4, int b4) {
  return static_cast<uint8_t>((kUR * r4 + kUG * g4 + kUB * b4 + kCOffset) >> (kShift + 2));
}
LC_HOST_DEVICE inline uint8_t Cr(int r4, int g4, int b4) {
  return static_cast<uint8_t>((kVR * r4 + kVG * g4 + kVB * b4 + kCOffset) >> (kShift + 2));
}

}  // namespace bt709
}  // namespace lingcast
