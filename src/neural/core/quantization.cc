#include "neural/core/quantization.h"

#include <algorithm>
#include <set>

#include <torch/version.h>

#include "neural/core/int8_gemm_cpu.h"
#include "neural/core/int8_gemv_avx2.h"
#include "neural/core/int8_gemv.h"
#include "neural/core/neural_error.h"

#if __has_include(<ATen/ops/_weight_int8pack_mm.h>)
#include <ATen/ops/_weight_int8pack_mm.h>
#define LINGCAST_HAVE_INT8PACK_MM 1
#endif

namespace lingcast::neural {
namespace {

bool ComputeDtype(torch::ScalarType dtype) {
  return dtype == torch::kFloat || dtype == torch::kHalf || dtype == torch::kBFloat16;
}

torch::Tensor LibtorchInt8Product(const torch::Tensor& x2d, const LinearWeights& w) {
#ifdef LINGCAST_HAVE_INT8PACK_MM
  return at::_weight_int8pack_mm(x2d, w.weight, w.scales);
#else
  (void)x2d;
  (void)w;
  Fail(ErrorCode::kInternal, "this libtorch has no _weight_int8pack_mm");
#endif
}

// Whether libtorch's kernel runs for `w` and agrees with dequantize-then-matmul:
// tried once on two random rows (some builds declare the op but have no kernel
// for a device or dtype, or refuse some shapes).
bool LibtorchKernelRuns(const LinearWeights& w) {
  if (!Int8KernelCompiled()) return false;
  try {
    const torch::Tensor x = torch::randn({2, w.weight.size(1)}).to(w.scales.options());
    const torch::Tensor got = LibtorchInt8Product(x, w).to(torch::kFloat);
    const torch::Tensor want = torch::linear(x.to(torch::kFloat), Dequantize(w).to(torch::kFloat));
    const double largest = std::max(want.abs().max().item<double>(), 1e-6);
    const double tolerance = w.scales.scalar_type() == torch::kFloat ? 1e-4 : 3e-2;
    return got.sizes() == want.sizes() && (got - want).abs().max().item<double>() <= tolerance * largest;
  } catch (const c10::Error&) {
    return false;
  }
}

}  // namespace

Quantization ParseQuantization(const std::string& name, const std::string& field) {
  if (name == "none" || name == "off") return Quantization::kNone;
  if (name == "int8") return Quantization::kInt8;
  Fail(ErrorCode::kInvalidArgument, field + " \"" + name + "\" is not supported (none, int8)");
}

std::string QuantizationName(Quantization quantization) {
  return quantization == Quantization::kInt8 ? "int8" : "none";
}

bool Int8KernelCompiled() {
#ifdef LINGCAST_HAVE_INT8PACK_MM
  return true;
#else
  return false;
#endif
}

bool CpuInt8KernelsRun() { return CpuInt8GemmSupported() || CpuInt8GemvAvx2Supported(); }

LinearWeights QuantizeInt8(const LinearWeights& w, Int8Kernel kernel, bool pack) {
  torch::NoGradGuard no_grad;
  const torch::ScalarType dtype = w.weight.scalar_type();
  if (w.weight.dim() != 2 || !ComputeDtype(dtype)) {
    Fail(ErrorCode::kUnimplemented, "int8 quantization takes (out, in) float32, float16 or bfloat16 weights, not " +
                                        std::string(c10::toString(dtype)) + " of " +
                                        std::to_string(w.weight.dim()) + " dimensions");
  }
  // A block of rows at a time: the float temporaries stay a few MB however
  // large the weight (the 51865-row table is 106 MB in float32), which keeps
  // the peak RSS of loading near the quantized model's.
  constexpr std::int64_t kRowsPerBlock = 2048;
  const std::int64_t rows = w.weight.size(0);
  torch::Tensor scales = torch::empty({rows}, w.weight.options());
  LinearWeights q;
  q.weight = torch::empty(w.weight.sizes(), w.weight.options().dtype(torch::kChar));
  for (std::int64_t at = 0; at < rows; at += kRowsPerBlock) {
    const std::int64_t n = std::min(kRowsPerBlock, rows - at);
    const torch::Tensor block = w.weight.narrow(0, at, n).to(torch::kFloat);
    const torch::Tensor largest = block.abs().amax(1);
    // A row of zeros keeps scale 1 (its int8 values are 0 whatever the scale).
    const torch::Tensor block_scales = torch::where(largest > 0, largest / 127.0, torch::ones_like(largest)).to(dtype);
    scales.narrow(0, at, n).copy_(block_scales);
    q.weight.narrow(0, at, n).copy_((block / block_scales.to(torch::kFloat).unsqueeze(1)).round_().clamp_(-127, 127));
  }
  q.scales = scales;
  q.bias = w.bias;
  q.int8_gemv = kernel == Int8Kernel::kAuto;
  if (kernel == Int8Kernel::kDequantize || (kernel == Int8Kernel::kAuto && !w.weight.device().is_cpu())) return q;
  if (kernel == Int8Kernel::kAuto && dtype == torch::kFloat && CpuInt8GemmSupported()) {
    q.cpu_int8_row_sums = Int8RowSums(q.weight);
    if (pack) q.cpu_int8_packed = PackInt8ForGemm(q.weight);
    return q;
  }
  if (kernel == Int8Kernel::kAuto && dtype == torch::kFloat && w.weight.device().is_cpu() &&
      CpuInt8GemvAvx2Supported()) {
    q.cpu_int8_avx2 = true;
    return q;
  }
  q.int8_kernel = LibtorchKernelRuns(q);
  if (kernel == Int8Kernel::kLibtorch && !q.int8_kernel) {
    Fail(ErrorCode::kUnimplemented,
         std::string("libtorch ") + TORCH_VERSION + " has no int8 matrix product (_weight_int8pack_mm) for " +
             c10::toString(dtype) + " on " + w.weight.device().str() + " (ask for the dequantize kernel or auto)");
  }
  return q;
}

torch::Tensor Dequantize(const LinearWeights& w) { return w.weight * w.scales.unsqueeze(1); }

torch::Tensor Int8Linear(const torch::Tensor& x, const LinearWeights& w) {
  if (w.cpu_int8_row_sums.defined() && x.device().is_cpu() && x.scalar_type() == torch::kFloat) {
    return CpuInt8Linear(x, w.weight, w.scales, w.cpu_int8_row_sums, w.cpu_int8_packed, w.bias);
  }
  if (w.cpu_int8_avx2 && x.device().is_cpu() && x.scalar_type() == torch::kFloat) {
    return CpuInt8LinearAvx2(x, w.weight, w.scales, w.bias);
  }
  if (w.int8_gemv && Int8GemvRuns(x, w)) return Int8Gemv(x, w);
  torch::Tensor y;
  if (w.int8_kernel) {
    const std::int64_t in = w.weight.size(1);
    std::vector<std::int64_t> shape = x.sizes().vec();
    shape.back() = w.weight.size(0);
    y = LibtorchInt8Product(x.reshape({-1, in}).contiguous(), w).view(shape);
    return w.bias.defined() ? y + w.bias : y;
  }
  // int8 times the compute-dtype scales promotes to the compute dtype in one kernel.
  return torch::linear(x, Dequantize(w), w.bias);
}

torch::Tensor EmbeddingRows(const LinearWeights& table, const torch::Tensor& ids) {
  if (!table.scales.defined()) return torch::embedding(table.weight, ids);
  const torch::Tensor flat = ids.reshape({-1});
  std::vector<std::int64_t> shape = ids.sizes().vec();
  shape.push_back(table.weight.size(1));
  return (table.weight.index_select(0, flat) * table.scales.index_select(0, flat).unsqueeze(1)).view(shape);
}

std::int64_t DistinctBytes(const std::vector<torch::Tensor>& tensors) {
  std::set<const void*> seen;
  std::int64_t bytes = 0;
  for (const torch::Tensor& t : tensors) {
    if (!t.defined() || !seen.insert(t.storage().data()).second) continue;
    bytes += static_cast<std::int64_t>(t.storage().nbytes());
  }
  return bytes;
}

}  // namespace lingcast::neural
