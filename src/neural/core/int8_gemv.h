// The product of a few activation rows with an int8 weight on CUDA, in one kernel
// of our own (int8_gemv.cu): each int8 weight is read once, widened in registers
// and accumulated in fp32, with the row scale and bias applied at the end.
// quantization.cc's Int8Linear uses it for decode-sized inputs (at most
// kInt8GemvMaxRows rows); larger inputs (prefill, the encoder) stay on
// dequantize-then-matmul, where the matrix product's tensor cores win.
//
// Built only when this libtorch has CUDA and CMake finds nvcc
// (LINGCAST_HAVE_INT8_GEMV); elsewhere Int8GemvBuilt() is false and Int8GemvRuns()
// never holds.
#pragma once

#include <torch/types.h>

#include "neural/core/int8_gemv_kernel.h"
#include "neural/core/ops.h"

namespace lingcast::neural {

// Whether this build has the kernel.
bool Int8GemvBuilt();

// Whether Int8Gemv computes x · wᵀ for this input and quantized weight: built,
// x on CUDA in fp16 or bf16 with at most kInt8GemvMaxRows rows (all dimensions
// but the last), the weight's scales (and bias) in x's dtype on x's device,
// the int8 rows contiguous.
bool Int8GemvRuns(const torch::Tensor& x, const LinearWeights& w);

// x (..., in) -> (..., out) for a quantized `w`; only where Int8GemvRuns holds
// (else kInternal).
torch::Tensor Int8Gemv(const torch::Tensor& x, const LinearWeights& w);

}  // namespace lingcast::neural
