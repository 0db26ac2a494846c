// audio_bench: how fast audio ingest (decode + downmix + soxr resample to 16 kHz
// mono float) and the VAD run, against the ffmpeg CLI doing the same conversion
// (its own decoder and swresample) in the same run.
//
//   audio_bench [--input FILE.wav] [--repeat 10] [--runs 3] [--tmp DIR]
//
// The input (default ../shared/data/speech/en-jfk.wav) is repeated --repeat times
// so the ffmpeg process start-up is a small part of its time, and written as
// 16 kHz mono WAV (decode only), 48 kHz stereo WAV (downmix + 48k -> 16k) and,
// when the ffmpeg CLI is there, 44.1 kHz stereo FLAC. Prints the median wall time
// of each and "x realtime" (audio seconds per wall second). Never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "audio/audio_decoder.h"
#include "audio/resampler.h"
#include "audio/test_audio.h"
#include "audio/vad.h"

namespace lingcast {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void WriteWavS16(const std::string& path, int rate, int channels, const std::vector<float>& mono) {
  std::string data;
  data.reserve(mono.size() * 2 * static_cast<size_t>(channels));
  for (float s : mono) {
    const auto v = static_cast<int16_t>(std::clamp(s, -1.0f, 1.0f) * 32767.0f);
    for (int c = 0; c < channels; ++c) {
      data.push_back(static_cast<char>(v & 0xff));
      data.push_back(static_cast<char>((v >> 8) & 0xff));
    }
  }
  std::ofstream(path, std::ios::binary) << lingcast::testing::RawWavBytes(1, rate, channels, 16, data);
}

struct Result {
  double ours_s = 0;
  double ffmpeg_s = 0;  // 0 when the CLI is absent
  double audio_s = 0;
};

Result Measure(const std::string& path, int runs, bool have_ffmpeg) {
  Result r;
  std::vector<double> ours, theirs;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    auto audio = DecodeAudioFile(path);
    ours.push_back(Seconds(start));
    if (!audio.ok()) {
      std::fprintf(stderr, "audio_bench: %s\n", std::string(audio.status().message()).c_str());
      std::exit(1);
    }
    r.audio_s = audio->duration().seconds();
    if (have_ffmpeg) {
      const std::string command = absl::StrFormat(
          "ffmpeg -nostdin -v error -i '%s' -ac 1 -ar 16000 -f f32le -y /dev/null", path);
      const auto ff_start = Clock::now();
      if (std::system(command.c_str()) != 0) have_ffmpeg = false;
      theirs.push_back(Seconds(ff_start));
    }
  }
  r.ours_s = Median(ours);
  if (have_ffmpeg && !theirs.empty()) r.ffmpeg_s = Median(theirs);
  return r;
}

