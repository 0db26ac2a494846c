// vits_bench: VITS (MMS-TTS) synthesis speed on libtorch, as a real-time factor
// (synthesis wall time / audio duration; lower is faster).
//
//   build/bench/vits_bench [REFERENCE.json]   (CUDA when available, else CPU)
//
// 1. the tiny committed checkpoint (src/neural/testdata/vits_tiny) on the CPU;
// 2. random weights at facebook/mms-tts-eng's size (hidden 192, 6 layers,
//    stochastic durations, HiFi-GAN 512 channels x 8,8,2,2), one 60-character
//    sentence (121 tokens with blanks), fp16 and fp32 on a GPU (fp32 on a CPU).
// REFERENCE.json is what `tools/neural/make_vits_fixtures.py --bench FILE` wrote
// for transformers on the same sizes in the same device call: the ratio is printed
// beside each figure. Prints figures; never fails on time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

#include "neural/vits_model.h"

namespace {

using lingcast::neural::VitsConfig;
using lingcast::neural::VitsModel;
using lingcast::neural::VitsModelOptions;
using lingcast::neural::VitsOutput;

struct Timing {
  double seconds_per_run;
  double audio_seconds;
  double rtf;
};

Timing TimeSynthesis(const VitsModel& model, const torch::Tensor& ids, int runs) {
  const bool cuda = model.options().device.is_cuda();
  for (int i = 0; i < 3; ++i) model.Synthesize(ids);  // warm-up
  if (cuda) torch::cuda::synchronize();
  double samples = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) {
    lingcast::neural::VitsSynthesisOptions options;
    options.seed = static_cast<std::uint64_t>(i);
    const VitsOutput out = model.Synthesize(ids, {}, options);
    samples += static_cast<double>(out.lengths[0]);
  }
  if (cuda) torch::cuda::synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double audio = samples / static_cast<double>(model.config().sampling_rate);
  return Timing{seconds / runs, audio / runs, seconds / audio};
}

}  // namespace

int main(int argc, char** argv) {
  torch::NoGradGuard no_grad;
  const bool cuda = torch::cuda::is_available();
  std::printf("vits_bench: libtorch %s, device %s, %d CPU threads\n", TORCH_VERSION, cuda ? "cuda" : "cpu",
              torch::get_num_threads());
  nlohmann::json reference;
  if (argc > 1) {
    std::ifstream in(argv[1]);
    if (in) reference = nlohmann::json::parse(in, nullptr, false);
  }

  {
    auto model = VitsModel::Load(std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/vits_tiny");
    const torch::Tensor ids = torch::randint(1, 33, {1, 121}, torch::kLong);
    const Timing t = TimeSynthesis(*model, ids, 20);
    std::printf("tiny vits (hidden 16), cpu fp32: %.2f ms for %.3f s of audio, rtf %.4f\n", t.seconds_per_run * 1e3,
                t.audio_seconds, t.rtf);
  }

  VitsConfig mms;  // VitsConfig's defaults are facebook/mms-tts-eng's sizes
  std::vector<std::pair<VitsModelOptions, const char*>> variants;
  if (cuda) {
    variants.push_back({VitsModelOptions{torch::kCUDA, torch::kHalf}, "float16"});
    variants.push_back({VitsModelOptions{torch::kCUDA, torch::kFloat}, "float32"});
  } else {
    variants.push_back({VitsModelOptions{torch::kCPU, torch::kFloat}, "float32"});
  }
  for (const auto& [options, label] : variants) {
    auto model = VitsModel::Random(mms, options, 1);
    const torch::Tensor ids = torch::randint(1, 38, {1, 121}, torch::kLong);
    const Timing t = TimeSynthesis(*model, ids, cuda ? 20 : 2);
    std::printf("mms-tts-eng size (random), %s %s: %8.2f ms for %.2f s of audio, rtf %.4f", cuda ? "cuda" : "cpu",
                label, t.seconds_per_run * 1e3, t.audio_seconds, t.rtf);
    if (reference.is_object() && reference.contains(label)) {
      const double ref_rtf = reference[label]["rtf"].get<double>();
      std::printf("; transformers rtf %.4f (%.2f ms for %.2f s): %.1fx faster", ref_rtf,
                  reference[label]["seconds"].get<double>() * 1e3, reference[label]["audio_seconds"].get<double>(),
                  ref_rtf / t.rtf);
    }
    std::printf("\n");
  }
  return 0;
}
