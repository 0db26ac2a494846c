// int8 matrix products on the CPU with AVX-512 VNNI (vpdpbusd), for int8
// weights (quantization.h: one scale per output row).
//
// Debian's libtorch 1.13 has no int8 product for us (no FBGEMM, no oneDNN
// quantized engine, no _weight_int8pack_mm), so without this an int8 weight was
// dequantized to fp32 on every call, slower than fp32 itself. Here the
// activations are quantized dynamically, one scale per row (symmetric, as
// CTranslate2 does: q = round(x * 127 / max|x|)), shifted by 128 into unsigned
// bytes (vpdpbusd multiplies unsigned by signed bytes; the shift is taken back
// with each weight row's sum), multiplied in int32 and scaled back to float:
//   y[m][n] = (sum_k u[m][k] w[n][k] - 128 sum_k w[n][k]) * sx[m] * sw[n] + b[n].
//
// Two kernels: for a few rows (a decode step) a row-major GEMV over the int8
// weight as quantization.h stores it (memory-bound: each weight byte read once);
// for many rows (the encoder, cross-attention keys and values, a prompt) a
// register-blocked GEMM over a copy packed in VNNI order (16 output rows x 4
// inputs per 64-byte vector). Threads: libtorch's intra-op pool (at::parallel_for).
#pragma once

#include <cstdint>

#include <torch/types.h>

namespace lingcast::neural {

// Whether this CPU runs the kernels (AVX-512 F, BW and VNNI).
bool CpuInt8GemmSupported();

// Per output row: the sum of its int8 weights (int32, (N)), what the kernels
// take back for the +128 shift. `weight`: (N, K) int8, contiguous.
torch::Tensor Int8RowSums(const torch::Tensor& weight);

// `weight` (N, K) int8 packed for the GEMM kernel: (ceil(N / 16), ceil(K / 4),
// 16, 4) int8, zeros past N and K. Rows 16 i .. 16 i + 15 are block i, so a
// slice of whole blocks (N a multiple of 16: fused q, k, v) is a view.
torch::Tensor PackInt8ForGemm(const torch::Tensor& weight);

// x (..., K) float32 -> (..., N) float32 for an int8 `weight` (N, K) with
// `scales` (N) float32, `row_sums` from Int8RowSums, `packed` from
// PackInt8ForGemm (may be undefined: the GEMV kernel then serves every row
// count) and `bias` (N) float32 or undefined. CpuInt8GemmSupported() must hold.
torch::Tensor CpuInt8Linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                            const torch::Tensor& row_sums, const torch::Tensor& packed, const torch::Tensor& bias);

}  // namespace lingcast::neural
