// neural_bench: Marian decoding speed on libtorch, in tokens per second.
//
//   build/bench/neural_bench            (CUDA when available, else CPU)
//   LINGCAST_NEURAL_BENCH_DEVICE=cpu build/bench/neural_bench
//
// 1. the tiny committed checkpoint (src/neural/testdata/marian_tiny), greedy;
// 2. random weights at OPUS-MT base size (d_model 512, 6+6 layers, 8 heads, FFN
//    2048, vocabulary 65001), greedy, 64 new tokens for every input (eos is
//    suppressed so every run decodes the same length), batch 1 and 16.
// The reference (transformers' generate on the same sizes) is timed by
// tools/neural/make_marian_fixtures.py in the same call (tools/neural/gpu_all.sh);
// each size is timed by the default path (on CUDA: static caches, input padded
// to its bucket and the CUDA graph kept across calls), the eager one and the
// static path capturing its graph per call (before kept graphs). src/neural/README.md
// puts the two side by side. Prints figures; never fails on time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

#include "neural/marian/marian_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::MarianConfig;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;

struct Timing {
  double seconds_per_run;
  double tokens_per_second;
};

Timing TimeGenerate(const MarianModel& model, const torch::Tensor& ids, const GenerationOptions& options, int runs) {
  const torch::Tensor mask = torch::ones_like(ids);
  std::int64_t tokens = 0;
  for (const auto& seq : model.Generate(ids, mask, options)) tokens += static_cast<std::int64_t>(seq.size()) - 1;  // warm-up
  if (model.options().device.is_cuda()) torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) model.Generate(ids, mask, options);
  if (model.options().device.is_cuda()) torch::cuda::synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / runs;
  return Timing{seconds, static_cast<double>(tokens) / seconds};
}

}  // namespace

int main() {
  torch::NoGradGuard no_grad;
  const char* device_env = std::getenv("LINGCAST_NEURAL_BENCH_DEVICE");
  const bool cuda = device_env != nullptr ? std::string(device_env) == "cuda" : torch::cuda::is_available();
  std::printf("neural_bench: libtorch %s, device %s, %d CPU threads\n", TORCH_VERSION, cuda ? "cuda" : "cpu",
              torch::get_num_threads());

  {
    auto model = MarianModel::Load(std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/marian_tiny");
    GenerationOptions options = model->DefaultGenerationOptions();
    options.max_new_tokens = 16;
    const torch::Tensor ids = torch::randint(2, 300, {4, 12}, torch::kLong);
    const Timing t = TimeGenerate(*model, ids, options, 20);
    std::printf("tiny marian (d32, 2+2 layers), cpu fp32, batch 4: %.2f ms/run, %.0f tokens/s\n",
                t.seconds_per_run * 1e3, t.tokens_per_second);
  }

  MarianConfig base;
  base.vocab_size = base.decoder_vocab_size = 65001;
  base.pad_token_id = base.decoder_start_token_id = 65000;
  base.eos_token_id = 0;
  base.scale_embedding = true;
  std::vector<std::pair<ModelOptions, const char*>> variants;
  if (cuda) {
    variants.push_back({ModelOptions{torch::kCUDA, torch::kHalf}, "cuda fp16"});
    variants.push_back({ModelOptions{torch::kCUDA, torch::kFloat}, "cuda fp32"});
  } else {
    variants.push_back({ModelOptions{torch::kCPU, torch::kFloat}, "cpu fp32"});
  }
  for (const auto& [options, label] : variants) {
    auto model = MarianModel::Random(base, options, 1);
    GenerationOptions generation = model->DefaultGenerationOptions();
    generation.max_new_tokens = 64;
    generation.forced_eos_token_id.reset();
    generation.suppressed_tokens = {base.eos_token_id, base.pad_token_id};
    for (std::int64_t batch : {1, 16}) {
      const torch::Tensor ids = torch::randint(5, 60000, {batch, 24}, torch::kLong);
      const Timing t = TimeGenerate(*model, ids, generation, cuda ? 5 : 2);
      GenerationOptions eager_options = generation;
      eager_options.path = lingcast::neural::DecodePath::kEager;
      const Timing eager = TimeGenerate(*model, ids, eager_options, cuda ? 5 : 2);
      // The static path with a graph captured per call (before kept graphs).
      GenerationOptions per_call_options = generation;
      per_call_options.path = lingcast::neural::DecodePath::kStatic;
      const Timing per_call = TimeGenerate(*model, ids, per_call_options, cuda ? 5 : 2);
      std::printf("opus-mt base size (random), %s, batch %2lld: %8.1f ms/run, %8.0f tokens/s (%s; eager %8.0f tokens/s; "
                  "static, graph per call %8.0f tokens/s)\n",
                  label, static_cast<long long>(batch), t.seconds_per_run * 1e3, t.tokens_per_second,
                  cuda ? "buckets + kept cuda graph" : "eager", eager.tokens_per_second, per_call.tokens_per_second);
    }
  }
  return 0;
}
