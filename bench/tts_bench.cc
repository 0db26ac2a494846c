// tts_bench: real-time factor and time to first audio of the espeak-ng engine, for
// a three-clause sentence in Chinese and in English, whole-text synthesis
// (Synthesize) against streaming synthesis clause by clause (TtsStream), in the
// same run. The headline is the ratio of the times to first audio,
// streaming / whole: how much sooner a live pipeline can start playing.
//
//   tts_bench [--runs 15] [--lexicon PATH]
//
// Prints medians over the runs (after one warm-up run); never fails on time.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/process_stats.h"
#include "text/data_files.h"
#include "tts/espeak_engine.h"
#include "tts/tts_stream.h"

namespace lingcast {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

struct Timing {
  double first_audio_ms = 0;
  double total_ms = 0;
  double audio_s = 0;
};

Timing Whole(TtsEngine& engine, const SynthesisRequest& request) {
  const Clock::time_point start = Clock::now();
  absl::StatusOr<SynthesisResult> result = engine.Synthesize(request);
  Timing t;
  t.total_ms = MillisSince(start);
  if (!result.ok()) {
    std::fprintf(stderr, "tts_bench: %s\n", std::string(result.status().message()).c_str());
    std::exit(1);
  }
  t.first_audio_ms = t.total_ms;  // nothing can play before the call returns
  t.audio_s = result->audio.duration().seconds();
  return t;
}

Timing Streaming(TtsEngine& engine, const SynthesisRequest& request, int* clauses) {
  Timing t;
  *clauses = 0;
  bool first = true;
  const Clock::time_point start = Clock::now();
  const absl::Status status = SynthesizeStreaming(engine, request, [&](SpeechPiece piece) {
    if (first && !piece.speech.audio.empty()) {
      t.first_audio_ms = MillisSince(start);
      first = false;
    }
    t.audio_s += piece.speech.audio.duration().seconds();
    ++*clauses;
    return absl::OkStatus();
  });
  t.total_ms = MillisSince(start);
  if (!status.ok()) {
    std::fprintf(stderr, "tts_bench: %s\n", std::string(status.message()).c_str());
    std::exit(1);
  }
  return t;
}

std::string DefaultLexicon() {
  if (absl::StatusOr<std::string> found = FindDataFile(kZhLexiconFileName); found.ok()) return *found;
  // build/bench/tts_bench -> build/data/zh_lexicon.tsv
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return (exe.parent_path().parent_path() / "data" / std::string(kZhLexiconFileName)).string();
}

int Main(int argc, char** argv) {
  int runs = 15;
  std::string lexicon = DefaultLexicon();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--lexicon") == 0 && i + 1 < argc) {
      lexicon = argv[++i];
    } else {
      std::fprintf(stderr, "usage: tts_bench [--runs N] [--lexicon PATH]\n");
      return 2;
    }
  }
  EspeakOptions options;
  options.lexicon_path = lexicon;
  absl::StatusOr<std::unique_ptr<EspeakEngine>> engine = EspeakEngine::Create(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "tts_bench: %s\n", std::string(engine.status().message()).c_str());
    return 1;
  }

  struct Case {
    const char* name;
    Language language;
    const char* text;
  };
  const Case cases[] = {
      {"zh", Language::kZh, "大家晚上好，欢迎来到我们的直播间，今天所有的手机都有很大的优惠。"},
      {"en", Language::kEn, "Good evening everyone, welcome to our live show, today every phone in the store is on sale."},
  };
  std::printf("tts_bench: espeak-ng, %d runs each (medians), sample rate %d Hz\n", runs, (*engine)->sample_rate());
  std::printf("%-4s %-10s %8s %9s %10s %8s %8s\n", "lang", "mode", "clauses", "audio_s", "first_ms", "total_ms",
              "rtf");
  for (const Case& c : cases) {
    SynthesisRequest request;
    request.text = c.text;
    request.language = c.language;
    int clauses = 0;
    Whole(**engine, request);  // warm-up: voices and lexicon pages
    Streaming(**engine, request, &clauses);
    std::vector<double> whole_first, whole_total, stream_first, stream_total;
    double whole_audio = 0, stream_audio = 0;
    for (int r = 0; r < runs; ++r) {
      // Alternate the order so drift on a shared machine hits both alike.
      const bool whole_first_in_run = r % 2 == 0;
      Timing w, s;
      if (whole_first_in_run) w = Whole(**engine, request);
      s = Streaming(**engine, request, &clauses);
      if (!whole_first_in_run) w = Whole(**engine, request);
      whole_first.push_back(w.first_audio_ms);
      whole_total.push_back(w.total_ms);
      stream_first.push_back(s.first_audio_ms);
      stream_total.push_back(s.total_ms);
      whole_audio = w.audio_s;
      stream_audio = s.audio_s;
    }
    const double wf = Median(whole_first), wt = Median(whole_total);
    const double sf = Median(stream_first), st = Median(stream_total);
    std::printf("%-4s %-10s %8d %9.2f %10.1f %8.1f %8.4f\n", c.name, "whole", 1, whole_audio, wf, wt,
                wt / 1000 / whole_audio);
    std::printf("%-4s %-10s %8d %9.2f %10.1f %8.1f %8.4f\n", c.name, "streaming", clauses, stream_audio, sf, st,
                st / 1000 / stream_audio);
    std::printf("%-4s time to first audio, streaming / whole: %.2f  (rtf streaming / whole: %.2f)\n", c.name,
                sf / wf, (st / stream_audio) / (wt / whole_audio));
  }
  std::printf("peak RSS %.1f MiB, CPU %.2f s\n", PeakRssMb(), ProcessCpuSeconds());
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
