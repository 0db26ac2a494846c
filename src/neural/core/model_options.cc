#include "neural/core/model_options.h"

#include "neural/core/neural_error.h"

namespace lingcast::neural {

void CheckModelOptions(const ModelOptions& options, const std::string& what) {
  const torch::ScalarType dtype = options.dtype;
  if (options.quantization == Quantization::kInt8 && dtype != torch::kFloat && dtype != torch::kHalf &&
      dtype != torch::kBFloat16) {
    Fail(ErrorCode::kInvalidArgument, what + ": int8 quantization computes in float32, float16 or bfloat16, not " +
                                          std::string(c10::toString(dtype)));
  }
}

}  // namespace lingcast::neural
