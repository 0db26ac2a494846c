// output_bench: live output figures on this machine, against a real nginx-rtmp
// server on loopback (started here, as the tests do).
//
//   output_bench [--seconds 20] [--cost-seconds 5] [--size 1920x1080] [--fps 30]
//                [--preset veryfast] [--bitrate 4500000]
//
// 1. Sustained live output: frames paced at real time (SystemClock) into an
//    OutputSet with one RTMP output. Prints process CPU use, frames written late,
//    video frames dropped (congestion) and the latency from a frame handed to
//    the output ("rendered") to its packet written to the socket, p50/p95.
// 2. Encode cost: the same frames unpaced, ours (OutputSet -> RTMP) against the
//    ffmpeg CLI reading raw RGBA from a pipe at the same x264/AAC settings
//    (-tune zerolatency, CBR-constrained bitrate, GOP 2 s) pushing to the same
//    server. Prints CPU seconds of each and the ratio. Never fails on time.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/clock.h"
#include "output/output_set.h"
#include "output/rtmp_test_server.h"

extern char** environ;

namespace lingcast {
namespace {

struct Options {
  double seconds = 20;
  double cost_seconds = 5;
  int width = 1920, height = 1080, fps = 30;
  std::string preset = "veryfast";
  int64_t bitrate = 4'500'000;
};

constexpr int kSpeechRate = 22050;
constexpr int kDistinctFrames = 60;

double CpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// A gradient with a moving block and a band of changing stripes: motion an
// encoder must work for, like a presenter and subtitles.
VideoFrame DrawFrame(int width, int height, int index) {
  VideoFrame frame;
  frame.Allocate(width, height);
  const int block_x = (index * 23) % (width - 200);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      const bool block = x >= block_x && x < block_x + 200 && y > height / 3 && y < height / 3 + 300;
      const bool stripe = y > height * 5 / 6 && ((x / 12 + index / 15) % 3 == 0);
      row[4 * x + 0] = block ? 230 : static_cast<uint8_t>(30 + y * 60 / height);
      row[4 * x + 1] = stripe ? 240 : static_cast<uint8_t>(50 + x * 80 / width);
      row[4 * x + 2] = block ? 90 : static_cast<uint8_t>(120 + ((x ^ y ^ index) & 7));
      row[4 * x + 3] = 255;
    }
  }
  return frame;
}

AudioBuffer Tone(double seconds) {
  AudioBuffer pcm;
  pcm.sample_rate = kSpeechRate;
  pcm.channels = 1;
  pcm.samples.resize(static_cast<size_t>(seconds * kSpeechRate));
  for (size_t i = 0; i < pcm.samples.size(); ++i) {
    pcm.samples[i] = 0.3f * static_cast<float>(std::sin(2 * M_PI * 220 * static_cast<double>(i) / kSpeechRate));
  }
  return pcm;
}

VideoEncoderOptions VideoOptions(const Options& o) {
  VideoEncoderOptions video;
  video.width = o.width;
  video.height = o.height;
  video.fps_num = o.fps;
  video.preset = o.preset;
  video.tune = "zerolatency";
  video.bitrate = o.bitrate;
  video.keyframe_interval_s = 2;
  return video;
}

AudioEncoderOptions AudioOptions() {
  AudioEncoderOptions audio;
  audio.input_sample_rate = kSpeechRate;
  return audio;
}