int Main(int argc, char** argv) {
  std::string input = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/en-jfk.wav";
  int repeat = 10;
  int runs = 3;
  std::string tmp = std::filesystem::temp_directory_path().string();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--input") input = argv[i + 1];
    else if (flag == "--repeat") repeat = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--tmp") tmp = argv[i + 1];
    else {
      std::fprintf(stderr, "audio_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  auto source = DecodeAudioFile(input);
  if (!source.ok()) {
    std::fprintf(stderr, "audio_bench: %s\n", std::string(source.status().message()).c_str());
    return 2;
  }
  std::vector<float> mono16k;
  for (int i = 0; i < repeat; ++i) mono16k.insert(mono16k.end(), source->samples.begin(), source->samples.end());
  auto up = Resampler::Create(16000, 48000);
  std::vector<float> mono48k;
  if (!up.ok() || !up->Push(mono16k, mono48k).ok() || !up->Flush(mono48k).ok()) return 1;

  const std::filesystem::path dir = std::filesystem::path(tmp) / "lingcast-audio-bench";
  std::filesystem::create_directories(dir);
  const std::string wav16 = (dir / "mono16k.wav").string();
  const std::string wav48 = (dir / "stereo48k.wav").string();
  const std::string flac44 = (dir / "stereo44k.flac").string();
  WriteWavS16(wav16, 16000, 1, mono16k);
  WriteWavS16(wav48, 48000, 2, mono48k);
  const bool have_ffmpeg = std::system("ffmpeg -nostdin -v error -version > /dev/null 2>&1") == 0;
  bool have_flac = false;
  if (have_ffmpeg) {
    const std::string command = absl::StrFormat(
        "ffmpeg -nostdin -v error -i '%s' -ar 44100 -c:a flac -y '%s'", wav48, flac44);
    have_flac = std::system(command.c_str()) == 0;
  }

  // The ffmpeg process's fixed cost (start-up, probing), measured on 0.1 s of
  // audio, so its decode speed can be compared with start-up taken out too.
  double ffmpeg_startup_s = 0;
  if (have_ffmpeg) {
    const std::string tiny = (dir / "tiny.wav").string();
    WriteWavS16(tiny, 16000, 1, std::vector<float>(1600, 0.0f));
    ffmpeg_startup_s = Measure(tiny, runs, true).ffmpeg_s;
  }

  std::printf("audio_bench: %s x %d, median of %d runs; reference: ffmpeg CLI -ac 1 -ar 16000 -f f32le"
              " (process start-up %.4f s)\n",
              input.c_str(), repeat, runs, ffmpeg_startup_s);
  std::printf("%-22s %8s %9s %9s %9s %10s %7s %13s\n", "input", "audio_s", "ours_s", "ours_xRT",
              "ffmpeg_s", "ffmpeg_xRT", "ratio", "ratio_no_start");
  auto row = [&](const char* name, const std::string& path) {
    const Result r = Measure(path, runs, have_ffmpeg);
    if (r.ffmpeg_s > 0) {
      std::printf("%-22s %8.1f %9.4f %9.0f %9.4f %10.0f %7.2f %13.2f\n", name, r.audio_s, r.ours_s,
                  r.audio_s / r.ours_s, r.ffmpeg_s, r.audio_s / r.ffmpeg_s, r.ffmpeg_s / r.ours_s,
                  std::max(0.0, r.ffmpeg_s - ffmpeg_startup_s) / r.ours_s);
    } else {
      std::printf("%-22s %8.1f %9.4f %9.0f %9s %10s %7s %13s\n", name, r.audio_s, r.ours_s,
                  r.audio_s / r.ours_s, "-", "-", "-", "-");
    }
  };
  row("wav s16 16k mono", wav16);
  row("wav s16 48k stereo", wav48);
  if (have_flac) row("flac 44.1k stereo", flac44);
  std::printf("(ratio = ffmpeg time / our time, above 1 means we are faster; ratio_no_start takes\n"
              " ffmpeg's process start-up out of its time)\n");

  // The VAD over the 16 kHz audio, in 100 ms pushes as a live input would come.
  std::vector<double> vad_times;
  size_t utterances = 0;
  for (int run = 0; run < runs; ++run) {
    auto vad = VoiceActivityDetector::Create();
    if (!vad.ok()) return 1;
    AudioBuffer chunk;
    chunk.sample_rate = 16000;
    utterances = 0;
    const auto start = Clock::now();
    for (size_t i = 0; i < mono16k.size(); i += 1600) {
      chunk.samples.assign(mono16k.begin() + static_cast<std::ptrdiff_t>(i),
                           mono16k.begin() + static_cast<std::ptrdiff_t>(std::min(mono16k.size(), i + 1600)));
      auto events = vad->Push(chunk);
      if (!events.ok()) return 1;
      for (const auto& e : *events) utterances += e.type == VadEvent::Type::kSpeechEnd;
    }
    for (const auto& e : vad->Flush()) utterances += e.type == VadEvent::Type::kSpeechEnd;
    vad_times.push_back(Seconds(start));
  }
  const double audio_s = static_cast<double>(mono16k.size()) / 16000.0;
  const double vad_s = Median(vad_times);
  std::printf("vad (WebRTC, aggressiveness 2): %.1f s of audio in %.4f s = %.0f x realtime, %zu utterances\n",
              audio_s, vad_s, audio_s / vad_s, utterances);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
