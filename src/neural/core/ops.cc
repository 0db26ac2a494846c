#include "neural/core/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <torch/version.h>

#include "neural/core/neural_error.h"
#include "neural/core/quantization.h"

// scaled_dot_product_attention (fused flash / memory-efficient kernels on CUDA)
// with an explicit scale exists from libtorch 2.1; Debian's 1.13 computes the
// same function with two matrix products.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
#define LINGCAST_HAVE_SDPA 1
#endif

namespace lingcast::neural {

Activation ParseActivation(const std::string& name, const std::string& field) {
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return Activation::kGeluTanh;
  if (name == "swish" || name == "silu") return Activation::kSilu;
  Fail(ErrorCode::kUnimplemented,
       field + " \"" + name + "\" is not supported (relu, gelu, gelu_new, gelu_pytorch_tanh, swish, silu)");
}

torch::Tensor Linear(const torch::Tensor& x, const LinearWeights& w) {
  if (w.scales.defined()) return Int8Linear(x, w);
  if (x.device().is_cpu() && x.numel() == x.size(-1) && x.scalar_type() == torch::kFloat) {
    // One row (a decode step): a matrix-vector product. The BLAS's GEMM
    // packs the whole weight into its buffers first, which for the 51865-row
    // output projection is a second pass over 106 MB every step.
    std::vector<std::int64_t> shape = x.sizes().vec();
    shape.back() = w.weight.size(0);
    const torch::Tensor row = x.reshape({x.size(-1)});
    return (w.bias.defined() ? torch::addmv(w.bias, w.weight, row) : torch::mv(w.weight, row)).view(shape);
  }
  return torch::linear(x, w.weight, w.bias);
}

torch::Tensor LayerNorm(const torch::Tensor& x, const LayerNormWeights& w) {
  return torch::layer_norm(x, {x.size(-1)}, w.weight, w.bias, w.eps);
}

torch::Tensor Activate(const torch::Tensor& x, Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return torch::relu(x);
    case Activation::kGelu:
      return torch::gelu(x);
    case Activation::kGeluTanh:
      return torch::gelu(x, "tanh");
    case Activation::kSilu:
      return torch::silu(x);
  }
  Fail(ErrorCode::kInternal, "unknown activation");
}

torch::Tensor SinusoidalPositions(std::int64_t num_positions, std::int64_t dim) {
  const std::int64_t sin_columns = (dim + 1) / 2;  // the reference's "sentinel"
  std::vector<float> table(static_cast<std::size_t>(num_positions * dim));
  for (std::int64_t pos = 0; pos < num_positions; ++pos) {
    float* row = table.data() + pos * dim;
    for (std::int64_t j = 0; j < dim; ++j) {
      const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / dim);
      // Even j feed the sin half in order, odd j the cos half.
      if (j % 2 == 0) {
        row[j / 2] = static_cast<float>(std::sin(angle));
      } else {
        row[sin_columns + j / 2] = static_cast<float>(std::cos(angle));
      }
    }
  }
  return torch::from_blob(table.data(), {num_positions, dim}, torch::kFloat).clone();
}

torch::Tensor SplitHeads(const torch::Tensor& x, std::int64_t heads) {
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}

torch::Tensor MergeHeads(const torch::Tensor& x) {
  return x.transpose(1, 2).reshape({x.size(0), x.size(2), x.size(1) * x.size(3)});
}

torch::Tensor Attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                        const torch::Tensor& additive_mask, double scale) {
#ifdef LINGCAST_HAVE_SDPA
  return at::scaled_dot_product_attention(q, k, v, additive_mask.defined() ? std::optional<at::Tensor>(additive_mask) : std::nullopt,
                                          0.0, false, scale);
#else
  constexpr std::int64_t kQueryBlock = 256;
  if (!additive_mask.defined() && q.device().is_cpu() && q.size(-2) > 2 * kQueryBlock) {
    // Long self-attention (the encoder: 1500 positions) a block of queries at a
    // time: the scores of one block stay in cache, and the whole (N, H, T, T)
    // score tensor (72 MB for Whisper base's 30 s window) is never resident.
    torch::Tensor out = torch::empty(q.sizes(), q.options().dtype(v.scalar_type()));
    const torch::Tensor keys = k.transpose(-1, -2);
    for (std::int64_t at = 0; at < q.size(-2); at += kQueryBlock) {
      const std::int64_t n = std::min(kQueryBlock, q.size(-2) - at);
      const torch::Tensor scores = torch::matmul(q.narrow(-2, at, n) * scale, keys);
      out.narrow(-2, at, n).copy_(torch::matmul(torch::softmax(scores, -1), v));
    }
    return out;
  }
  torch::Tensor scores = torch::matmul(q * scale, k.transpose(-1, -2));
  if (additive_mask.defined()) scores = scores + additive_mask;
  return torch::matmul(torch::softmax(scores, -1), v);
#endif
}

namespace {
double Lowest(torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kHalf:
      return -65504.0;
    case torch::kBFloat16:
      return -3.3895313892515355e38;
    case torch::kDouble:
      return std::numeric_limits<double>::lowest();
    default:
      return std::numeric_limits<float>::lowest();
  }
}
}  // namespace

torch::Tensor PaddingMask(const torch::Tensor& keep, torch::ScalarType dtype) {
  torch::Tensor mask = torch::zeros(keep.sizes(), keep.options().dtype(dtype));
  mask.masked_fill_(keep.logical_not(), Lowest(dtype));
  return mask.view({keep.size(0), 1, 1, keep.size(1)});
}

torch::Tensor CausalMask(std::int64_t past, std::int64_t t, const torch::TensorOptions& options) {
  // Query i (at position past + i) sees keys 0 .. past + i.
  torch::Tensor mask = torch::full({t, past + t}, Lowest(options.dtype().toScalarType()), options);
  mask = torch::triu(mask, past + 1);
  return mask.view({1, 1, t, past + t});
}

torch::Tensor PositionMask(const torch::Tensor& positions, std::int64_t capacity, torch::ScalarType dtype) {
  const std::int64_t t = positions.size(0);
  const torch::Tensor keys = torch::arange(capacity, positions.options()).view({1, capacity});
  torch::Tensor mask = torch::zeros({t, capacity}, positions.options().dtype(dtype));
  mask.masked_fill_(keys.gt(positions.view({t, 1})), Lowest(dtype));
  return mask.view({1, 1, t, capacity});
}

}  // namespace lingcast::neural
