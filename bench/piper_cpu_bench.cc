// piper_cpu_bench: our VITS engine's synthesis time for a Piper voice on the CPU,
// sentence by sentence, for bench/piper_compare.py, which times onnxruntime (Piper's
// own runtime) on the same ids beside it.
//
//   piper_cpu_bench --model DIR --sentences FILE [--ids-out FILE]
//   piper_cpu_bench --model DIR --sentences FILE --pairs ROUNDS
//
// Each sentence is phonemized by espeak-ng and encoded as Piper does
// (PiperPhonemes), then synthesized whole (VitsModel::Synthesize, the voice's own
// noise and length scales, seed 0) with libtorch's intra-op threads on every
// available core. One sentence is synthesized untimed first (the first call's
// set-up); loading is not timed. Prints one JSON object: per sentence the
// milliseconds and the samples. --ids-out writes the ids, one JSON list a line.
//
// --pairs: would the server gain from batching two sessions' lines into one
// synthesis? Consecutive sentences are taken as pairs, as if two sessions asked
// for a line each at the same moment, and each pair is synthesized three ways:
// one after the other on one thread; side by side on two threads (what two
// sessions sharing the voice do now); and as one batch of 2, padded to the
// longer line and masked. The ways alternate in order from round to round. Prints
// each way's total milliseconds per round and its ratio to side by side. Run it
// with OMP_WAIT_POLICY=PASSIVE, as lingcast runs its engines: libgomp reads the
// policy when it loads, before main, and spinning threads make side by side
// look slow (0.73-0.83x on 2 cores, against 0.95-1.06x passive).
// Never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
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

namespace {

double MillisecondsSince(std::chrono::steady_clock::time_point begin) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
}

// Two lines as one (2, T) batch, the shorter padded with id 0 and masked out.
std::int64_t SynthesizeBatch(const VitsModel& model, const std::vector<std::int64_t>& a,
                             const std::vector<std::int64_t>& b) {
  const std::int64_t longest = static_cast<std::int64_t>(std::max(a.size(), b.size()));
  torch::Tensor input_ids = torch::zeros({2, longest}, torch::kInt64);
  torch::Tensor mask = torch::zeros({2, longest}, torch::kInt64);
  for (int row = 0; row < 2; ++row) {
    const auto& line = row == 0 ? a : b;
    const std::int64_t length = static_cast<std::int64_t>(line.size());
    input_ids[row].narrow(0, 0, length).copy_(torch::tensor(line));
    mask[row].narrow(0, 0, length).fill_(1);
  }
  const auto output = model.Synthesize(input_ids, mask);
  return output.lengths[0] + output.lengths[1];
}

int RunPairs(const VitsModel& model, const std::vector<std::vector<std::int64_t>>& ids, int rounds, int threads) {
  if (ids.size() < 2) {
    std::fprintf(stderr, "piper_cpu_bench: --pairs needs at least two sentences\n");
    return 1;
  }
  auto alone = [&](const std::vector<std::int64_t>& row) {
    return model.Synthesize(torch::tensor(row).unsqueeze(0)).lengths[0];
  };
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  if (wait_policy == nullptr || std::string(wait_policy) != "PASSIVE") {
    std::fprintf(stderr, "piper_cpu_bench: OMP_WAIT_POLICY is not PASSIVE, as lingcast sets it; side by side will look slower\n");
  }
  enum Way { kSequential, kSideBySide, kBatched };
  const char* names[] = {"one after the other", "side by side (2 threads)", "one batch of 2"};
  nlohmann::json result = {{"threads", threads},
                           {"omp_wait_policy", wait_policy == nullptr ? "" : wait_policy},
                           {"pairs", ids.size() / 2},
                           {"rounds", nlohmann::json::array()}};
  for (int round = 0; round < rounds; ++round) {
    double total_ms[3] = {0, 0, 0};
    std::int64_t samples[3] = {0, 0, 0};
    for (std::size_t i = 0; i + 1 < ids.size(); i += 2) {
      const auto& a = ids[i];
      const auto& b = ids[i + 1];
      for (int k = 0; k < 3; ++k) {
        const int way = (k + round + static_cast<int>(i / 2)) % 3;
        const auto begin = std::chrono::steady_clock::now();
        if (way == kSequential) {
          samples[way] += alone(a) + alone(b);
        } else if (way == kSideBySide) {
          std::int64_t from_b = 0;
          std::thread other([&] {
            torch::NoGradGuard no_grad;
            from_b = alone(b);
          });
          samples[way] += alone(a);
          other.join();
          samples[way] += from_b;
        } else {
          samples[way] += SynthesizeBatch(model, a, b);
        }
        total_ms[way] += MillisecondsSince(begin);
      }
    }
    nlohmann::json line;
    for (int way = 0; way < 3; ++way) {
      line[names[way]] = {{"ms", total_ms[way]}, {"samples", samples[way]},
                          {"ratio_to_side_by_side", total_ms[way] / total_ms[kSideBySide]}};
      std::fprintf(stderr, "round %d: %-26s %8.0f ms  %.2fx side by side\n", round + 1, names[way], total_ms[way],
                   total_ms[way] / total_ms[kSideBySide]);
    }
    result["rounds"].push_back(line);
  }
  std::printf("%s\n", result.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_dir, sentences_path, ids_out;
  int pair_rounds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--model") == 0) model_dir = argv[i + 1];
    else if (std::strcmp(argv[i], "--sentences") == 0) sentences_path = argv[i + 1];
    else if (std::strcmp(argv[i], "--ids-out") == 0) ids_out = argv[i + 1];
    else if (std::strcmp(argv[i], "--pairs") == 0) pair_rounds = std::atoi(argv[i + 1]);
    else { std::fprintf(stderr, "piper_cpu_bench: unknown option %s\n", argv[i]); return 2; }
  }
  if (model_dir.empty() || sentences_path.empty()) {
    std::fprintf(stderr, "usage: piper_cpu_bench --model DIR --sentences FILE [--ids-out FILE | --pairs ROUNDS]\n");
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
  if (pair_rounds > 0) return RunPairs(*model, ids, pair_rounds, threads);
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
