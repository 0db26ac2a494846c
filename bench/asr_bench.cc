// asr_bench: speech recognition figures on the real English recordings of
// ../shared/data/speech, through the path `lingcast asr` takes (VAD utterances
// -> one pocketsphinx session per recording):
//   * word error rate, free mode vs script mode (the script holds the reference
//     sentences among a dozen distractor lines, asr/asr_test_data.h);
//   * real-time factor (recognizer CPU time / audio duration), and script mode's
//     as a ratio to free mode's, the reference measured in the same run;
//   * latency from the VAD endpoint to the final hypothesis: the CPU and wall time
//     of Finish() per utterance, p50/p95 over every utterance of every run.
// Prints figures; never fails on time.
//
// usage: asr_bench [RUNS (default 5)] [SCRIPT_WEIGHT ...]   (several weights: a sweep)
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "asr/asr_test_data.h"
#include "asr/pocketsphinx_engine.h"
#include "asr/word_error_rate.h"
#include "audio/audio_decoder.h"
#include "audio/vad.h"

namespace lingcast {
namespace {

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct ModeFigures {
  WordErrors errors;          // over the recordings of one run
  double recognizer_cpu = 0;  // AcceptAudio + Finish, all runs
  double audio_seconds = 0;   // all runs
  std::vector<double> finish_cpu_ms, finish_wall_ms;  // one per utterance, all runs
  std::vector<std::string> texts;                     // per recording, first run
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t index = std::min(values.size() - 1, static_cast<size_t>(p * (values.size() - 1) + 0.5));
  return values[index];
}

bool RunRecording(const AsrModel& model, const AudioBuffer& audio, ModeFigures& figures, std::string& text) {
  absl::StatusOr<VoiceActivityDetector> vad = VoiceActivityDetector::Create();
  absl::StatusOr<std::unique_ptr<AsrSession>> session = model.NewSession();
  if (!vad.ok() || !session.ok()) {
    std::fprintf(stderr, "asr_bench: %s\n", std::string((vad.ok() ? session.status() : vad.status()).message()).c_str());
    return false;
  }
  auto handle = [&](const VadEvent& event) {
    if (event.type == VadEvent::Type::kSpeechAudio) {
      const double cpu = ThreadCpuSeconds();
      if (!(*session)->AcceptAudio(event.audio, event.audio_start).ok()) return false;
      figures.recognizer_cpu += ThreadCpuSeconds() - cpu;
    } else if (event.type == VadEvent::Type::kSpeechEnd) {
      const double cpu = ThreadCpuSeconds(), wall = WallSeconds();
      absl::StatusOr<AsrHypothesis> final = (*session)->Finish();
      const double cpu_spent = ThreadCpuSeconds() - cpu;
      figures.finish_wall_ms.push_back((WallSeconds() - wall) * 1000);
      figures.finish_cpu_ms.push_back(cpu_spent * 1000);
      figures.recognizer_cpu += cpu_spent;
      if (!final.ok()) return false;
      if (!final->text.empty()) text += (text.empty() ? "" : " ") + final->text;
    }
    return true;
  };
  // 100 ms pieces, as a live input or `lingcast asr` delivers them.
  const size_t piece = kAsrSampleRate / 10;
  for (size_t begin = 0; begin < audio.samples.size(); begin += piece) {
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(audio.samples.begin() + begin,
                         audio.samples.begin() + std::min(audio.samples.size(), begin + piece));
    absl::StatusOr<std::vector<VadEvent>> events = vad->Push(chunk);
    if (!events.ok()) return false;
    for (const VadEvent& event : *events) {
      if (!handle(event)) return false;
    }
  }
  for (const VadEvent& event : vad->Flush()) {
    if (!handle(event)) return false;
  }
  figures.audio_seconds += audio.duration().seconds();
  return true;
}

int Main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<float> weights;
  for (int i = 2; i < argc; ++i) weights.push_back(static_cast<float>(std::atof(argv[i])));
  if (weights.empty()) weights.push_back(PocketsphinxOptions{}.script_weight);

