// neural_memory_bench: the memory of the three neural engines loaded together,
// as a GPU-equipped lingcast would hold them for a show: whisper-small (speech
// recognition), OPUS-MT base (translation; one direction, then both) and
// MMS-TTS (the avatar's voice), random weights at the published sizes, each
// run through its CUDA-graph path (every line twice, so graphs are recorded and
// replayed; Marian at several source buckets, VITS at several lengths) so its
// working memory (KV caches, graph pools, kept decoders, activations) is counted;
// and the first-call latency of each engine at new shapes, which warming at
// load (--warm) is meant to remove: run it once without and once with --warm.
//
//   build/bench/neural_memory_bench [--warm] [--vits-cache-mib=N] [--vits-warm=TOKENS,FRAMES]
//                                   (CUDA when available, else CPU)
//
// --warm does at load what the engines' options do by default on CUDA:
// Whisper: a window encoded and decoded twice (WhisperAsrOptions::warm_at_load);
// Marian: MarianModel::WarmBuckets(DefaultWarmSourceLengths(), batch 1);
// VITS: VitsModel::WarmGraphs() (VitsWarmup's defaults). The load and warm-up
// times are printed.
//
// On CUDA it prints, after each step, the device memory the process holds
// (cudaMemGetInfo: the CUDA context and libraries included) and what PyTorch's
// caching allocator has allocated and reserved; on the CPU, the process's
// resident memory. The target: the three on one GPU in <= 2 GB. Prints
// figures; never fails on size.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

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

#include "neural/core/cache_budget.h"
#include "neural/marian/marian_model.h"
#include "neural/vits/vits_model.h"
#include "neural/whisper/whisper_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::MarianConfig;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;
using lingcast::neural::VitsConfig;
using lingcast::neural::VitsModel;
using lingcast::neural::VitsModelOptions;
using lingcast::neural::VitsWarmup;
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

GenerationOptions MarianGeneration(const MarianModel& model, const MarianConfig& config) {
  GenerationOptions generation = model.DefaultGenerationOptions();
  generation.max_new_tokens = 64;
  generation.forced_eos_token_id.reset();
  generation.suppressed_tokens = {config.eos_token_id, config.pad_token_id};
  return generation;
}

void Translate(const MarianModel& model, const MarianConfig& config, std::int64_t length = 24, std::int64_t batch = 1) {
  const torch::Tensor ids = torch::randint(5, 60000, {batch, length}, torch::kLong);
  model.Generate(ids, torch::ones_like(ids), MarianGeneration(model, config));
}

// Milliseconds `f` takes, the device's work included.
template <typename F>
double TimedMs(F&& f, bool cuda) {
  if (cuda) torch::cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  f();
  if (cuda) torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

constexpr double kToMiB = 1.0 / (1024.0 * 1024.0);

}  // namespace

int main(int argc, char** argv) {
  torch::NoGradGuard no_grad;
  bool warm = false;
  std::int64_t vits_cache_bytes = VitsModelOptions{}.graph_cache_bytes;
  VitsWarmup vits_warmup;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--warm") == 0) warm = true;
    if (std::strncmp(argv[i], "--vits-cache-mib=", 17) == 0) vits_cache_bytes = std::atoll(argv[i] + 17) << 20;
    if (std::strncmp(argv[i], "--vits-warm=", 12) == 0) {  // TOKENS,FRAMES
      vits_warmup.max_tokens = std::atoll(argv[i] + 12);
      const char* comma = std::strchr(argv[i], ',');
      if (comma != nullptr) vits_warmup.max_frames = std::atoll(comma + 1);
    }
  }
  const bool cuda = torch::cuda::is_available();
#ifndef LINGCAST_BENCH_HAVE_CUDA
  if (cuda) std::printf("(this build has no CUDA allocator statistics: resident memory only)\n");
