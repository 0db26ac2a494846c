#include "neural/core/device_choice.h"

#include <cstdlib>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

torch::Device ParseDevice(const std::string& device) {
  if (device == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  if (device == "cpu") return torch::kCPU;
  int index = 0;
  if (device.rfind("cuda:", 0) == 0) {
    const std::string digits = device.substr(5);
    char* end = nullptr;
    const long parsed = digits.empty() ? -1 : std::strtol(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0' || parsed < 0 || parsed > 1024) {
      Fail(ErrorCode::kInvalidArgument, "--device \"" + device + "\": the GPU index must be a number (cuda:0, cuda:1, ...)");
    }
    index = static_cast<int>(parsed);
  } else if (device != "cuda") {
    Fail(ErrorCode::kInvalidArgument, "--device \"" + device + "\" is not supported (auto, cpu, cuda, cuda:N)");
  }
  if (!torch::cuda::is_available()) {
    Fail(ErrorCode::kInvalidArgument, "--device " + device +
                                          ": libtorch sees no CUDA device here (a CPU-only libtorch, such as Debian's, or "
                                          "no GPU driver); use --device cpu or auto");
  }
  const int count = static_cast<int>(torch::cuda::device_count());
  if (index >= count) {
    Fail(ErrorCode::kInvalidArgument, "--device " + device + ": there " + (count == 1 ? "is 1 GPU" : "are " + std::to_string(count) + " GPUs") +
                                          " (cuda:0 to cuda:" + std::to_string(count - 1) + ")");
  }
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

torch::ScalarType ParseDtype(const std::string& dtype, const torch::Device& device, EngineKind kind) {
  if (dtype == "auto") {
    if (!device.is_cuda() || kind != EngineKind::kMarian) return torch::kFloat;
    return torch::kHalf;
  }
  torch::ScalarType parsed;
  if (dtype == "float32" || dtype == "fp32") {
    parsed = torch::kFloat;
  } else if (dtype == "float16" || dtype == "fp16") {
    parsed = torch::kHalf;
  } else if (dtype == "bfloat16" || dtype == "bf16") {
    parsed = torch::kBFloat16;
  } else {
    Fail(ErrorCode::kInvalidArgument, "--dtype \"" + dtype + "\" is not supported (auto, float32, float16, bfloat16)");
  }
  if (parsed != torch::kFloat && !device.is_cuda()) {
    Fail(ErrorCode::kInvalidArgument, "--dtype " + dtype + " needs a GPU (--device cuda): on the CPU the engines compute in float32");
  }
  return parsed;
}

}  // namespace

DeviceChoice ChooseDevice(const std::string& device, const std::string& dtype, EngineKind kind) {
  DeviceChoice choice;
  choice.device = ParseDevice(device);
  choice.dtype = ParseDtype(dtype, choice.device, kind);
  return choice;
}

std::string DescribeDevice(const DeviceChoice& choice) {
  std::string dtype = "float32";
  if (choice.dtype == torch::kHalf) dtype = "float16";
  if (choice.dtype == torch::kBFloat16) dtype = "bfloat16";
  return choice.device.str() + " " + dtype;
}

}  // namespace lingcast::neural
