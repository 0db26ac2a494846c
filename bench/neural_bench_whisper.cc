// neural_bench_whisper: Whisper speed on libtorch.
//
//   build/bench/neural_bench_whisper [CHECKPOINT_DIR [fp16]]   (CUDA when available, else CPU)
//   LINGCAST_NEURAL_BENCH_DEVICE=cpu build/bench/neural_bench_whisper
//
// ("fp16": the CUDA fp16 variant only, e.g. for whisper-medium.)
// Whisper-small size (d_model 768, 12+12 layers, 12 heads, FFN 3072, vocabulary
// 51865, 80 mel bins): random weights of our own, or, given CHECKPOINT_DIR, the
// checkpoint there and the 30 s window of features in its features.safetensors
// (tools/neural/gpu_encoder.sh writes both from transformers, so the reference
// is timed on the same weights and input in the same device call; when the file
// also holds "encoder_fp32", transformers' fp32 encoder output, the difference of
// ours from it is printed). One 30 s window of features:
//   encoder    the encoder on the window: the default path (on CUDA one CUDA
//              graph replay), and kernel by kernel (EncoderPath::kEager)
//   decode 32  greedy decoding of exactly 32 tokens after the 4-token prompt
//              (<|endoftext|> suppressed), the encoder not included
//   generate   encoder + decode 32, what transformers' generate() times
//   sessions   N decoders (1, 2, 4, 8) stepping 32 tokens each from their own
//              threads, as the server's sessions do: each alone (the default) and
//              joined into one pass per step (the step batcher,
//              whisper/whisper_step_batcher.h); wall time per step of all N after
//              one untimed step in each thread (a new thread's first step on CUDA
//              is printed apart), and the ratio joined / alone (the reference is
//              the alone run)
// each by the default path (on CUDA: static caches, on-device logits processors,
// the step replayed from a CUDA graph) and by the eager one (caches grown step by
// step, scores to the host every step, the encoder eager).
// The reference (transformers, fp16, SDPA, same sizes and inputs) is timed by
// tools/neural/make_whisper_fixtures.py --bench in the same device call
// (tools/neural/gpu_all.sh prints both), or by tools/neural/gpu_encoder.sh on
// the same weights. Prints figures; never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>

#include "neural/core/safetensors.h"
#include "neural/whisper/whisper_model.h"

