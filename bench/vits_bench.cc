// vits_bench: VITS (MMS-TTS) synthesis speed on libtorch, as a real-time factor
// (synthesis wall time / audio duration; lower is faster), against transformers
// on the same weights and input in the same device call.
//
//   build/bench/vits_bench [REFERENCE_DIR]   (CUDA when available, else CPU)
//   build/bench/vits_bench --cold VOICE_DIR   (only 4. below)
//
// REFERENCE_DIR is what `tools/neural/vits_gpu_bench.py DIR` wrote just before:
// model/ (random weights at facebook/mms-tts-eng's size, as transformers saved
// them), reference.json (the input ids and transformers' timings),
// reference.safetensors (one fp32 synthesis's noise and waveform). Without it:
// random weights of the same sizes (VitsModel::Random) and no reference figures.
//
// 1. the tiny committed checkpoint (src/neural/testdata/vits_tiny) on the CPU;
// 2. mms-tts-eng size, 121 tokens, batch 1: eager (cuda_graphs off: the path
//    before CUDA graphs) and with CUDA graphs, fp32 and fp16 on a GPU (fp32 on a
//    CPU). Each run draws its noise from seed i (so lengths vary as with real
//    text); the graph variant is warmed on the same seeds first, so its buckets
//    are captured (the first two calls of a new bucket are printed apart);
// 3. parity: the reference's noise replayed, waveform against transformers'.
// 4. --cold: lines at lengths not met before, as a render meets them (no graphs
//    warmed): random weights at VOICE_DIR/config.json's sizes (e.g. the Piper
//    voice), eager, with cuDNN's convolutions and with PyTorch's own
//    (VitsModelOptions::cudnn_convolutions), alternating: each of six token
//    lengths once, then the same six again.
// Prints figures; never fails on time.
#include <algorithm>
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

#include "neural/core/graph_cache.h"
#include "neural/core/safetensors.h"
#include "neural/vits/vits_model.h"

