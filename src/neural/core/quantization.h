// INT8 weight-only quantization of linear layers (an ops-level piece, used by
// ops.h's Linear and by the models' loaders).
//
// Symmetric, one scale per output row: scale[o] = max|W[o, :]| / 127 (rounded to
// the compute dtype), q = round(W / scale) in [-127, 127]. Activations stay in the
// compute dtype (fp32 on the CPU, fp16/bf16 on a GPU); only the weights shrink
// (int8 plus one scale per row: about a quarter of fp32, half of fp16).
//
// The product runs through libtorch's _weight_int8pack_mm where this libtorch
// declares it (PyTorch >= 2.3; not Debian's 1.13) and it runs for the weight's
// shape, dtype and device (checked once, at quantization time, against the
// dequantized product), else as dequantize-then-matmul (the int8 rows times
// their scales in one kernel, then the ordinary matrix product); on CUDA, a
// product of a few rows (decode) runs through our own fused kernel (int8_gemv.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/ops.h"

namespace lingcast::neural {

enum class Quantization { kNone, kInt8 };

// "none" (or "off") and "int8"; anything else is kInvalidArgument naming `field`
// and the value.
Quantization ParseQuantization(const std::string& name, const std::string& field);
std::string QuantizationName(Quantization quantization);

// How a quantized weight's product is computed. kAuto: on the CPU our AVX-512
// VNNI kernels (int8_gemm_cpu.h) where the CPU has them, else libtorch's int8
// kernel where it runs; on CUDA, our fused int8 GEMV (int8_gemv.h) for inputs of
// at most kInt8GemvMaxRows rows (decode) where this build has it, else
// dequantize-then-matmul (PyTorch's CUDA _weight_int8pack_mm is one thread per
// output in fp32, measured slower than dequantizing: src/neural/README.md).
// kLibtorch: that kernel wherever it runs, kUnimplemented where it does not.
// kDequantize: always dequantize.
enum class Int8Kernel { kAuto, kLibtorch, kDequantize };

// Whether this build's libtorch declares _weight_int8pack_mm.
bool Int8KernelCompiled();

// Whether int8 products on this CPU run through our kernels (int8_gemm_cpu.h
// with AVX-512 VNNI; int8_gemv_avx2.h for decode steps with AVX2) rather than
// dequantizing every weight on every call, which is slower than float32.
bool CpuInt8KernelsRun();

// `w` quantized (see above); its bias stays as it is. `w.weight` is (out, in) in
// the compute dtype (float, half or bfloat16; anything else is kUnimplemented).
// On the CPU with kAuto, where the CPU has AVX-512 VNNI, products run through
// our int8 kernels (int8_gemm_cpu.h); `pack` also keeps a copy of the weight
// packed for many-row products (the encoder, prompts), which a tied embedding
// table leaves out (its products are one row a step; the copy would double it).
// Where the CPU has AVX2 and FMA but no VNNI, products run through
// int8_gemv_avx2.h instead (no packed copy; `pack` is ignored).
LinearWeights QuantizeInt8(const LinearWeights& w, Int8Kernel kernel, bool pack = true);

// x (..., in) -> (..., out) for a quantized `w`.
torch::Tensor Int8Linear(const torch::Tensor& x, const LinearWeights& w);

// The weight in the compute dtype (the quantized rows times their scales).
torch::Tensor Dequantize(const LinearWeights& w);

// Rows `ids` (any shape) of an embedding table (vocab, dim), quantized or not:
// a tied table is stored once, as the output projection's int8 weight.
torch::Tensor EmbeddingRows(const LinearWeights& table, const torch::Tensor& ids);

// Bytes held by `tensors`, each storage counted once (tied tables and the views
// into fused projections are not counted twice).
std::int64_t DistinctBytes(const std::vector<torch::Tensor>& tensors);

}  // namespace lingcast::neural
