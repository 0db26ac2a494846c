// encode_bench: our MP4 encode (Mp4Writer) against the ffmpeg CLI encoding the
// same raw frames and PCM at the same x264/AAC settings, in the same run.
//
//   encode_bench [--seconds 10] [--size 1280x720] [--fps 30] [--preset veryfast]
//                [--crf 23] [--runs 3] [--tmp DIR] [--keep]
//                [--frames FRAMES.rgba --audio AUDIO.f32]
//
// Without --frames, it draws synthetic avatar-like frames and speech-like audio.
// With --frames/--audio (raw RGBA frames of --size, mono f32le PCM at 22050 Hz),
// it encodes those instead: bench/render_bench.sh feeds it a real render.
//
// Both sides read the same raw RGBA frames and f32le PCM from files (in the page
// cache after the first pass), convert RGBA -> yuv420p BT.709 limited range with
// swscale's bilinear filter, encode H.264 (x264, same preset, CRF, GOP, threads)
// and AAC (our default rate, channels and bitrate), and write an MP4 with faststart. Prints
// the median wall and CPU time of each and their ratio. It never fails on time.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/process_stats.h"
#include "media/audio_buffer.h"
#include "media/video_frame.h"
#include "audio/av_util.h"
#include "output/mp4_writer.h"

extern char** environ;