#endif
  std::printf("neural_memory_bench: libtorch %s, device %s, %s\n", TORCH_VERSION, cuda ? "cuda fp16" : "cpu fp32",
              warm ? "buckets warmed at load (--warm)" : "nothing warmed at load");
  const torch::Device device = cuda ? torch::kCUDA : torch::kCPU;
  const torch::ScalarType dtype = cuda ? torch::kHalf : torch::kFloat;
  if (cuda) torch::ones({1}, torch::TensorOptions().device(device));  // the CUDA context first
  Report(cuda ? "start (the CUDA context)" : "start", cuda);

  // Whisper-small: a 30 s window, 32 tokens greedy (what one live decode does).
  WhisperConfig small;
  small.d_model = 768;
  small.encoder_layers = small.decoder_layers = 12;
  small.encoder_attention_heads = small.decoder_attention_heads = 12;
  small.encoder_ffn_dim = small.decoder_ffn_dim = 3072;
  small.vocab_size = 51865;
  std::shared_ptr<const WhisperModel> whisper;
  const double whisper_load_ms = TimedMs([&] { whisper = WhisperModel::Random(small, ModelOptions{device, dtype}, 1); }, cuda);
  GenerationOptions g;
  g.prompt = {50258, 50259, 50359, 50363};
  g.eos_token_id = g.pad_token_id = 50257;
  g.suppressed_tokens = {50257};
  g.max_new_tokens = 32;
  auto transcribe = [&](const torch::Tensor& features) { whisper->Generate(whisper->Encode(features), g); };
  double whisper_warm_ms = 0;
  if (warm) {
    const torch::Tensor silence = torch::zeros({1, 80, 3000});
    whisper_warm_ms = TimedMs([&] {
      for (int pass = 0; pass < 2; ++pass) transcribe(silence);
      lingcast::neural::ReleaseCachedDeviceMemory(device);  // as WhisperAsrModel::Load does
    }, cuda);
  }
  std::printf("whisper-small: load %.0f ms, warm-up %.0f ms\n", whisper_load_ms, whisper_warm_ms);
  Report("whisper-small loaded", cuda);
  const torch::Tensor window = torch::rand({1, 80, 3000}) * 2.0 - 1.0;
  std::printf("  whisper window (encode + 32 tokens), calls 1, 2, 3:");
  for (int call = 0; call < 3; ++call) std::printf(" %.1f ms", TimedMs([&] { transcribe(window); }, cuda));
  std::printf("\n");
  Report("+ windows transcribed (encoder graph)", cuda);

  // OPUS-MT base: lines of 4 lengths in 4 source buckets, twice.
  const MarianConfig base = OpusMtBase();
  std::shared_ptr<const MarianModel> marian;
  const double marian_load_ms = TimedMs([&] { marian = MarianModel::Random(base, ModelOptions{device, dtype}, 1); }, cuda);
  double marian_warm_ms = 0;
  std::int64_t marian_warmed = 0;
  if (warm) {
    marian_warm_ms = TimedMs([&] {
      marian_warmed = marian->WarmBuckets(MarianModel::DefaultWarmSourceLengths(), 1, MarianGeneration(*marian, base));
    }, cuda);
  }
  std::printf("opus-mt base: load %.0f ms, warm-up %.0f ms (%lld buckets)\n", marian_load_ms, marian_warm_ms,
              static_cast<long long>(marian_warmed));
  Report("+ opus-mt base (one direction) loaded", cuda);
  for (int pass = 0; pass < 2; ++pass) {
    std::printf("  marian lines of 11, 23, 37, 50 tokens (64 new), pass %d:", pass + 1);
    for (const std::int64_t length : {11, 23, 37, 50}) {
      std::printf(" %.1f ms", TimedMs([&] { Translate(*marian, base, length); }, cuda));
    }
    std::printf("\n");
  }
  Report("+ lines translated (kept decoders)", cuda);

  // MMS-TTS: 4 lines of different lengths, twice.
  VitsConfig mms;  // VitsConfig's defaults are facebook/mms-tts-eng's sizes
  std::shared_ptr<const VitsModel> vits;
  VitsModelOptions vits_options{device, dtype};
  vits_options.graph_cache_bytes = vits_cache_bytes;
  const double vits_load_ms = TimedMs([&] { vits = VitsModel::Random(mms, vits_options, 1); }, cuda);
  double vits_warm_ms = 0;
  std::int64_t vits_warmed = 0;
  if (warm) vits_warm_ms = TimedMs([&] { vits_warmed = vits->WarmGraphs(vits_warmup); }, cuda);
  std::printf("mms-tts: load %.0f ms, warm-up %.0f ms (%lld graphs, up to %lld tokens and %lld frames)\n", vits_load_ms,
              vits_warm_ms, static_cast<long long>(vits_warmed), static_cast<long long>(vits_warmup.max_tokens),
              static_cast<long long>(vits_warmup.max_frames));
  Report("+ mms-tts-eng loaded", cuda);
  for (int pass = 0; pass < 2; ++pass) {
    std::printf("  vits lines of 41, 87, 121, 163 tokens, pass %d:", pass + 1);
    for (const std::int64_t tokens : {41, 87, 121, 163}) {
      const torch::Tensor ids = torch::randint(1, 38, {1, tokens}, torch::kLong);
      std::printf(" %.1f ms", TimedMs([&] { vits->Synthesize(ids); }, cuda));
    }
    std::printf("\n");
  }
  Report("+ lines spoken (stage graphs)", cuda);
  const auto kept = marian->KeptDecoderStats();
  const auto vits_graphs = vits->graph_stats();
  const auto encoder_graphs = whisper->encoder_graph_stats();
  std::printf("=> whisper-small + opus-mt + mms-tts after their graph paths (target: <= 2048 MiB on the GPU)\n");
  std::printf("   caches: whisper encoder graphs %.0f MiB + pool %.0f MiB (%lld captured), marian kept decoders %.0f MiB (%lld reused of %lld), "
              "vits graphs %.0f MiB + pool %.0f MiB (bound %.0f MiB; %lld captured, %lld evicted, %lld failed, %lld pool restarts)\n",
              static_cast<double>(encoder_graphs.bytes) * kToMiB, static_cast<double>(encoder_graphs.pool_bytes) * kToMiB,
              static_cast<long long>(encoder_graphs.captured),
              static_cast<double>(kept.bytes) * kToMiB, static_cast<long long>(kept.reused), static_cast<long long>(kept.decodes),
              static_cast<double>(vits_graphs.bytes) * kToMiB, static_cast<double>(vits_graphs.pool_bytes) * kToMiB,
              static_cast<double>(vits_cache_bytes) * kToMiB, static_cast<long long>(vits_graphs.captured),
              static_cast<long long>(vits_graphs.evicted), static_cast<long long>(vits_graphs.failed),
              static_cast<long long>(vits_graphs.pool_restarts));

  // Batches: the byte bound (ModelOptions::graph_cache_bytes) keeps the kept decoders in check.
  for (const std::int64_t batch : {4, 16, 32}) {
    for (int pass = 0; pass < 2; ++pass) Translate(*marian, base, 24, batch);
  }
  const auto batched = marian->KeptDecoderStats();
  std::printf("   after batches of 4, 16, 32 (twice each): marian kept decoders %.0f MiB (bound %.0f MiB), %lld evicted\n",
              static_cast<double>(batched.bytes) * kToMiB,
              static_cast<double>(marian->options().graph_cache_bytes) * kToMiB, static_cast<long long>(batched.evicted));
  Report("+ marian batches of 4, 16 and 32", cuda);

  auto reverse = MarianModel::Random(base, ModelOptions{device, dtype}, 2);
  for (int pass = 0; pass < 2; ++pass) Translate(*reverse, base);
  Report("+ opus-mt, the other direction, run twice", cuda);
  return 0;
}
