// whisper_sessions_bench: sessions sharing one Whisper model, their decode steps
// joined into one pass (neural/whisper/whisper_step_batcher.h) against each
// decoding alone, in the same process on the same requests.
//
//   whisper_sessions_bench MODEL_DIR [--sessions 1,2,3,4] [--rounds 2] [--speech DIR]
//
// Loads the checkpoint twice (int8 on the CPU, as `live` and `serve` run it):
// once with step batching on, once off. For each session count N, N threads
// each transcribe the recordings of DIR (default ../shared/data/speech: real
// English and Mandarin, the language given, greedy, the heard audio encoded as a
// live session does), each thread starting at a different recording so that
// concurrent requests differ. Both models run every N in every round, in
// alternating order. Prints per N and mode: wall time for all requests,
// requests a second, latency p50/p95, steps and decoders per pass; the ratio of
// batched to alone wall time; and how many transcripts differ between the two
// (each request's tokens should be the same). Never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "audio/audio_decoder.h"
#include "neural/core/cpu_threads.h"
#include "neural/whisper/whisper_transcriber.h"

namespace {

using namespace lingcast::neural;

struct Recording {
  std::string name, language;
  std::vector<float> samples;
};

struct Run {
  double wall_s = 0;
  std::vector<double> latencies_ms;
  std::vector<std::string> texts;  // by (thread, request)
  StepBatchingStats stats;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

StepBatchingStats Minus(const StepBatchingStats& a, const StepBatchingStats& b) {
  return {a.steps - b.steps, a.passes - b.passes, a.joined_steps - b.joined_steps, a.largest_pass};
}

Run Sessions(const WhisperTranscriber& transcriber, const std::vector<Recording>& recordings, int sessions) {
  Run run;
  const StepBatchingStats before = transcriber.model().step_batching_stats();
  std::vector<std::vector<double>> latencies(sessions);
  std::vector<std::vector<std::string>> texts(sessions);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < sessions; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t k = 0; k < recordings.size(); ++k) {
        const Recording& r = recordings[(k + static_cast<std::size_t>(t)) % recordings.size()];
        WhisperOptions options;
        options.language = r.language;
        options.encode_heard_only = true;
        const auto began = std::chrono::steady_clock::now();
        const WhisperResult result =
            transcriber.Transcribe(r.samples.data(), static_cast<std::int64_t>(r.samples.size()), options);
        latencies[t].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
        texts[t].push_back(result.text);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int t = 0; t < sessions; ++t) {
    run.latencies_ms.insert(run.latencies_ms.end(), latencies[t].begin(), latencies[t].end());
    run.texts.insert(run.texts.end(), texts[t].begin(), texts[t].end());
  }
  run.stats = Minus(transcriber.model().step_batching_stats(), before);
  return run;
}

// Wall time of one pass of `decoders` decoders stepping together (each on its
// own thread, a window long enough that every pass holds all of them), per pass.
double PassMs(const WhisperTranscriber& transcriber, const torch::Tensor& encoded, int decoders, int steps) {
  std::vector<std::unique_ptr<WhisperDecoderState>> states;
  WhisperOptions options;
  options.language = "en";
  const std::vector<std::int64_t> prompt = transcriber.Prompt("en", options);
  for (int d = 0; d < decoders; ++d) {
    states.push_back(transcriber.model().StartDecoder(encoded, 1, static_cast<std::int64_t>(prompt.size()) + steps));
    states.back()->Prefill(torch::tensor(prompt, torch::kLong).view({1, -1}));
  }
  const std::int64_t token = transcriber.special().no_timestamps + 1;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int d = 0; d < decoders; ++d) {
    threads.emplace_back([&, d] {
      for (int s = 0; s < steps; ++s) states[d]->Step(torch::full({1}, token, torch::kLong));
      states[d].reset();
    });
  }
  for (std::thread& thread : threads) thread.join();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: whisper_sessions_bench MODEL_DIR [--sessions 1,2,3,4] [--rounds 2] [--speech DIR]\n");
    return 2;
  }
  const std::string model_dir = argv[1];
  std::vector<int> counts = {1, 2, 3, 4};
  int rounds = 2;
  std::string speech = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech";
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sessions") {
      counts.clear();
      for (const char* p = argv[i + 1]; *p != '\0';) {
        counts.push_back(std::atoi(p));
        while (*p != '\0' && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--speech") {
      speech = argv[i + 1];
    } else {
      std::fprintf(stderr, "whisper_sessions_bench: unknown option %s\n", flag.c_str());
      return 2;
    }
  }

  std::vector<Recording> recordings;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(speech)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string name = path.filename().string();
    const std::string language = name.substr(0, 2);
    if (language != "en" && language != "zh") continue;
    absl::StatusOr<lingcast::AudioBuffer> audio = lingcast::DecodeAudioFile(path.string(), 16000);
    if (!audio.ok()) {
      std::fprintf(stderr, "whisper_sessions_bench: %s\n", std::string(audio.status().message()).c_str());
      return 1;
    }
    recordings.push_back({name, language, std::move(audio->samples)});
  }
  if (recordings.empty()) {
    std::fprintf(stderr, "whisper_sessions_bench: no en-*/zh-* recordings in %s\n", speech.c_str());
    return 1;
  }

  UseAvailableCpuThreads();
  ModelOptions options;
  options.quantization = Quantization::kInt8;
  options.step_batching.enabled = true;  // off by default (model_options.h says why)
  ModelOptions alone_options = options;
  alone_options.step_batching.enabled = false;
  const auto batched = WhisperTranscriber::Load(model_dir, options);
  const auto alone = WhisperTranscriber::Load(model_dir, alone_options);
  std::printf("whisper_sessions_bench: %s int8 on %d CPU threads, %zu recordings a session, %d rounds\n",
              model_dir.c_str(), at::get_num_threads(), recordings.size(), rounds);
  {
    // The cost of one pass by the number of decoders in it (the first recording's encoder output).
    ModelOptions lockstep = options;
    lockstep.step_batching.window = std::chrono::seconds(60);
    const auto stepper = WhisperTranscriber::Load(model_dir, lockstep);
    const Recording& r = recordings.front();
    const torch::Tensor features = stepper->features().Compute(r.samples.data(), static_cast<std::int64_t>(r.samples.size()));
    const torch::Tensor encoded = stepper->model().Encode(features.unsqueeze(0));
    PassMs(*stepper, encoded, 1, 20);
    const double one = PassMs(*stepper, encoded, 1, 100);
    std::printf("decoder step, one decoder: %.2f ms a pass\n", one);
    for (int d : {2, 3, 4, 8}) {
      const double ms = PassMs(*stepper, encoded, d, 100);
      std::printf("decoder step, %d decoders in one pass: %.2f ms a pass, %.2f ms a decoder (%.2fx one alone)\n", d, ms,
                  ms / d, ms / d / one);
    }
  }
  // Warm both (first-call allocations).
  Sessions(*batched, recordings, 1);
  Sessions(*alone, recordings, 1);

  std::printf("%8s %8s %8s %9s %9s %9s %8s %12s %10s\n", "sessions", "mode", "wall_s", "req/s", "p50_ms", "p95_ms",
              "steps", "per_pass", "differ");
  for (int n : counts) {
    double wall[2] = {0, 0};
    for (int round = 0; round < rounds; ++round) {
      Run runs[2];
      for (int k = 0; k < 2; ++k) {
        const int mode = (round % 2 == 0) ? k : 1 - k;  // 0 alone, 1 batched
        runs[mode] = Sessions(mode == 0 ? *alone : *batched, recordings, n);
      }
      int differ = 0;
      for (std::size_t i = 0; i < runs[0].texts.size(); ++i) differ += runs[0].texts[i] != runs[1].texts[i];
      for (int mode = 0; mode < 2; ++mode) {
        const Run& r = runs[mode];
        const double per_pass = mode == 1 && r.stats.passes > 0
                                    ? static_cast<double>(r.stats.steps) / static_cast<double>(r.stats.passes)
                                    : 1.0;
        std::printf("%8d %8s %8.2f %9.2f %9.0f %9.0f %8lld %12.2f %10d\n", n, mode == 0 ? "alone" : "batched",
                    r.wall_s, static_cast<double>(r.latencies_ms.size()) / r.wall_s, Percentile(r.latencies_ms, 0.5),
                    Percentile(r.latencies_ms, 0.95), static_cast<long long>(r.stats.steps), per_pass, differ);
        wall[mode] += r.wall_s;
      }
    }
    std::printf("%8d  batched / alone wall time: %.2f\n", n, wall[1] / wall[0]);
  }
  return 0;
}