namespace lingcast {
namespace {

struct BenchOptions {
  double seconds = 10;
  int width = 1280, height = 720, fps = 30;
  std::string preset = "veryfast";
  int crf = 23;
  int runs = 3;
  std::string tmp = std::filesystem::temp_directory_path().string();
  bool keep = false;
  std::string frames_path;  // given raw inputs instead of synthetic ones
  std::string audio_path;
};

constexpr int kSpeechRate = 22050;  // espeak-ng's output rate, as in a real render

struct Timing {
  double wall_s = 0;
  double cpu_s = 0;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Something like the avatar scene: a smooth vertical gradient, a face-sized
// ellipse that sways and whose "mouth" opens and closes, and a subtitle band
// whose text-like stripes change every two seconds.
void DrawFrame(VideoFrame& frame, int64_t index, int fps) {
  const double t = static_cast<double>(index) / fps;
  const int w = frame.width, h = frame.height;
  const double cx = w * (0.5 + 0.05 * std::sin(t * 1.3)), cy = h * 0.42;
  const double rx = w * 0.12, ry = h * 0.28;
  const double mouth_open = 0.5 + 0.5 * std::sin(t * 14.0);
  const int64_t caption = index / (2 * fps);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = frame.Row(y);
    const auto bg = static_cast<uint8_t>(30 + 60 * y / h);
    const bool band = y > h * 80 / 100 && y < h * 92 / 100;
    for (int x = 0; x < w; ++x) {
      uint8_t r = bg / 2, g = bg, b = static_cast<uint8_t>(bg + 40);
      const double dx = (x - cx) / rx, dy = (y - cy) / ry;
      if (dx * dx + dy * dy < 1) {
        r = 235, g = 200, b = 170;
        const double mx = (x - cx) / (rx * 0.35), my = (y - cy - ry * 0.45) / (ry * 0.12 * (0.2 + mouth_open));
        if (mx * mx + my * my < 1) r = 120, g = 30, b = 40;
      }
      if (band) {
        r = g = b = 20;
        if (((x / 7 + caption * 13) % 5 != 0) && ((x / 41 + caption) % 3 != 0) && (y % 19 > 3)) r = g = b = 240;
      }
      row[4 * x] = r, row[4 * x + 1] = g, row[4 * x + 2] = b, row[4 * x + 3] = 255;
    }
  }
}

// Speech-like audio: a voiced buzz in syllable-length bursts with pauses.
AudioBuffer MakeSpeechLikeAudio(double seconds) {
  AudioBuffer audio;
  audio.sample_rate = kSpeechRate;
  const auto n = static_cast<size_t>(seconds * kSpeechRate);
  audio.samples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / kSpeechRate;
    const double envelope = std::max(0.0, std::sin(2 * M_PI * 3.1 * t)) * (std::fmod(t, 3.0) < 2.4 ? 1 : 0);
    const double voice = std::sin(2 * M_PI * 140 * t) + 0.5 * std::sin(2 * M_PI * 280 * t) +
                         0.25 * std::sin(2 * M_PI * 850 * t);
    audio.samples[i] = static_cast<float>(0.3 * envelope * voice);
  }
  return audio;
}

bool WriteRawInputs(const BenchOptions& o, const std::string& frames_path, const std::string& audio_path,
                    const AudioBuffer& audio) {
  std::ofstream frames(frames_path, std::ios::binary);
  VideoFrame frame;
  frame.Allocate(o.width, o.height);
  const auto total = static_cast<int64_t>(std::llround(o.seconds * o.fps));
  for (int64_t i = 0; i < total; ++i) {
    DrawFrame(frame, i, o.fps);
    frames.write(reinterpret_cast<const char*>(frame.rgba.data()), static_cast<std::streamsize>(frame.rgba.size()));
  }
  std::ofstream pcm(audio_path, std::ios::binary);
  pcm.write(reinterpret_cast<const char*>(audio.samples.data()),
            static_cast<std::streamsize>(audio.samples.size() * sizeof(float)));
  return frames.good() && pcm.good();
}

VideoEncoderOptions VideoOptions(const BenchOptions& o) {
  VideoEncoderOptions v;
  v.width = o.width;
  v.height = o.height;
  v.fps_num = o.fps;
  v.preset = o.preset;
  v.crf = o.crf;
  return v;
}

AudioEncoderOptions AudioOptions() {
  AudioEncoderOptions a;
  a.input_sample_rate = kSpeechRate;
  return a;
}

// Reads the raw files back and encodes them as the render job would: per
// frame, the audio up to that frame's end, then the frame.
absl::StatusOr<Timing> RunOurs(const BenchOptions& o, const std::string& frames_path, const std::string& audio_path,
                               const std::string& out_path, OutputStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();
  auto writer = Mp4Writer::Open(out_path, VideoOptions(o), AudioOptions());
  if (!writer.ok()) return writer.status();
  std::ifstream frames(frames_path, std::ios::binary);
  std::ifstream pcm(audio_path, std::ios::binary);
  VideoFrame frame;
  frame.Allocate(o.width, o.height);
  AudioBuffer chunk;
  chunk.sample_rate = kSpeechRate;
  int64_t samples_read = 0;
  for (int64_t i = 0;; ++i) {
    const int64_t audio_end = (i + 1) * kSpeechRate / o.fps;
    chunk.samples.resize(static_cast<size_t>(audio_end - samples_read));
    pcm.read(reinterpret_cast<char*>(chunk.samples.data()),
             static_cast<std::streamsize>(chunk.samples.size() * sizeof(float)));
    chunk.samples.resize(static_cast<size_t>(pcm.gcount()) / sizeof(float));
    samples_read += static_cast<int64_t>(chunk.samples.size());
    if (!chunk.empty()) {
      if (absl::Status s = (*writer)->WriteAudio(chunk); !s.ok()) return s;
    }
    if (!frames.read(reinterpret_cast<char*>(frame.rgba.data()), static_cast<std::streamsize>(frame.rgba.size()))) {
      break;
    }
    if (absl::Status s = (*writer)->WriteVideo(frame, i); !s.ok()) return s;
  }
  if (absl::Status s = (*writer)->Finish(); !s.ok()) return s;
  *stats = (*writer)->stats();
  Timing t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.cpu_s = ProcessCpuSeconds() - cpu_start;
  return t;
}

std::vector<std::string> FfmpegCommand(const BenchOptions& o, const std::string& frames_path,
                                       const std::string& audio_path, const std::string& out_path) {
  return {"ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
          "-f", "rawvideo", "-pix_fmt", "rgba", "-s", absl::StrFormat("%dx%d", o.width, o.height),
          "-r", std::to_string(o.fps), "-i", frames_path,
          "-f", "f32le", "-ar", std::to_string(kSpeechRate), "-ac", "1", "-i", audio_path,
          // The same conversion as ours: bilinear, BT.709 matrix, limited range, tagged.
          "-vf", "scale=out_color_matrix=bt709:out_range=tv:flags=bilinear", "-pix_fmt", "yuv420p",
          "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv",
          "-c:v", "libx264", "-preset", o.preset, "-crf", std::to_string(o.crf),
          "-g", std::to_string(2 * o.fps),
          "-c:a", "aac", "-aac_coder", AudioOptions().fast_coder ? "fast" : "twoloop", "-b:a", std::to_string(AudioOptions().bitrate / 1000) + "k", "-ar",
          std::to_string(AudioOptions().output_sample_rate), "-ac", std::to_string(AudioOptions().output_channels),
          "-movflags", "+faststart", out_path};
}

absl::StatusOr<Timing> RunFfmpeg(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    return absl::FailedPreconditionError("cannot run ffmpeg: install it (scripts/install-deps.sh)");
  }
  int wstatus = 0;
  struct rusage usage {};
  if (wait4(pid, &wstatus, 0, &usage) != pid || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return absl::InternalError("ffmpeg failed");
  }
  Timing t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return t;
}

