// whisper_cpu_bench: our side of bench/whisper_cpu_compare.py (lingcast's Whisper
// against faster-whisper / CTranslate2 on the same weights and files, on the CPU).
// Time only; WER/CER is bench/asr_compare's job.
//
//   whisper_cpu_bench MODEL_DIR [--int8] [--threads N] [--timestamps] [--window] [--margin FRAMES]
//
// Loads the checkpoint once, then reads requests from stdin, one a line:
//   FILE LANG            one offline decode of FILE (the whole file, at most 30 s),
//                        greedy, language LANG given, no temperature fallback
//   stream FILE LANG     the file fed to a streaming session (WhisperAsrSession) in
//                        100 ms chunks, Partial() asked every 500 ms of audio as
//                        `lingcast asr` / `live` do, then Finish()
//   quit
// and answers each with one JSON line: {"ms": ..., "text": ...} (offline: the
// features, encoder and decode, audio decoding not included; faster-whisper is
// given the same decoded samples), or for stream {"ms", "audio_ms", "rtf",
// "partials", "decodes", "partial_ms_median", "final_ms", "text"}. Every line
// also carries "rss_mb" (peak RSS so far, VmHWM). --window pads every decode to
// Whisper's 30 s window (as faster-whisper does) instead of encoding the audio
// that is there; --margin the mel frames (10 ms each) of padding encoded after
// the audio otherwise. Prints figures; never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "audio/audio_decoder.h"
#include "neural/core/cpu_threads.h"
#include "neural/whisper/whisper_asr.h"
#include "neural/whisper/whisper_transcriber.h"
#include "nlohmann/json.hpp"

namespace {

using namespace lingcast::neural;
using lingcast::AudioBuffer;
using lingcast::MediaTime;

double PeakRssMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  }
  return 0.0;
}

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct Settings {
  std::string model_dir;
  bool int8 = false;
  bool timestamps = false;
  bool window = false;
  int threads = 0;
  std::int64_t margin_frames = -1;  // -1: WhisperOptions' default
};

nlohmann::json Offline(const WhisperTranscriber& transcriber, const std::vector<float>& samples, const std::string& lang,
                       const Settings& s) {
  WhisperOptions o;
  o.language = lang;
  o.timestamps = s.timestamps;
  o.encode_heard_only = !s.window;
  if (s.margin_frames >= 0) o.heard_margin_frames = s.margin_frames;
  const auto start = std::chrono::steady_clock::now();
  const WhisperResult r = transcriber.Transcribe(samples.data(), static_cast<std::int64_t>(samples.size()), o);
  return {{"ms", MsSince(start)}, {"text", r.text}, {"tokens", r.tokens.size()}};
}

nlohmann::json Stream(const std::shared_ptr<const WhisperTranscriber>& transcriber, const std::string& lang,
                      const std::vector<float>& samples) {
  WhisperAsrOptions options;
  options.language = lang;
  auto session = WhisperAsrSession::Create(options, transcriber);
  if (!session.ok()) return {{"error", session.status().ToString()}};
  constexpr std::size_t kChunk = 1600;  // 100 ms
  std::vector<double> partial_ms;
  int partials = 0;
  std::string last;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t at = 0; at < samples.size(); at += kChunk) {
    AudioBuffer chunk;
    chunk.sample_rate = lingcast::kAsrSampleRate;
    chunk.channels = 1;
    chunk.samples.assign(samples.begin() + static_cast<std::ptrdiff_t>(at),
                         samples.begin() + static_cast<std::ptrdiff_t>(std::min(samples.size(), at + kChunk)));
    if (!(*session)->AcceptAudio(chunk).ok()) return {{"error", "AcceptAudio"}};
    if ((at / kChunk) % 5 != 4) continue;
    const auto asked = std::chrono::steady_clock::now();
    std::optional<lingcast::AsrHypothesis> partial = (*session)->Partial();
    const double ms = MsSince(asked);
    ++partials;
    if (ms > 1.0) partial_ms.push_back(ms);  // a decode, not the last partial repeated
    if (partial) last = partial->text;
  }
  const auto finishing = std::chrono::steady_clock::now();
  absl::StatusOr<lingcast::AsrHypothesis> final = (*session)->Finish();
  const double final_ms = MsSince(finishing);
  const double total_ms = MsSince(start);
  const double audio_ms = 1000.0 * static_cast<double>(samples.size()) / lingcast::kAsrSampleRate;
  std::vector<double> sorted = partial_ms;
  std::sort(sorted.begin(), sorted.end());
  return {{"ms", total_ms},
          {"audio_ms", audio_ms},
          {"rtf", total_ms / audio_ms},
          {"partials", partials},
          {"decodes", partial_ms.size()},
          {"partial_ms_median", sorted.empty() ? 0.0 : sorted[sorted.size() / 2]},
          {"final_ms", final_ms},
          {"last_partial", last},
          {"text", final.ok() ? final->text : final.status().ToString()}};
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--int8") {
      s.int8 = true;
    } else if (a == "--timestamps") {
      s.timestamps = true;
    } else if (a == "--window") {
      s.window = true;
    } else if (a == "--margin" && i + 1 < argc) {
      s.margin_frames = std::atoll(argv[++i]);
    } else if (a == "--threads" && i + 1 < argc) {
      s.threads = std::atoi(argv[++i]);
    } else if (s.model_dir.empty()) {
      s.model_dir = a;
    } else {
      std::fprintf(stderr, "usage: whisper_cpu_bench MODEL_DIR [--int8] [--threads N] [--timestamps] [--window]\n");
      return 2;
    }
  }
  if (s.model_dir.empty()) {
    std::fprintf(stderr, "usage: whisper_cpu_bench MODEL_DIR [--int8] [--threads N] [--timestamps] [--window]\n");
    return 2;
  }
  if (s.threads > 0) {
    torch::set_num_threads(s.threads);
  } else {
    UseAvailableCpuThreads();
  }
  ModelOptions model_options;
  model_options.quantization = s.int8 ? Quantization::kInt8 : Quantization::kNone;
  std::shared_ptr<const WhisperTranscriber> transcriber;
  try {
    transcriber = WhisperTranscriber::Load(s.model_dir, model_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "whisper_cpu_bench: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "whisper_cpu_bench: %s, %s, %d threads, loaded (peak RSS %.0f MB)\n", s.model_dir.c_str(),
               s.int8 ? "int8" : "float32", torch::get_num_threads(), PeakRssMb());
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string first, file, lang;
    words >> first;
    if (first.empty()) continue;
    if (first == "quit") break;
    const bool stream = first == "stream";
    if (stream) {
      words >> file >> lang;
    } else {
      file = first;
      words >> lang;
    }
    nlohmann::json out;
    absl::StatusOr<AudioBuffer> audio = lingcast::DecodeAudioFile(file, lingcast::kAsrSampleRate);
    if (!audio.ok()) {
      out = {{"error", audio.status().ToString()}};
    } else if (stream) {
      out = Stream(transcriber, lang, audio->samples);
    } else {
      out = Offline(*transcriber, audio->samples, lang, s);
    }
    out["rss_mb"] = PeakRssMb();
    std::cout << out.dump() << std::endl;
  }
  return 0;
}
