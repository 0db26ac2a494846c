// marian_batch_bench: many live sessions translating one line at a time, with
// and without MarianBatcher, against the number of concurrent streams.
//
//   build/bench/marian_batch_bench            (CUDA when available, else CPU)
//   LINGCAST_NEURAL_BENCH_DEVICE=cpu build/bench/marian_batch_bench
//
// Random weights (no download): on CUDA OPUS-MT base size (d_model 512, 6+6
// layers, 8 heads, FFN 2048, vocabulary 65001), fp16; on the CPU a small Marian
// (d_model 256, 3+3 layers, FFN 1024, vocabulary 8000), fp32. Each stream is a
// thread sending its lines (random ids, 8 to 24 tokens) one after another,
// each decoded greedily to exactly `new_tokens` tokens (eos suppressed, so both
// paths do the same work). Reference in the same run: the one-at-a-time path,
// every line a batch-1 Generate, one at a time (a mutex: one device, one decode
// at a time, what sessions sharing a model do without the batcher). Prints lines/s,
// tokens/s and the latency of a line (submit to result) p50/p95 for each; never
// fails on time.
//
// Before/after kept decoders (marian_decoder_cache.h), in the same run: "before"
// is the path that captures a CUDA graph per call at the exact input shape
// (DecodePath::kStatic, the batcher with pad_to_buckets off), "after" the default
// (lines padded to buckets, decoders and graphs kept across calls). First, 8
// lines of different lengths one after another, twice over, at batch 1: the
// per-line latency p50/p95 of each path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "neural/marian/marian_batcher.h"
#include "neural/marian/marian_model.h"

namespace {

using lingcast::neural::GenerationOptions;
using lingcast::neural::MarianBatcher;
using lingcast::neural::MarianConfig;
using lingcast::neural::MarianModel;
using lingcast::neural::ModelOptions;
using Clock = std::chrono::steady_clock;
using Tokens = std::vector<std::int64_t>;

struct Run {
  double lines_per_second = 0;
  double tokens_per_second = 0;
  double p50_ms = 0;
  double p95_ms = 0;
  double mean_batch = 1;
};

// Every stream's lines, the same for both paths.
std::vector<std::vector<Tokens>> MakeLines(int streams, int lines_per_stream, std::int64_t vocabulary) {
  std::mt19937_64 random(static_cast<std::uint64_t>(streams));
  std::uniform_int_distribution<std::int64_t> length(8, 24), id(5, vocabulary - 10);
  std::vector<std::vector<Tokens>> lines(static_cast<std::size_t>(streams));
  for (auto& stream : lines) {
    for (int l = 0; l < lines_per_stream; ++l) {
      Tokens line(static_cast<std::size_t>(length(random)));
      for (auto& token : line) token = id(random);
      line.back() = 0;  // eos
      stream.push_back(line);
    }
  }
  return lines;
}

// Runs `translate` for every stream's lines, each stream on its own thread.
double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(q * static_cast<double>(values.size())))];
}

template <typename Translate>
Run Measure(const std::vector<std::vector<Tokens>>& lines, bool cuda, Translate translate) {
  std::vector<std::vector<double>> latencies(lines.size());
  std::vector<std::int64_t> tokens(lines.size(), 0);
  const auto start = Clock::now();
  {
    std::vector<std::jthread> streams;
    for (std::size_t s = 0; s < lines.size(); ++s) {
      streams.emplace_back([&, s] {
        torch::NoGradGuard no_grad;
        for (const Tokens& line : lines[s]) {
          const auto sent = Clock::now();
          const Tokens out = translate(line);
          latencies[s].push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
          tokens[s] += static_cast<std::int64_t>(out.size()) - 1;
        }
      });
    }
  }
  if (cuda) torch::cuda::synchronize();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  std::int64_t total_tokens = 0;
  for (std::size_t s = 0; s < lines.size(); ++s) {
    all.insert(all.end(), latencies[s].begin(), latencies[s].end());
    total_tokens += tokens[s];
  }
  std::sort(all.begin(), all.end());
  const auto at = [&](double q) { return all[std::min(all.size() - 1, static_cast<std::size_t>(q * all.size()))]; };
  return Run{static_cast<double>(all.size()) / seconds, static_cast<double>(total_tokens) / seconds, at(0.5), at(0.95), 1};
}

}  // namespace