int64_t FileSize(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? info.st_size : -1;
}

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--seconds") o.seconds = std::atof(next());
    else if (arg == "--size") { if (std::sscanf(next(), "%dx%d", &o.width, &o.height) != 2) return false; }
    else if (arg == "--fps") o.fps = std::atoi(next());
    else if (arg == "--preset") o.preset = next();
    else if (arg == "--crf") o.crf = std::atoi(next());
    else if (arg == "--runs") o.runs = std::max(1, std::atoi(next()));
    else if (arg == "--tmp") o.tmp = next();
    else if (arg == "--keep") o.keep = true;
    else if (arg == "--frames") o.frames_path = next();
    else if (arg == "--audio") o.audio_path = next();
    else return false;
  }
  if (o.frames_path.empty() != o.audio_path.empty()) return false;
  return o.seconds > 0 && o.fps > 0;
}

int Main(int argc, char** argv) {
  BenchOptions o;
  if (!ParseArgs(argc, argv, o)) {
    std::fprintf(stderr, "usage: encode_bench [--seconds S] [--size WxH] [--fps N] [--preset P] [--crf N] "
                         "[--runs N] [--tmp DIR] [--keep] [--frames FRAMES.rgba --audio AUDIO.f32]\n");
    return 2;
  }
  ScopedLibavLogLevel quiet(AV_LOG_ERROR);
  const std::filesystem::path dir = std::filesystem::path(o.tmp) / absl::StrFormat("encode_bench_%d", getpid());
  std::filesystem::create_directories(dir);
  const bool given_inputs = !o.frames_path.empty();
  const std::string frames_path = given_inputs ? o.frames_path : (dir / "frames.rgba").string();
  const std::string audio_path = given_inputs ? o.audio_path : (dir / "audio.f32").string();
  const std::string ours_path = (dir / "ours.mp4").string(), ffmpeg_path = (dir / "ffmpeg.mp4").string();
  if (given_inputs) {
    const int64_t frame_bytes = int64_t{4} * o.width * o.height;
    const int64_t bytes = FileSize(frames_path);
    if (bytes <= 0 || bytes % frame_bytes != 0 || FileSize(audio_path) < 0) {
      std::fprintf(stderr, "encode_bench: %s is not a whole number of %dx%d RGBA frames, or %s is missing\n",
                   frames_path.c_str(), o.width, o.height, audio_path.c_str());
      return 2;
    }
    o.seconds = static_cast<double>(bytes / frame_bytes) / o.fps;
  }

  std::printf("encode_bench: %.1f s of %dx%d@%d %s frames + %d Hz mono %s audio\n", o.seconds, o.width, o.height,
              o.fps, given_inputs ? "given" : "synthetic", kSpeechRate, given_inputs ? "given" : "speech-like");
  std::printf("  x264 preset %s, crf %d, keyframe every 2 s, threads auto; AAC %lld kbit/s, %d channel(s), "
              "%d Hz; faststart MP4\n", o.preset.c_str(), o.crf, static_cast<long long>(AudioOptions().bitrate / 1000),
              AudioOptions().output_channels, AudioOptions().output_sample_rate);
  if (!given_inputs && !WriteRawInputs(o, frames_path, audio_path, MakeSpeechLikeAudio(o.seconds))) {
    std::fprintf(stderr, "encode_bench: cannot write raw inputs under %s\n", dir.c_str());
    return 1;
  }
  const std::vector<std::string> command = FfmpegCommand(o, frames_path, audio_path, ffmpeg_path);
  std::string shown;
  for (const std::string& arg : command) shown += arg + " ";
  std::printf("  reference: %s\n", shown.c_str());

  std::vector<double> ours_wall, ours_cpu, ff_wall, ff_cpu, pair_ratio;
  OutputStats stats;
  for (int run = 0; run < o.runs; ++run) {
    // Alternate the order so neither side always runs on a warmer machine.
    for (int side = 0; side < 2; ++side) {
      if ((side == 0) == (run % 2 == 0)) {
        auto t = RunOurs(o, frames_path, audio_path, ours_path, &stats);
        if (!t.ok()) {
          std::fprintf(stderr, "encode_bench: %s\n", std::string(t.status().message()).c_str());
          return 1;
        }
        ours_wall.push_back(t->wall_s);
        ours_cpu.push_back(t->cpu_s);
        std::printf("  run %d ours:   %.3f s wall, %.3f s CPU\n", run + 1, t->wall_s, t->cpu_s);
      } else {
        auto t = RunFfmpeg(command);
        if (!t.ok()) {
          std::fprintf(stderr, "encode_bench: %s\n", std::string(t.status().message()).c_str());
          return 1;
        }
        ff_wall.push_back(t->wall_s);
        ff_cpu.push_back(t->cpu_s);
        std::printf("  run %d ffmpeg: %.3f s wall, %.3f s CPU\n", run + 1, t->wall_s, t->cpu_s);
      }
    }
  }
  for (size_t i = 0; i < ours_wall.size() && i < ff_wall.size(); ++i) pair_ratio.push_back(ours_wall[i] / ff_wall[i]);
  const double ow = Median(ours_wall), oc = Median(ours_cpu), fw = Median(ff_wall), fc = Median(ff_cpu);
  std::printf("ours   (median of %d): %.3f s wall (%.1fx real time, %.0f fps), %.3f s CPU, %lld bytes\n", o.runs,
              ow, o.seconds / ow, o.seconds * o.fps / ow, oc, static_cast<long long>(FileSize(ours_path)));
  std::printf("  last run: convert %.3f s, video encode %.3f s (incl. convert), audio encode %.3f s, mux %.3f s\n",
              stats.video_convert_seconds, stats.video_encode_seconds, stats.audio_encode_seconds,
              stats.mux_seconds);
  std::printf("ffmpeg (median of %d): %.3f s wall (%.1fx real time), %.3f s CPU, %lld bytes\n", o.runs, fw,
              o.seconds / fw, fc, static_cast<long long>(FileSize(ffmpeg_path)));
  std::printf("peak RSS of this process (ours only; ffmpeg runs as a child): %.1f MB\n", PeakRssMb());
  std::printf("ratio ours/ffmpeg: wall %.3f (median of per-run ratios %.3f, of fastest runs %.3f), CPU %.3f "
              "(target: <= 1.10)\n",
              ow / fw, Median(pair_ratio), *std::min_element(ours_wall.begin(), ours_wall.end()) /
                                               *std::min_element(ff_wall.begin(), ff_wall.end()),
              oc / fc);

  if (o.keep) {
    std::printf("kept %s\n", dir.c_str());
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
