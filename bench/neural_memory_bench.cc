// neural_memory_bench: the memory of the three neural engines loaded together,
// as a GPU-equipped lingcast would hold them for a show: whisper-small (speech
// recognition), OPUS-MT base (translation; one direction, then both) and
// MMS-TTS (the avatar's voice), random weights at the published sizes, each run
// once so its working memory (KV caches, CUDA graphs, activations) is counted.
//
//   build/bench/neural_memory_bench           (CUDA when available, else CPU)
//
// On CUDA it prints, after each step, the device memory the process holds
// (cudaMemGetInfo: the CUDA context and libraries included) and what PyTorch's
// caching allocator has allocated and reserved; on the CPU, the process's
// resident memory. The target: the three on one GPU in <= 2 GB. Prints
// figures; never fails on size.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

#ifdef LINGCAST_BENCH_HAVE_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

#include "neural/marian_model.h"
#include "neural/vits_model.h"
#include "neural/whisper_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::MarianConfig;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;
using lingcast::neural::VitsConfig;
using lingcast::neural::VitsModel;
using lingcast::neural::VitsModelOptions;
using lingcast::neural::WhisperConfig;
using lingcast::neural::WhisperModel;

constexpr double kMiB = 1024.0 * 1024.0;

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / kMiB;
}

void Report(const char* step, bool cuda) {
#ifdef LINGCAST_BENCH_HAVE_CUDA
  if (cuda) {
    torch::cuda::synchronize();
    std::size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    const auto aggregate = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    std::printf("  %-44s device used %7.0f MiB  allocated %7.0f MiB (peak %7.0f)  reserved %7.0f MiB\n", step,
                static_cast<double>(total - free) / kMiB,
                static_cast<double>(stats.allocated_bytes[aggregate].current) / kMiB,
                static_cast<double>(stats.allocated_bytes[aggregate].peak) / kMiB,
                static_cast<double>(stats.reserved_bytes[aggregate].current) / kMiB);
    return;
  }
#endif
  (void)cuda;
  std::printf("  %-44s resident %7.0f MiB\n", step, ResidentMiB());
}

MarianConfig OpusMtBase() {
  MarianConfig base;  // MarianConfig's other defaults are OPUS-MT base's
  base.vocab_size = base.decoder_vocab_size = 65001;
  base.pad_token_id = base.decoder_start_token_id = 65000;
  base.eos_token_id = 0;
  base.scale_embedding = true;
  return base;
}

void Translate(const MarianModel& model, const MarianConfig& config) {
  GenerationOptions generation = model.DefaultGenerationOptions();
  generation.max_new_tokens = 64;
  generation.forced_eos_token_id.reset();
  generation.suppressed_tokens = {config.eos_token_id, config.pad_token_id};
  const torch::Tensor ids = torch::randint(5, 60000, {1, 24}, torch::kLong);
  model.Generate(ids, torch::ones_like(ids), generation);
}

}  // namespace

int main() {
  torch::NoGradGuard no_grad;
  const bool cuda = torch::cuda::is_available();
#ifndef LINGCAST_BENCH_HAVE_CUDA
  if (cuda) std::printf("(this build has no CUDA allocator statistics: resident memory only)\n");
#endif
  std::printf("neural_memory_bench: libtorch %s, device %s\n", TORCH_VERSION, cuda ? "cuda fp16" : "cpu fp32");
  const torch::Device device = cuda ? torch::kCUDA : torch::kCPU;
  const torch::ScalarType dtype = cuda ? torch::kHalf : torch::kFloat;
  if (cuda) torch::ones({1}, torch::TensorOptions().device(device));  // the CUDA context first
  Report(cuda ? "start (the CUDA context)" : "start", cuda);

  WhisperConfig small;
  small.d_model = 768;
  small.encoder_layers = small.decoder_layers = 12;
  small.encoder_attention_heads = small.decoder_attention_heads = 12;
  small.encoder_ffn_dim = small.decoder_ffn_dim = 3072;
  small.vocab_size = 51865;
  auto whisper = WhisperModel::Random(small, ModelOptions{device, dtype}, 1);
  Report("whisper-small loaded", cuda);
  {
    GenerationOptions g;
    g.prompt = {50258, 50259, 50359, 50363};
    g.eos_token_id = g.pad_token_id = 50257;
    g.suppressed_tokens = {50257};
    g.max_new_tokens = 32;
    const torch::Tensor features = torch::rand({1, 80, 3000}) * 2.0 - 1.0;
    whisper->Generate(whisper->Encode(features), g);
  }
  Report("+ one 30 s window transcribed", cuda);

  const MarianConfig base = OpusMtBase();
  auto marian = MarianModel::Random(base, ModelOptions{device, dtype}, 1);
  Report("+ opus-mt base (one direction) loaded", cuda);
  Translate(*marian, base);
  Report("+ one line translated", cuda);

  VitsConfig mms;  // VitsConfig's defaults are facebook/mms-tts-eng's sizes
  auto vits = VitsModel::Random(mms, VitsModelOptions{device, dtype}, 1);
  Report("+ mms-tts-eng loaded", cuda);
  vits->Synthesize(torch::randint(1, 38, {1, 121}, torch::kLong));
  Report("+ one line spoken (121 tokens)", cuda);
  std::printf("=> whisper-small + opus-mt + mms-tts, each run once (target: <= 2048 MiB on the GPU)\n");

  auto reverse = MarianModel::Random(base, ModelOptions{device, dtype}, 2);
  Translate(*reverse, base);
  Report("+ opus-mt, the other direction, run once", cuda);
  return 0;
}
