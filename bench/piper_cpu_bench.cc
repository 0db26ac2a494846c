// piper_cpu_bench: our VITS engine's synthesis time for a Piper voice on the CPU,
// sentence by sentence, for bench/piper_compare.py, which times onnxruntime (Piper's
// own runtime) on the same ids beside it.
//
//   piper_cpu_bench --model DIR --sentences FILE [--ids-out FILE]
//
// Each sentence is phonemized by espeak-ng and encoded as Piper does
// (PiperPhonemes), then synthesized whole (VitsModel::Synthesize, the voice's own
// noise and length scales, seed 0) with libtorch's intra-op threads on every
// available core. One sentence is synthesized untimed first (the first call's
// set-up); loading is not timed. Prints one JSON object: per sentence the
// milliseconds and the samples. --ids-out writes the ids, one JSON list a line.
// Never fails on time.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "neural/core/cpu_threads.h"
#include "neural/vits/piper_phonemes.h"
#include "neural/vits/vits_model.h"
#include "tts/espeak_engine.h"

using lingcast::EspeakEngine;
using lingcast::neural::PiperPhonemes;
using lingcast::neural::VitsModel;

int main(int argc, char** argv) {
  std::string model_dir, sentences_path, ids_out;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--model") == 0) model_dir = argv[i + 1];
    else if (std::strcmp(argv[i], "--sentences") == 0) sentences_path = argv[i + 1];
    else if (std::strcmp(argv[i], "--ids-out") == 0) ids_out = argv[i + 1];
    else { std::fprintf(stderr, "piper_cpu_bench: unknown option %s\n", argv[i]); return 2; }
  }
  if (model_dir.empty() || sentences_path.empty()) {
    std::fprintf(stderr, "usage: piper_cpu_bench --model DIR --sentences FILE [--ids-out FILE]\n");
    return 2;
  }
  const int threads = lingcast::neural::UseAvailableCpuThreads();
  const auto model = VitsModel::Load(model_dir);
  const PiperPhonemes phonemes = PiperPhonemes::Load(model_dir);
  std::vector<std::vector<std::int64_t>> ids;
  std::ifstream in(sentences_path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto clauses = EspeakEngine::PhonemizeIpa(line, phonemes.espeak_voice());
    if (!clauses.ok()) {
      std::fprintf(stderr, "piper_cpu_bench: %s\n", std::string(clauses.status().message()).c_str());
      return 1;
    }
    ids.push_back(phonemes.Encode(*clauses).ids);
  }
  if (ids.empty()) {
    std::fprintf(stderr, "piper_cpu_bench: no sentences in %s\n", sentences_path.c_str());
    return 1;
  }
  if (!ids_out.empty()) {
    std::ofstream out(ids_out);
    for (const auto& row : ids) out << nlohmann::json(row).dump() << "\n";
  }
  torch::NoGradGuard no_grad;
  auto synthesize = [&](const std::vector<std::int64_t>& row) {
    return model->Synthesize(torch::tensor(row).unsqueeze(0)).lengths[0];
  };
  synthesize(ids[0]);  // untimed: the first call's set-up
  nlohmann::json result = {{"threads", threads}, {"sample_rate", model->config().sampling_rate}, {"ms", nlohmann::json::array()},
                           {"samples", nlohmann::json::array()}};
  for (const auto& row : ids) {
    const auto begin = std::chrono::steady_clock::now();
    const std::int64_t samples = synthesize(row);
    result["ms"].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    result["samples"].push_back(samples);
  }
  std::printf("%s\n", result.dump().c_str());
  return 0;
}
