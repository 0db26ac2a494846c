// Ops: the stateless tensor functions the layers are built from (the middle of
// the tensors -> ops -> layers -> models stack). Each takes and returns libtorch
// tensors on any device and dtype; none allocates state.
#pragma once

#include <cstdint>
#include <string>

#include <torch/types.h>
#include <torch/utils.h>

namespace lingcast::neural {

struct LinearWeights {
  torch::Tensor weight;  // (out, in), as PyTorch's nn.Linear stores it; int8 when `scales` is defined
  torch::Tensor bias;    // (out) or undefined
  // INT8 weight-only quantization (quantization.h): one scale per output row, in
  // the compute dtype; the real weight is weight[o] * scales[o].
  torch::Tensor scales;
  // Whether this weight's product runs through libtorch's int8 kernel
  // (_weight_int8pack_mm: checked at quantization time on this weight's shape
  // and device) rather than dequantize-then-matmul.
  bool int8_kernel = false;
  // Whether products of a few rows on CUDA may run through our fused int8 GEMV
  // kernel (int8_gemv.h; Int8Kernel::kAuto) rather than dequantize-then-matmul.
  bool int8_gemv = false;
  // On a CPU with AVX-512 VNNI (int8_gemm_cpu.h): each int8 row's sum (int32)
  // and, unless the table is also an embedding (kept once), the weight packed
  // for many-row products; the product then runs through our VNNI kernels.
  torch::Tensor cpu_int8_row_sums;
  torch::Tensor cpu_int8_packed;
  // On a CPU with AVX2 but no VNNI (int8_gemv_avx2.h): products of a few rows
  // run through our AVX2 GEMV, more rows through GEMMs over dequantized blocks.
  bool cpu_int8_avx2 = false;
};

struct LayerNormWeights {
  torch::Tensor weight;
  torch::Tensor bias;
  double eps = 1e-5;
};

enum class Activation { kRelu, kGelu, kGeluTanh, kSilu };

// transformers' ACT2FN names: "relu", "gelu", "gelu_new"/"gelu_pytorch_tanh"/
// "gelu_fast" (tanh approximation), "swish"/"silu". Throws kUnimplemented naming
// `field` and the value for any other.
Activation ParseActivation(const std::string& name, const std::string& field);

// x W^T + b; an int8 weight goes through Int8Linear (quantization.h).
torch::Tensor Linear(const torch::Tensor& x, const LinearWeights& w);
torch::Tensor LayerNorm(const torch::Tensor& x, const LayerNormWeights& w);
torch::Tensor Activate(const torch::Tensor& x, Activation activation);

// Marian's sinusoidal position table (num_positions, dim): sin of pos / 10000^(2i/dim)
// in the first half of each row, cos in the second half (not interleaved), computed
// in double precision as the reference does, then rounded to float.
torch::Tensor SinusoidalPositions(std::int64_t num_positions, std::int64_t dim);

// (N, T, H*Dh) <-> (N, H, T, Dh).
torch::Tensor SplitHeads(const torch::Tensor& x, std::int64_t heads);
torch::Tensor MergeHeads(const torch::Tensor& x);

// softmax(q k^T * scale + mask) v over (N, H, T, Dh) tensors; `additive_mask`
// (broadcastable to (N, H, Tq, Tk), 0 where allowed and the dtype's lowest value
// where not) may be undefined.
torch::Tensor Attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& additive_mask, double scale);

// (N, S) bool "keep" mask -> (N, 1, 1, S) additive mask in `dtype`.
torch::Tensor PaddingMask(const torch::Tensor& keep, torch::ScalarType dtype);
// Causal additive mask (1, 1, t, past + t) for t new positions after `past` cached ones.
torch::Tensor CausalMask(std::int64_t past, std::int64_t t, const torch::TensorOptions& options);
// The static-shape twin: additive mask (1, 1, t, capacity) in `dtype` on `positions`'
// device, where query i (at positions[i], int64 on the device) sees keys 0 ..
// positions[i]. Computed on the device: nothing waits for the host.
torch::Tensor PositionMask(const torch::Tensor& positions, std::int64_t capacity, torch::ScalarType dtype);

}  // namespace lingcast::neural
