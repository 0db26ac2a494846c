// Where a neural engine runs and in which precision, from the user's words
// (`--device`, `--dtype`). The engines themselves take a torch::Device and a
// dtype (ModelOptions, VitsModelOptions); this is the one place that turns
// "auto", "cuda:1" or "bf16" into them, so every command and plug-in entry point
// reads the flags the same way and refuses a bad one with the same line.
#pragma once

#include <string>

#include <torch/torch.h>

namespace lingcast::neural {

// Which kind of engine is placed: the automatic precision differs.
enum class EngineKind {
  kWhisper,  // float32 on CUDA: the streaming session's decodes in float16 took
             // 22 ms to 1.5 s on the H200, in float32 22 to 146 ms, with the
             // same words (docs/gpu.md); a 30 s recording took 32 s against 10.5 s
  kMarian,   // float16 on CUDA
  kVits,     // float32 on CUDA: as fast as float16 with graphs (README), and its
             // spline flows stay away from float16's rounding
};

struct DeviceChoice {
  torch::Device device = torch::kCPU;
  torch::ScalarType dtype = torch::kFloat;
};

// `device`: "auto" (a CUDA device when libtorch sees one, else the CPU), "cpu",
// "cuda" (the first GPU) or "cuda:N". `dtype`: "auto" (above; always float32 on
// the CPU), "float32"/"fp32", "float16"/"fp16", "bfloat16"/"bf16".
// Throws NeuralError(kInvalidArgument) naming the flag for a word it does not
// know, a CUDA device libtorch does not see (a CPU-only libtorch, no driver, an
// index past the GPUs there are), or half precision on the CPU.
DeviceChoice ChooseDevice(const std::string& device, const std::string& dtype, EngineKind kind);

// "cuda:0 float16", "cpu float32": for logs and reports.
std::string DescribeDevice(const DeviceChoice& choice);

}  // namespace lingcast::neural