namespace {

using lingcast::neural::EncoderPath;
using lingcast::neural::GenerationOptions;
using lingcast::neural::ModelOptions;
using lingcast::neural::WhisperConfig;
using lingcast::neural::WhisperModel;

template <typename F>
double MedianMs(F&& f, int runs, bool cuda) {
  f();  // warm-up
  if (cuda) torch::cuda::synchronize();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    if (cuda) torch::cuda::synchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Wall time per step (ms) of all `decoders` decoders over `encoded`, each
// stepping `steps` tokens from a thread of its own after the 4-token prompt.
// Every thread first takes one step untimed (a new thread's first use of
// the device costs far more than a step: `first_step_ms`, the slowest), then
// all start together.
double ConcurrentStepMs(const WhisperModel& model, const torch::Tensor& encoded, int decoders, int steps, bool cuda,
                        double* first_step_ms = nullptr) {
  std::vector<std::unique_ptr<lingcast::neural::WhisperDecoderState>> states;
  const torch::Tensor prompt =
      torch::tensor(std::vector<std::int64_t>{50258, 50259, 50359, 50363}, torch::kLong).view({1, -1});
  for (int d = 0; d < decoders; ++d) {
    states.push_back(model.StartDecoder(encoded, 1, 5 + steps));
    states.back()->Prefill(prompt.to(model.options().device));
  }
  const torch::Tensor token = torch::full({1}, 440, torch::dtype(torch::kLong).device(model.options().device));
  if (cuda) torch::cuda::synchronize();
  using Clock = std::chrono::steady_clock;
  std::latch warmed(decoders);
  std::vector<Clock::time_point> starts(decoders), ends(decoders);
  std::vector<double> first_ms(decoders);
  std::vector<std::thread> threads;
  for (int d = 0; d < decoders; ++d) {
    threads.emplace_back([&, d] {
      const auto first = Clock::now();
      states[d]->Step(token);
      if (cuda) torch::cuda::synchronize();
      first_ms[d] = std::chrono::duration<double, std::milli>(Clock::now() - first).count();
      warmed.arrive_and_wait();
      starts[d] = Clock::now();
      for (int s = 0; s < steps; ++s) states[d]->Step(token);
      if (cuda) torch::cuda::synchronize();
      ends[d] = Clock::now();
      states[d].reset();
    });
  }
  for (std::thread& thread : threads) thread.join();
  if (first_step_ms != nullptr) *first_step_ms = *std::max_element(first_ms.begin(), first_ms.end());
  const auto start = *std::min_element(starts.begin(), starts.end());
  const auto end = *std::max_element(ends.begin(), ends.end());
  return std::chrono::duration<double, std::milli>(end - start).count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
  torch::NoGradGuard no_grad;
  const char* device_env = std::getenv("LINGCAST_NEURAL_BENCH_DEVICE");
  const bool cuda = device_env != nullptr ? std::string(device_env) == "cuda" : torch::cuda::is_available();
  std::printf("neural_bench_whisper: libtorch %s, device %s, %d CPU threads\n", TORCH_VERSION, cuda ? "cuda" : "cpu",
              torch::get_num_threads());

  WhisperConfig small;
  small.d_model = 768;
  small.encoder_layers = small.decoder_layers = 12;
  small.encoder_attention_heads = small.decoder_attention_heads = 12;
  small.encoder_ffn_dim = small.decoder_ffn_dim = 3072;
  small.vocab_size = 51865;
  std::vector<std::pair<ModelOptions, const char*>> variants;
  if (cuda) {
    variants.push_back({ModelOptions{torch::kCUDA, torch::kHalf}, "cuda fp16"});
    if (!(argc > 2 && std::string(argv[2]) == "fp16")) variants.push_back({ModelOptions{torch::kCUDA, torch::kFloat}, "cuda fp32"});
  } else {
    variants.push_back({ModelOptions{torch::kCPU, torch::kFloat}, "cpu fp32"});
  }
  const std::string checkpoint = argc > 1 ? argv[1] : "";
  torch::Tensor features = torch::rand({1, 80, 3000}) * 2.0 - 1.0;
  torch::Tensor reference_encoded;
  if (!checkpoint.empty()) {
    const auto file = lingcast::neural::SafetensorsFile::Open(checkpoint + "/features.safetensors");
    features = file->Load("features").to(torch::kFloat);
    if (file->Contains("encoder_fp32")) reference_encoded = file->Load("encoder_fp32").to(torch::kFloat);
  }
  std::printf("weights: %s\n", checkpoint.empty() ? "random (WhisperModel::Random, seed 1)" : checkpoint.c_str());
  for (const auto& [options, label] : variants) {
    auto model = checkpoint.empty() ? WhisperModel::Random(small, options, 1) : WhisperModel::Load(checkpoint, options);
    GenerationOptions g;
    g.prompt = {50258, 50259, 50359, 50363};  // sot, <|en|>, transcribe, notimestamps
    g.eos_token_id = g.pad_token_id = 50257;
    g.suppressed_tokens = {50257};
    g.max_new_tokens = 32;
    const int runs = cuda ? 20 : 2;
    torch::Tensor encoded;
    // Features already on the device in the compute dtype, as transformers' are
    // timed (a copy from the host would add ~0.1 ms to a ~2 ms pass).
    const torch::Tensor on_device = features.to(options.device, options.dtype);
    const double encoder_eager_ms = MedianMs([&] { encoded = model->Encode(on_device, EncoderPath::kEager); }, runs, cuda);
    const torch::Tensor eager_encoded = encoded.to(torch::kFloat);
    const double encoder_ms = MedianMs([&] { encoded = model->Encode(on_device); }, runs, cuda);
    const auto graphs = model->encoder_graph_stats();
    const double graph_vs_eager =
        ((encoded.to(torch::kFloat) - eager_encoded).abs().max() / eager_encoded.abs().max()).item<double>();
    std::printf("%s encoder (30 s window): default path %.3f ms (%s), eager %.3f ms, ratio %.2fx; "
                "default vs eager max difference %.2e of the largest magnitude",
                label, encoder_ms, graphs.replayed > 0 ? "CUDA graph replay" : "eager", encoder_eager_ms,
                encoder_eager_ms / encoder_ms, graph_vs_eager);
    if (reference_encoded.defined()) {
      const double vs_reference =
          ((encoded.to(torch::kFloat).cpu() - reference_encoded).abs().max() / reference_encoded.abs().max()).item<double>();
      std::printf(", vs transformers fp32 %.2e", vs_reference);
    }
    std::printf("\n");
    // The default path (static caches and a CUDA graph on CUDA), then the eager one.
    lingcast::neural::StaticSearchReport report;
    const double decode_ms = MedianMs([&] { model->Generate(encoded, g, &report); }, runs, cuda);
    const double generate_ms = MedianMs([&] { model->Generate(model->Encode(features), g); }, runs, cuda);
    GenerationOptions eager = g;
    eager.path = lingcast::neural::DecodePath::kEager;
    const double eager_decode_ms = MedianMs([&] { model->Generate(encoded, eager); }, runs, cuda);
    const double eager_generate_ms =
        MedianMs([&] { model->Generate(model->Encode(features, EncoderPath::kEager), eager); }, runs, cuda);
    const WhisperConfig& c = model->config();
    std::printf("whisper d_model %lld, %lld+%lld layers, %s: encoder %.2f ms, decode 32 tokens %.1f ms, generate %.1f ms "
                "(%s; eager: decode %.1f ms, generate %.1f ms)\n",
                static_cast<long long>(c.d_model), static_cast<long long>(c.encoder_layers),
                static_cast<long long>(c.decoder_layers), label, encoder_ms, decode_ms, generate_ms,
                report.cuda_graph ? "cuda graph" : (cuda ? "static, no graph" : "eager"), eager_decode_ms, eager_generate_ms);

    // Concurrent sessions' steps: alone (the default) against joined in one pass.
    if (checkpoint.empty()) {
      ModelOptions joined_options = options;
      joined_options.step_batching.enabled = true;
      joined_options.step_batching.window = std::chrono::minutes(1);  // every pass holds all N
      auto joined = WhisperModel::Random(small, joined_options, 1);
      const torch::Tensor one = encoded.narrow(0, 0, 1);
      for (int n : {1, 2, 4, 8}) {
        std::vector<double> alone_ms, joined_ms, first_ms;
        for (int r = 0; r < 3; ++r) {  // alternating, the median of 3
          double first = 0;
          alone_ms.push_back(ConcurrentStepMs(*model, one, n, 32, cuda, &first));
          first_ms.push_back(first);
          joined_ms.push_back(ConcurrentStepMs(*joined, one, n, 32, cuda));
        }
        std::sort(alone_ms.begin(), alone_ms.end());
        std::sort(joined_ms.begin(), joined_ms.end());
        std::printf("%s sessions: %d decoders stepping at once, per step of all: alone %.2f ms, joined %.2f ms, "
                    "joined / alone %.2fx (a new thread's first step, untimed: %.1f / %.1f / %.1f ms)\n",
                    label, n, alone_ms[1], joined_ms[1], joined_ms[1] / alone_ms[1], first_ms[0], first_ms[1],
                    first_ms[2]);
      }
    }
  }
  return 0;
}