int main() {
  torch::NoGradGuard no_grad;
  const char* device_env = std::getenv("LINGCAST_NEURAL_BENCH_DEVICE");
  const bool cuda = device_env != nullptr ? std::string(device_env) == "cuda" : torch::cuda::is_available();
  MarianConfig config;
  std::int64_t new_tokens = 64;
  int lines_per_stream = 8;
  if (cuda) {
    config.vocab_size = config.decoder_vocab_size = 65001;
  } else {
    config.d_model = 256;
    config.encoder_layers = config.decoder_layers = 3;
    config.encoder_attention_heads = config.decoder_attention_heads = 4;
    config.encoder_ffn_dim = config.decoder_ffn_dim = 1024;
    config.vocab_size = config.decoder_vocab_size = 8000;
    new_tokens = 16;
    lines_per_stream = 2;
  }
  config.pad_token_id = config.decoder_start_token_id = config.vocab_size - 1;
  config.eos_token_id = 0;
  config.scale_embedding = true;
  const ModelOptions model_options = cuda ? ModelOptions{torch::kCUDA, torch::kHalf} : ModelOptions{};
  auto model = MarianModel::Random(config, model_options, 1);
  GenerationOptions generation = model->DefaultGenerationOptions();
  generation.max_new_tokens = new_tokens;
  generation.num_beams = 1;
  generation.forced_eos_token_id.reset();
  generation.suppressed_tokens = {config.eos_token_id, config.pad_token_id};

  std::printf("marian_batch_bench: libtorch %s, %s, d_model %lld, %lld+%lld layers, vocabulary %lld, %lld new tokens "
              "per line, %d lines per stream, %d CPU threads, batcher window 2 ms, max batch 32\n",
              TORCH_VERSION, cuda ? "cuda fp16 (static path + CUDA graph)" : "cpu fp32 (eager)",
              static_cast<long long>(config.d_model), static_cast<long long>(config.encoder_layers),
              static_cast<long long>(config.decoder_layers), static_cast<long long>(config.vocab_size),
              static_cast<long long>(new_tokens), lines_per_stream, torch::get_num_threads());
  {  // warm-up: allocator, kernels, graph capture at a few batch sizes
    MarianBatcher warm(model, generation);
    auto lines = MakeLines(4, 2, config.vocab_size);
    Measure(lines, cuda, [&](const Tokens& line) { return warm.Translate(line); });
  }
  const auto alone_line = [&](const Tokens& line) {
    const auto length = static_cast<std::int64_t>(line.size());
    return model->Generate(torch::tensor(line, torch::kLong).view({1, length}), torch::ones({1, length}, torch::kLong),
                           generation).front();
  };
  {  // where the batch-1 time goes: the same lines on this thread and on a fresh one
    const auto lines = MakeLines(1, lines_per_stream, config.vocab_size);
    const auto time_lines = [&] {
      torch::NoGradGuard no_grad_here;
      const auto start = Clock::now();
      for (const Tokens& line : lines.front()) alone_line(line);
      if (cuda) torch::cuda::synchronize();
      return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / lines.front().size();
    };
    const double main_thread = time_lines();
    double other_thread = 0;
    std::jthread([&] { other_thread = time_lines(); }).join();
    std::printf("batch-1 line alone: %.1f ms on the main thread, %.1f ms on another thread\n", main_thread, other_thread);
    // neural_bench's setting: one 24-token line again and again.
    const Tokens same(24, 77);
    alone_line(same);
    if (cuda) torch::cuda::synchronize();
    const auto start = Clock::now();
    for (int i = 0; i < 8; ++i) alone_line(same);
    if (cuda) torch::cuda::synchronize();
    std::printf("batch-1, one 24-token line 8 times: %.1f ms a line\n",
                std::chrono::duration<double, std::milli>(Clock::now() - start).count() / 8);
  }
  GenerationOptions per_call = generation;  // "before": a graph captured per call, unpadded
  per_call.path = lingcast::neural::DecodePath::kStatic;
  {  // lines of different lengths one after another, twice over, batch 1
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::int64_t> id(5, config.vocab_size - 10);
    const auto make_lines = [&](const std::vector<std::int64_t>& lengths) {
      std::vector<Tokens> made;
      for (std::int64_t length : lengths) {
        Tokens line(static_cast<std::size_t>(length));
        for (auto& token : line) token = id(random);
        line.back() = 0;
        made.push_back(line);
      }
      return made;
    };
    const std::vector<Tokens> lines = make_lines({7, 12, 19, 26, 33, 41, 52, 63});
    // Other lengths, each in the bucket of one above (8, 16, ..., 64): new exact
    // shapes, seen buckets.
    const std::vector<Tokens> other_lines = make_lines({6, 11, 18, 25, 31, 44, 50, 60});
    for (const auto& [label, options] : {std::pair{"before (graph per call, exact shape)", per_call},
                                         std::pair{"after (buckets, kept graphs)", generation}}) {
      auto fresh = MarianModel::Random(config, model_options, 1);  // nothing kept from the warm-up
      const auto decode = [&](const Tokens& line) {
        const auto length = static_cast<std::int64_t>(line.size());
        fresh->Generate(torch::tensor(line, torch::kLong).view({1, length}), torch::ones({1, length}, torch::kLong),
                        options);
        if (cuda) torch::cuda::synchronize();
      };
      decode(Tokens(24, 77));  // the first call of a model (allocator, kernels)
      std::vector<double> first, second;
      for (int pass = 0; pass < 2; ++pass) {
        for (const Tokens& line : lines) {
          const auto start = Clock::now();
          decode(line);
          (pass == 0 ? first : second).push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        }
      }
      std::vector<double> third;
      for (const Tokens& line : other_lines) {
        const auto start = Clock::now();
        decode(line);
        third.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      std::vector<double> all = first;
      all.insert(all.end(), second.begin(), second.end());
      std::printf("varying lengths (8 lines of 7..63 tokens, twice), batch 1, %s: per line p50 %.1f ms, p95 %.1f ms; "
                  "first pass p50 %.1f ms, second pass p50 %.1f ms, p95 %.1f ms; then 8 new lengths in the same "
                  "buckets: p50 %.1f ms, p95 %.1f ms\n",
                  label, Quantile(all, 0.5), Quantile(all, 0.95), Quantile(first, 0.5), Quantile(second, 0.5),
                  Quantile(second, 0.95), Quantile(third, 0.5), Quantile(third, 0.95));
      std::fflush(stdout);
    }
  }
  std::printf("| streams | one at a time: lines/s | tokens/s | p50 ms | p95 ms | batched before: lines/s | tokens/s | "
              "p50 ms | p95 ms | batched: lines/s | tokens/s | p50 ms | p95 ms | mean batch | throughput ratio |\n");
  std::mutex one_at_a_time;
  for (int streams : {1, 4, 16, 32}) {
    const auto lines = MakeLines(streams, lines_per_stream, config.vocab_size);
    const Run alone = Measure(lines, cuda, [&](const Tokens& line) {
      std::lock_guard lock(one_at_a_time);
      return alone_line(line);
    });
    Run before;
    {
      MarianBatcher batcher(model, per_call, {.pad_to_buckets = false});
      before = Measure(lines, cuda, [&](const Tokens& line) { return batcher.Translate(line); });
    }
    MarianBatcher batcher(model, generation);
    Run batched = Measure(lines, cuda, [&](const Tokens& line) { return batcher.Translate(line); });
    const auto stats = batcher.stats();
    batched.mean_batch = static_cast<double>(streams * lines_per_stream) / static_cast<double>(std::max<std::int64_t>(stats.batches, 1));
    std::printf("| %d | %.1f | %.0f | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %.1f | %.2fx |\n",
                streams, alone.lines_per_second, alone.tokens_per_second, alone.p50_ms, alone.p95_ms,
                before.lines_per_second, before.tokens_per_second, before.p50_ms, before.p95_ms,
                batched.lines_per_second, batched.tokens_per_second, batched.p50_ms, batched.p95_ms, batched.mean_batch,
                batched.tokens_per_second / alone.tokens_per_second);
    std::fflush(stdout);
  }
  const auto kept = model->KeptDecoderStats();
  std::printf("kept decoders: %lld decodes, %lld reused, %lld evicted (capacity %zu)\n",
              static_cast<long long>(kept.decodes), static_cast<long long>(kept.reused),
              static_cast<long long>(kept.evicted), MarianModel::kKeptDecoders);
  return 0;
}
