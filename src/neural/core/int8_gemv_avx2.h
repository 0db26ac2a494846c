// int8 products of a few rows on a CPU with AVX2 and FMA but no AVX-512 VNNI
// (AMD Zen 1-3, Intel before Ice Lake, most cloud VMs of those), for int8
// weights as quantization.h stores them (row-major, one scale per output row).
//
// Without it such a CPU dequantized every int8 weight to float32 on every call:
// a decode step wrote and read the 51865-row output projection as 106 MB of
// float32, which made int8 Whisper several times slower than float32 there.
// For a few rows (a decode step) a GEMV reads each weight byte once, widens it
// to float32 in registers and multiplies with the float32 activations (no
// activation quantization, so the result is the dequantized product up to
// float rounding):
//   y[m][n] = sw[n] * sum_k x[m][k] w[n][k] + b[n].
// A decode step is bound by how fast the weights stream in, so reading a
// quarter of the bytes of float32 is what it buys. Products of many rows (the
// encoder, prompts, opening scores) are compute-bound: the BLAS's GEMM runs
// them over blocks of 256 weight rows dequantized into one reused buffer.
// Threads: libtorch's intra-op pool (at::parallel_for), split over output rows.
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace lingcast::neural {

// Whether this CPU runs the kernel (AVX2 and FMA).
bool CpuInt8GemvAvx2Supported();

// The most rows of x (all dimensions but the last) the GEMV takes; beyond it
// the product runs as the BLAS's GEMM over blocks of the weight dequantized
// into one reused buffer, which costs less per row.
inline constexpr std::int64_t kAvx2GemvMaxRows = 8;

// x (..., K) float32 -> (..., N) float32 for an int8 `weight` (N, K) with
// `scales` (N) float32 and `bias` (N) float32 or undefined.
// CpuInt8GemvAvx2Supported() must hold.
torch::Tensor CpuInt8LinearAvx2(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                                const torch::Tensor& bias);

}  // namespace lingcast::neural
