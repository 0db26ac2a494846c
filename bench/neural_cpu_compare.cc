// neural_cpu_compare: our side of tools/neural/ct2_cpu_compare.sh, which times
// transformers and CTranslate2 on the SAME checkpoints and inputs and puts the
// three side by side (src/neural/README.md, "CPU: against CTranslate2").
//
//   build/bench/neural_cpu_compare INPUTS MARIAN_DIR WHISPER_DIR [RUNS]
//
// INPUTS is a safetensors file written by tools/neural/ct2_cpu_compare.py:
// marian_ids_b1 (1, S) and marian_ids_b16 (16, S) int64, marian_new_tokens and
// whisper_prompt / whisper_new_tokens int64, whisper_features (1, 80, 3000) f32.
// Timed (median of RUNS after one warm-up), on the CPU, fp32, greedy:
//   marian_b1, marian_b16  Generate of exactly marian_new_tokens tokens (eos and
//                          pad suppressed, as the other engines are told to)
//   whisper_encoder        Encode of the 30 s window
//   whisper_decode         Generate of exactly whisper_new_tokens tokens after
//                          the prompt, on the encoder output (encoder excluded)
// Threads: libtorch's default (one per core) unless LINGCAST_COMPARE_THREADS
// is set. With LINGCAST_COMPARE_PROFILE=FILE nothing is timed: one batch-1 Marian
// decode and one Whisper decode (after a warm-up of each) are recorded with
// libtorch's profiler into FILE (a chrome trace). Output lines, parsed by the
// Python side:
//   RESULT <name> <median ms> <new tokens per run>
//   TOKENS <name> <row> <ids after the prompt...>
// Never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/types.h>
#include <torch/version.h>
#include <ATen/Parallel.h>

#include "neural/core/safetensors.h"
#include "neural/marian/marian_model.h"
#include "neural/whisper/whisper_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;
using lingcast::neural::SafetensorsFile;
using lingcast::neural::WhisperModel;
using Sequences = std::vector<std::vector<std::int64_t>>;

template <typename F>
double MedianMs(F&& f, int runs) {
  f();  // warm-up: allocator, first-call paths
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void PrintTokens(const char* name, const Sequences& sequences, std::size_t prompt_length) {
  for (std::size_t row = 0; row < sequences.size(); ++row) {
    std::printf("TOKENS %s %zu", name, row);
    for (std::size_t i = prompt_length; i < sequences[row].size(); ++i) {
      std::printf(" %lld", static_cast<long long>(sequences[row][i]));
    }
    std::printf("\n");
  }
}

std::vector<std::int64_t> ToVector(const torch::Tensor& ids) {
  const torch::Tensor flat = ids.to(torch::kLong).contiguous();
  return std::vector<std::int64_t>(flat.data_ptr<std::int64_t>(), flat.data_ptr<std::int64_t>() + flat.numel());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: neural_cpu_compare INPUTS MARIAN_DIR WHISPER_DIR [RUNS]\n");
    return 2;
  }
  const std::string inputs_path = argv[1], marian_dir = argv[2], whisper_dir = argv[3];
  const int runs = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  if (const char* threads = std::getenv("LINGCAST_COMPARE_THREADS")) torch::set_num_threads(std::atoi(threads));
  torch::NoGradGuard no_grad;
  std::printf("neural_cpu_compare: libtorch %s, cpu fp32, %d intra-op threads, %d inter-op threads, %d runs\n",
              TORCH_VERSION, torch::get_num_threads(), at::get_num_interop_threads(), runs);
  std::printf("parallel info: %s\n", at::get_parallel_info().c_str());

  const auto inputs = SafetensorsFile::Open(inputs_path);
  const ModelOptions cpu{torch::kCPU, torch::kFloat};
  const char* profile = std::getenv("LINGCAST_COMPARE_PROFILE");

  auto marian = MarianModel::Load(marian_dir, cpu);
  GenerationOptions marian_options = marian->DefaultGenerationOptions();
  marian_options.max_new_tokens = ToVector(inputs->Load("marian_new_tokens")).front();
  marian_options.num_beams = 1;
  marian_options.forced_eos_token_id.reset();
  marian_options.suppressed_tokens = {marian_options.eos_token_id, marian_options.pad_token_id};
  const torch::Tensor marian_b1 = inputs->Load("marian_ids_b1").to(torch::kLong);
  auto whisper = WhisperModel::Load(whisper_dir, cpu);
  const torch::Tensor features = inputs->Load("whisper_features").to(torch::kFloat);
  GenerationOptions whisper_options;
  whisper_options.prompt = ToVector(inputs->Load("whisper_prompt"));
  whisper_options.eos_token_id = whisper_options.pad_token_id = whisper->config().eos_token_id;
  whisper_options.suppressed_tokens = {whisper->config().eos_token_id};
  whisper_options.max_new_tokens = ToVector(inputs->Load("whisper_new_tokens")).front();
  if (profile != nullptr) {  // profile only: one batch-1 Marian decode and one Whisper decode, warm
    const torch::Tensor encoded = whisper->Encode(features);
    marian->Generate(marian_b1, torch::ones_like(marian_b1), marian_options);
    whisper->Generate(encoded, whisper_options);
    torch::autograd::profiler::RecordProfile record(std::string{profile});
    marian->Generate(marian_b1, torch::ones_like(marian_b1), marian_options);
    whisper->Generate(encoded, whisper_options);
    return 0;
  }
  for (const char* name : {"marian_b1", "marian_b16"}) {
    const torch::Tensor ids = inputs->Load(std::string(name) == "marian_b1" ? "marian_ids_b1" : "marian_ids_b16")
                                  .to(torch::kLong);
    const torch::Tensor mask = torch::ones_like(ids);
    Sequences out;
    const double ms = MedianMs([&] { out = marian->Generate(ids, mask, marian_options); }, runs);
    std::int64_t tokens = 0;
    for (const auto& row : out) tokens += static_cast<std::int64_t>(row.size()) - 1;
    std::printf("RESULT %s %.3f %lld\n", name, ms, static_cast<long long>(tokens));
    PrintTokens(name, out, 1);
    std::fflush(stdout);
  }

  torch::Tensor encoded;
  const double encoder_ms = MedianMs([&] { encoded = whisper->Encode(features); }, runs);
  std::printf("RESULT whisper_encoder %.3f 0\n", encoder_ms);
  Sequences out;
  const double decode_ms = MedianMs([&] { out = whisper->Generate(encoded, whisper_options); }, runs);
  std::printf("RESULT whisper_decode %.3f %lld\n", decode_ms, static_cast<long long>(whisper_options.max_new_tokens));
  PrintTokens("whisper_decode", out, whisper_options.prompt.size());
  std::fflush(stdout);

  return 0;
}