int RunSustained(const Options& o, const std::vector<VideoFrame>& frames, testing_util::RtmpTestServer& server) {
  SystemClock clock;
  std::mutex mu;
  std::map<int64_t, MediaTime> handed_at;  // frame index -> when WriteVideo was called
  std::vector<double> latency_ms;
  OutputSetOptions options;
  options.live = true;
  options.on_packet_written = [&](const std::string&, const PacketWritten& p) {
    if (p.stream_index != kVideoStreamIndex) return;
    std::lock_guard<std::mutex> lock(mu);
    auto it = handed_at.find((p.pts.micros() * o.fps + 500'000) / 1'000'000);
    if (it != handed_at.end()) latency_ms.push_back((p.written_at - it->second).seconds() * 1000);
  };
  auto spec = ParseOutputSpec(server.Url("live", "sustained"));
  auto set = OutputSet::Open({*spec}, VideoOptions(o), AudioOptions(), options, clock);
  if (!set.ok()) {
    std::fprintf(stderr, "output_bench: %s\n", std::string(set.status().message()).c_str());
    return 1;
  }
  testing_util::PollUntil([&] { return (*set)->stats().outputs[0].state == OutputState::kConnected; });
  const int64_t total = static_cast<int64_t>(o.seconds * o.fps);
  const AudioBuffer tone = Tone(1.0 / o.fps);
  const double cpu_before = CpuSeconds(RUSAGE_SELF);
  const auto wall_before = std::chrono::steady_clock::now();
  const MediaTime start = clock.Now();
  int64_t late = 0;
  MediaTime worst_lag;
  for (int64_t i = 0; i < total; ++i) {
    const MediaTime due = start + MediaTime::FromFrameIndex(i, o.fps);
    clock.SleepUntil(due);
    const MediaTime lag = clock.Now() - due;
    worst_lag = std::max(worst_lag, lag);
    if (lag > MediaTime::FromFrameIndex(1, o.fps)) ++late;
    if (!(*set)->WriteAudio(tone).ok()) return 1;
    {
      std::lock_guard<std::mutex> lock(mu);
      handed_at[i] = clock.Now();
    }
    if (!(*set)->WriteVideo(frames[static_cast<size_t>(i % kDistinctFrames)], i).ok()) return 1;
  }
  const absl::Status finished = (*set)->Finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
  const double cpu = CpuSeconds(RUSAGE_SELF) - cpu_before;
  const OutputSinkStats out = (*set)->stats().outputs[0];
  std::lock_guard<std::mutex> lock(mu);
  std::printf("sustained %dx%d@%d to RTMP on loopback, %.0f s (preset %s, zerolatency, %.1f Mbit/s):\n", o.width,
              o.height, o.fps, o.seconds, o.preset.c_str(), static_cast<double>(o.bitrate) / 1e6);
  std::printf("  finish: %s\n", finished.ok() ? "ok" : std::string(finished.message()).c_str());
  std::printf("  CPU %.1f s over %.1f s wall = %.0f%% of one core (%.0f%% of the machine's %ld)\n", cpu, wall,
              100 * cpu / wall, 100 * cpu / wall / static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN)),
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("  frames late by more than a frame: %ld of %ld (worst lag %.1f ms)\n", late, total,
              worst_lag.seconds() * 1000);
  std::printf("  video frames dropped (congestion): %ld; reconnects %ld; sent %ld video + %ld audio packets, %.2f Mbit/s\n",
              out.dropped_video_frames, out.reconnects, out.video_packets, out.audio_packets, out.bitrate / 1e6);
  std::printf("  frame handed to the output -> packet written: p50 %.1f ms, p95 %.1f ms, max %.1f ms (%zu frames)\n",
              Percentile(latency_ms, 0.5), Percentile(latency_ms, 0.95), Percentile(latency_ms, 1.0),
              latency_ms.size());
  return 0;
}

// Our encode and push, unpaced. Returns CPU seconds of this process.
double OursCost(const Options& o, const std::vector<VideoFrame>& frames, testing_util::RtmpTestServer& server,
                int64_t total) {
  SystemClock clock;
  auto spec = ParseOutputSpec(server.Url("live", "ours"));
  auto set = OutputSet::Open({*spec}, VideoOptions(o), AudioOptions(), {}, clock);
  if (!set.ok()) return -1;
  testing_util::PollUntil([&] { return (*set)->stats().outputs[0].state == OutputState::kConnected; });
  const AudioBuffer tone = Tone(1.0 / o.fps);
  const double before = CpuSeconds(RUSAGE_SELF);
  for (int64_t i = 0; i < total; ++i) {
    if (!(*set)->WriteAudio(tone).ok()) return -1;
    if (!(*set)->WriteVideo(frames[static_cast<size_t>(i % kDistinctFrames)], i).ok()) return -1;
  }
  if (!(*set)->Finish().ok()) return -1;
  return CpuSeconds(RUSAGE_SELF) - before;
}

// The ffmpeg CLI at the same settings, frames through a pipe. Returns its CPU seconds.
double FfmpegCost(const Options& o, const std::vector<VideoFrame>& frames, testing_util::RtmpTestServer& server,
                  int64_t total) {
  const std::string audio_path = "/tmp/output_bench_audio.f32";
  {
    const AudioBuffer pcm = Tone(static_cast<double>(total) / o.fps);
    FILE* f = std::fopen(audio_path.c_str(), "wb");
    if (f == nullptr) return -1;
    std::fwrite(pcm.samples.data(), sizeof(float), pcm.samples.size(), f);
    std::fclose(f);
  }
  const std::string size = absl::StrCat(o.width, "x", o.height);
  const std::string rate = std::to_string(o.fps);
  const std::string bitrate = std::to_string(o.bitrate);
  const std::string bufsize = std::to_string(o.bitrate * 2);
  const std::string gop = std::to_string(2 * o.fps);
  const std::string url = server.Url("live", "ffmpeg");
  std::vector<std::string> args = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt",
                                   "rgba", "-s", size, "-r", rate, "-i", "pipe:0", "-f", "f32le", "-ar",
                                   std::to_string(kSpeechRate), "-ac", "1", "-i", audio_path, "-c:v", "libx264",
                                   "-preset", o.preset, "-tune", "zerolatency", "-b:v", bitrate, "-maxrate", bitrate,
                                   "-bufsize", bufsize, "-g", gop, "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a",
                                   "128000", "-ac", "1", "-ar", "48000", "-f", "flv", url};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "ffmpeg", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[0]);
  if (spawned != 0) {
    close(pipe_fds[1]);
    return -1;
  }
  for (int64_t i = 0; i < total; ++i) {
    const VideoFrame& frame = frames[static_cast<size_t>(i % kDistinctFrames)];
    const uint8_t* data = frame.rgba.data();
    size_t left = frame.rgba.size();
    while (left > 0) {
      const ssize_t n = write(pipe_fds[1], data, left);
      if (n <= 0) break;
      data += n;
      left -= static_cast<size_t>(n);
    }
  }
  close(pipe_fds[1]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  std::remove(audio_path.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int Run(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--seconds") o.seconds = std::stod(value);
    else if (flag == "--cost-seconds") o.cost_seconds = std::stod(value);
    else if (flag == "--size") std::sscanf(value.c_str(), "%dx%d", &o.width, &o.height);
    else if (flag == "--fps") o.fps = std::stoi(value);
    else if (flag == "--preset") o.preset = value;
    else if (flag == "--bitrate") o.bitrate = std::stoll(value);
    else {
      std::fprintf(stderr, "output_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (!testing_util::RtmpTestServer::Available()) {
    std::printf("output_bench: skipped: %s\n", testing_util::RtmpTestServer::kMissing);
    return 0;
  }
  av_log_set_level(AV_LOG_ERROR);
  testing_util::RtmpTestServer server;
  if (!server.Start()) {
    std::fprintf(stderr, "output_bench: nginx did not start\n%s\n", server.ErrorLog().c_str());
    return 1;
  }
  std::vector<VideoFrame> frames;
  for (int i = 0; i < kDistinctFrames; ++i) frames.push_back(DrawFrame(o.width, o.height, i));
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("load average before: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  if (int rc = RunSustained(o, frames, server); rc != 0) return rc;

  const int64_t total = static_cast<int64_t>(o.cost_seconds * o.fps);
  const double ours = OursCost(o, frames, server, total);
  const double ffmpeg = FfmpegCost(o, frames, server, total);
  std::printf("encode cost, %ld frames unpaced (RGBA -> yuv420p -> x264 %s zerolatency + AAC -> FLV/RTMP):\n", total,
              o.preset.c_str());
  std::printf("  lingcast %.2f s CPU, ffmpeg CLI %.2f s CPU: ratio %.2f (lingcast / ffmpeg; writing the raw\n"
              "  frames into ffmpeg's pipe is counted on neither side)\n",
              ours, ffmpeg, ffmpeg > 0 ? ours / ffmpeg : 0);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Run(argc, argv); }
