#include "neural/core/int8_gemv.h"

#include <limits>
#include <string>
#include <vector>

#include "neural/core/neural_error.h"

#ifdef LINGCAST_HAVE_INT8_GEMV
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace lingcast::neural {

bool Int8GemvBuilt() {
#ifdef LINGCAST_HAVE_INT8_GEMV
  return true;
#else
  return false;
#endif
}

bool Int8GemvRuns(const torch::Tensor& x, const LinearWeights& w) {
  if (!Int8GemvBuilt() || !x.is_cuda() || x.dim() < 1 || !w.scales.defined()) return false;
  const torch::ScalarType dtype = x.scalar_type();
  if (dtype != torch::kHalf && dtype != torch::kBFloat16) return false;
  if (x.numel() == 0 || x.numel() / x.size(-1) > kInt8GemvMaxRows) return false;
  const torch::Tensor& q = w.weight;
  if (q.scalar_type() != torch::kChar || q.dim() != 2 || !q.is_contiguous() || q.size(1) != x.size(-1)) return false;
  if (q.device() != x.device() || w.scales.scalar_type() != dtype || !w.scales.is_contiguous()) return false;
  if (w.bias.defined() && (w.bias.scalar_type() != dtype || !w.bias.is_contiguous())) return false;
  return q.size(0) <= std::numeric_limits<int>::max() && q.size(1) <= std::numeric_limits<int>::max();
}

torch::Tensor Int8Gemv(const torch::Tensor& x, const LinearWeights& w) {
  if (!Int8GemvRuns(x, w)) {
    Fail(ErrorCode::kInternal, "the int8 GEMV kernel does not take this input (" + std::string(c10::toString(x.scalar_type())) +
                                   " on " + x.device().str() + ")");
  }
#ifdef LINGCAST_HAVE_INT8_GEMV
  const c10::cuda::CUDAGuard guard(x.device());
  const torch::Tensor x2d = x.reshape({-1, x.size(-1)}).contiguous();
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape.back() = w.weight.size(0);
  torch::Tensor y = torch::empty({x2d.size(0), w.weight.size(0)}, x.options());
  Int8GemvArgs args;
  args.x = x2d.data_ptr();
  args.w = static_cast<const signed char*>(w.weight.data_ptr());
  args.scales = w.scales.data_ptr();
  args.bias = w.bias.defined() ? w.bias.data_ptr() : nullptr;
  args.y = y.data_ptr();
  args.m = static_cast<int>(x2d.size(0));
  args.n = static_cast<int>(w.weight.size(0));
  args.k = static_cast<int>(w.weight.size(1));
  args.bf16 = x.scalar_type() == torch::kBFloat16;
  if (const char* error = LaunchInt8Gemv(args, c10::cuda::getCurrentCUDAStream().stream())) {
    Fail(ErrorCode::kInternal, std::string("the int8 GEMV kernel failed to launch: ") + error);
  }
  return y.view(shape);
#else
  return {};
#endif
}

}  // namespace lingcast::neural