  std::vector<const SpeechRecording*> recordings;
  std::vector<AudioBuffer> audio;
  for (const SpeechRecording* recording : {&kJfk, &kLibri}) {
    const std::string path = SpeechPath(recording->file);
    if (!std::filesystem::exists(path)) {
      std::printf("asr_bench: %s\n", NoDataMessage(path).c_str());
      continue;
    }
    absl::StatusOr<AudioBuffer> decoded = DecodeAudioFile(path, kAsrSampleRate);
    if (!decoded.ok()) {
      std::fprintf(stderr, "asr_bench: %s\n", std::string(decoded.status().message()).c_str());
      return 1;
    }
    recordings.push_back(recording);
    audio.push_back(std::move(*decoded));
  }
  if (recordings.empty()) return 0;

  const std::string script_path = (std::filesystem::temp_directory_path() / "lingcast-asr-bench-script.txt").string();
  std::ofstream(script_path) << ScriptWithReferences();

  struct Mode {
    std::string name;
    PocketsphinxOptions options;
    ModeFigures figures;
  };
  std::vector<Mode> modes = {{"free", {}, {}}, {"free 1-pass", {.second_pass = false}, {}}};
  for (float weight : weights) {
    char name[32];
    std::snprintf(name, sizeof name, "script w=%.2f", weight);
    modes.push_back({name, {.script_path = script_path, .script_weight = weight}, {}});
  }
  modes.push_back({"script 1-pass", {.script_path = script_path, .second_pass = false}, {}});

  std::printf("asr_bench: pocketsphinx en-us, %zu recordings, %d runs, 2 cores shared (figures are noisy)\n",
              recordings.size(), runs);
  for (Mode& mode : modes) {
    const double load_start = WallSeconds();
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load(mode.options);
    if (!model.ok()) {
      std::fprintf(stderr, "asr_bench: %s\n", std::string(model.status().message()).c_str());
      return 1;
    }
    const double load_seconds = WallSeconds() - load_start;
    for (int run = 0; run < runs; ++run) {
      for (size_t i = 0; i < recordings.size(); ++i) {
        std::string text;
        if (!RunRecording(**model, audio[i], mode.figures, text)) {
          std::fprintf(stderr, "asr_bench: recognition failed on %s\n", recordings[i]->file);
          return 1;
        }
        if (run == 0) {
          mode.figures.errors += CountWordErrors(recordings[i]->transcript, text);
          mode.figures.texts.push_back(text);
        }
      }
    }
    std::printf("\n[%s] model load %.2f s\n", mode.name.c_str(), load_seconds);
    for (size_t i = 0; i < recordings.size(); ++i) {
      std::printf("  %-40s WER %.2f  \"%s\"\n", recordings[i]->file,
                  CountWordErrors(recordings[i]->transcript, mode.figures.texts[i]).rate(),
                  mode.figures.texts[i].c_str());
    }
  }

  const ModeFigures& reference = modes.front().figures;
  const double reference_rtf = reference.recognizer_cpu / reference.audio_seconds;
  std::printf("\n%-16s %6s %8s %10s %14s %14s %14s %14s %6s\n", "mode", "WER", "RTF", "RTF/free", "finish cpu p50",
              "finish cpu p95", "finish wall p50", "finish wall p95", "utts");
  for (const Mode& mode : modes) {
    const ModeFigures& f = mode.figures;
    const double rtf = f.recognizer_cpu / f.audio_seconds;
    std::printf("%-16s %6.2f %8.3f %10.2f %11.1f ms %11.1f ms %12.1f ms %12.1f ms %6zu\n", mode.name.c_str(),
                f.errors.rate(), rtf, rtf / reference_rtf, Percentile(f.finish_cpu_ms, 0.5),
                Percentile(f.finish_cpu_ms, 0.95), Percentile(f.finish_wall_ms, 0.5), Percentile(f.finish_wall_ms, 0.95),
                f.finish_cpu_ms.size());
  }
  std::printf("\nWER over all recordings of one run (%d reference words); RTF = recognizer CPU seconds per audio "
              "second (VAD excluded); finish = VAD endpoint -> final hypothesis.\n",
              reference.errors.reference_words);
  std::filesystem::remove(script_path);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
