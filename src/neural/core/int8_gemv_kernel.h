// The launcher of the fused int8 GEMV kernel (int8_gemv.cu), kept free of
// libtorch and CUDA headers so that nvcc compiles the kernel alone and the C++
// side (int8_gemv.cc) needs no CUDA language. Users call int8_gemv.h instead.
#pragma once

namespace lingcast::neural {

inline constexpr int kInt8GemvMaxRows = 8;

// y (m, n) = x (m, k) · (w (n, k) · scales (n))ᵀ + bias (n), all contiguous on one
// GPU; x, scales, bias and y are fp16 (bf16 = false) or bf16; bias may be null.
struct Int8GemvArgs {
  const void* x = nullptr;
  const signed char* w = nullptr;
  const void* scales = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  int m = 0;
  int n = 0;
  int k = 0;
  bool bf16 = false;
};

// Enqueues the product on `stream` (a cudaStream_t). nullptr when launched, else
// the CUDA error's text.
const char* LaunchInt8Gemv(const Int8GemvArgs& args, void* stream);

}  // namespace lingcast::neural