namespace {

using lingcast::neural::VitsConfig;
using lingcast::neural::VitsModel;
using lingcast::neural::VitsModelOptions;
using lingcast::neural::VitsOutput;
using lingcast::neural::VitsSynthesisOptions;

struct Timing {
  double seconds_per_run = 0;
  double audio_seconds = 0;
  double rtf = 0;
};

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void Sync(const VitsModel& model) {
  if (model.options().device.is_cuda()) torch::cuda::synchronize();
}

// One synthesis, seconds (the host waits for the device at the end).
double TimeOne(const VitsModel& model, const torch::Tensor& ids, std::uint64_t seed) {
  Sync(model);
  const double start = Now();
  VitsSynthesisOptions options;
  options.seed = seed;
  model.Synthesize(ids, {}, options);
  Sync(model);
  return Now() - start;
}

Timing TimeSynthesis(const VitsModel& model, const torch::Tensor& ids, int runs, int warmups) {
  for (int w = 0; w < warmups; ++w) {
    for (int i = 0; i < runs; ++i) {
      VitsSynthesisOptions options;
      options.seed = static_cast<std::uint64_t>(i);
      model.Synthesize(ids, {}, options);
    }
  }
  Sync(model);
  double samples = 0;
  const double start = Now();
  for (int i = 0; i < runs; ++i) {
    VitsSynthesisOptions options;
    options.seed = static_cast<std::uint64_t>(i);
    const VitsOutput out = model.Synthesize(ids, {}, options);
    samples += static_cast<double>(out.lengths[0]);
  }
  Sync(model);
  const double seconds = Now() - start;
  const double audio = samples / static_cast<double>(model.config().sampling_rate);
  return Timing{seconds / runs, audio / runs, seconds / audio};
}

// The reference's noise replayed: max |ours - transformers| over the largest |sample|.
void Parity(const VitsModel& model, const torch::Tensor& ids, const std::string& dir, const char* label) {
  const auto file = lingcast::neural::SafetensorsFile::Open(dir + "/reference.safetensors");
  lingcast::neural::VitsNoise noise{file->Load("duration_noise"), file->Load("prior_noise")};
  const torch::Tensor expected = file->Load("waveform").to(torch::kFloat);
  VitsSynthesisOptions options;
  options.noise = &noise;
  const torch::Tensor got = model.Synthesize(ids, {}, options).waveform.to(torch::kCPU, torch::kFloat);
  if (got.sizes() != expected.sizes()) {
    std::printf("  parity %s: %lld samples, transformers %lld\n", label, static_cast<long long>(got.size(1)),
                static_cast<long long>(expected.size(1)));
    return;
  }
  const double diff = (got - expected).abs().max().item<double>();
  const double scale = expected.abs().max().item<double>();
  std::printf("  parity %s (transformers' noise replayed): %lld samples equal in length, max |diff| %.2e (%.2e of the largest sample)\n",
              label, static_cast<long long>(got.size(1)), diff, diff / scale);
}

// 4. Lines at new lengths against the same lengths again, cuDNN on and off.
void ColdLengths(const std::string& voice_dir) {
  const VitsConfig config = lingcast::neural::LoadVitsConfig(voice_dir);
  const bool cuda = torch::cuda::is_available();
  const torch::Device device = cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
  std::printf("cold lengths: random weights at %s/config.json's sizes, %s float32, eager, batch 1\n", voice_dir.c_str(),
              cuda ? "cuda" : "cpu");
  for (int round = 0; round < 2; ++round) {
    // Tokens (Piper ids, a pad between phonemes); each round its own lengths, since
    // cuDNN's plans outlive a model and a length planned in round 1 is not new in 2.
    std::vector<std::int64_t> lengths;
    for (const std::int64_t t : {61, 83, 107, 131, 157, 181}) lengths.push_back(t + 2 * round);
    for (const bool cudnn : {true, false}) {
      VitsModelOptions options{device, torch::kFloat, /*cuda_graphs=*/false};
      options.cudnn_convolutions = cudnn;
      const auto model = VitsModel::Random(config, options, 1);
      TimeOne(*model, torch::randint(1, config.vocab_size, {1, 7}, torch::kLong), 0);  // the first call's set-up apart
      std::string news, agains;
      double audio = 0;
      for (int pass = 0; pass < 2; ++pass) {
        for (const std::int64_t t : lengths) {
          torch::manual_seed(t);
          const torch::Tensor ids = torch::randint(1, config.vocab_size, {1, t}, torch::kLong);
          Sync(*model);
          const double start = Now();
          const std::int64_t samples = model->Synthesize(ids).lengths[0];
          Sync(*model);
          char ms[32];
          std::snprintf(ms, sizeof ms, "%s%.1f", (pass == 0 ? news : agains).empty() ? "" : " ", (Now() - start) * 1e3);
          (pass == 0 ? news : agains) += ms;
          if (pass == 0) audio += static_cast<double>(samples) / static_cast<double>(config.sampling_rate);
        }
      }
      std::printf("  round %d, %s: new lengths %s ms; the same again %s ms (%.1f s of audio in all)\n", round + 1,
                  cudnn ? "cuDNN convolutions" : "PyTorch's own convolutions", news.c_str(), agains.c_str(), audio);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a crash in a pipe
  torch::NoGradGuard no_grad;
  if (argc > 2 && std::string(argv[1]) == "--cold") {
    std::printf("vits_bench: libtorch %s\n", TORCH_VERSION);
    ColdLengths(argv[2]);
    return 0;
  }
  const bool cuda = torch::cuda::is_available();
  std::printf("vits_bench: libtorch %s, device %s, %d CPU threads\n", TORCH_VERSION, cuda ? "cuda" : "cpu",
              torch::get_num_threads());
  const std::string ref_dir = argc > 1 ? argv[1] : "";
  nlohmann::json reference;
  if (!ref_dir.empty()) {
    std::ifstream in(ref_dir + "/reference.json");
    if (in) reference = nlohmann::json::parse(in, nullptr, false);
    if (!reference.is_object()) std::printf("no reference figures: %s/reference.json unreadable\n", ref_dir.c_str());
  }
  const bool have_reference = reference.is_object();

  {
    auto model = VitsModel::Load(std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/vits_tiny");
    const torch::Tensor ids = torch::randint(1, 33, {1, 121}, torch::kLong);
    const Timing t = TimeSynthesis(*model, ids, 20, 1);
    std::printf("tiny vits (hidden 16), cpu fp32: %.2f ms for %.3f s of audio, rtf %.4f\n", t.seconds_per_run * 1e3,
                t.audio_seconds, t.rtf);
  }

  torch::Tensor ids;
  if (have_reference) {
    std::vector<std::int64_t> flat;
    for (const auto& v : reference["input_ids"][0]) flat.push_back(v.get<std::int64_t>());
    ids = torch::tensor(flat, torch::kLong).view({1, static_cast<std::int64_t>(flat.size())});
    std::printf("weights and input: %s/model (transformers %s, torch %s), %lld tokens\n", ref_dir.c_str(),
                reference["transformers"].get<std::string>().c_str(), reference["torch"].get<std::string>().c_str(),
                static_cast<long long>(ids.size(1)));
  } else {
    torch::manual_seed(0);
    ids = torch::randint(1, 38, {1, 121}, torch::kLong);
    std::printf("weights: VitsModel::Random (mms-tts-eng sizes), 121 random tokens; no transformers figures\n");
  }
  auto load = [&](const VitsModelOptions& options) {
    return have_reference ? VitsModel::Load(ref_dir + "/model", options) : VitsModel::Random(VitsConfig{}, options, 1);
  };

  struct Variant {
    torch::ScalarType dtype;
    const char* label;
  };
  std::vector<Variant> variants = {{torch::kFloat, "float32"}};
  if (cuda) variants.push_back({torch::kHalf, "float16"});
  const torch::Device device = cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
  const int runs = cuda ? 20 : 2;
  std::vector<std::string> summary;
  for (const Variant& v : variants) {
    std::string ref_text = "transformers: no figure";
    double ref_rtf = 0;
    if (have_reference && reference["timings"].contains(v.label)) {
      const auto& r = reference["timings"][v.label];
      if (r.contains("rtf")) {
        ref_rtf = r["rtf"].get<double>();
        char buf[160];
        std::snprintf(buf, sizeof buf, "transformers %.1f ms for %.2f s, rtf %.4f", r["seconds"].get<double>() * 1e3,
                      r["audio_seconds"].get<double>(), ref_rtf);
        ref_text = buf;
      } else if (r.contains("error")) {
        ref_text = "transformers fails: " + r["error"].get<std::string>().substr(0, 80);
      }
    }
    std::printf("== %s %s; %s\n", cuda ? "cuda" : "cpu", v.label, ref_text.c_str());
    for (const bool graphs : cuda ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      const char* path = graphs ? "CUDA graphs" : "eager";
      try {
        VitsModelOptions options{device, v.dtype, graphs};
        auto model = load(options);
        if (graphs) {
          const double first = TimeOne(*model, ids, 0), second = TimeOne(*model, ids, 0),
                       third = TimeOne(*model, ids, 0);
          std::printf("  %s: a new length bucket: first call (eager) %.1f ms, second (capture + replay) %.1f ms, "
                      "third (replay) %.1f ms\n", path, first * 1e3, second * 1e3, third * 1e3);
        }
        const Timing t = TimeSynthesis(*model, ids, runs, graphs ? 2 : 1);
        char line[320];
        std::snprintf(line, sizeof line, "%s %-11s %-7s: %7.2f ms for %.2f s of audio, rtf %.4f", cuda ? "cuda" : "cpu",
                      path, v.label, t.seconds_per_run * 1e3, t.audio_seconds, t.rtf);
        std::string text = line;
        if (ref_rtf > 0) {
          std::snprintf(line, sizeof line, "; %.2fx transformers' speed (rtf %.4f)", ref_rtf / t.rtf, ref_rtf);
          text += line;
        }
        std::printf("  %s\n", text.c_str());
        summary.push_back(text);
        if (graphs) {
          const auto s = model->graph_stats();
          std::printf("  graphs: %lld eager (first of a bucket), %lld captured, %lld replayed, %lld evicted, %lld failed\n",
                      static_cast<long long>(s.eager), static_cast<long long>(s.captured),
                      static_cast<long long>(s.replayed), static_cast<long long>(s.evicted),
                      static_cast<long long>(s.failed));
        }
        if (have_reference) Parity(*model, ids, ref_dir, (std::string(v.label) + ", " + path).c_str());
      } catch (const std::exception& e) {
        std::printf("  %s %s: failed: %s\n", v.label, path, e.what());
        summary.push_back(std::string(v.label) + " " + path + ": failed: " + e.what());
      }
    }
  }
  std::printf("== summary (mms-tts-eng size, %lld tokens, batch 1, mean of %d runs)\n",
              static_cast<long long>(ids.size(1)), runs);
  for (const auto& s : summary) std::printf("%s\n", s.c_str());
  return 0;
}
