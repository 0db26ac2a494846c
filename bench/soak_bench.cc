// A long soak, compressed (issue 23): `live` on the simulated clock over HOURS
// of host audio, and `serve` with sessions created and ended over and over.
//
//   build/bench/soak_bench [HOURS] [SERVE_CYCLES] [SIZE] [FPS] [OUT_DIR (default out/soak)] [mp4|mp4:N|no-mp4]
//
// HOURS (default 24; fractions allowed) of the bench show (bench/live_show.h:
// the seven script lines with their two ad-libs, espeak-ng en-gb) looped. The
// host audio goes in as raw PCM on the job's stdin stream from a streambuf that
// repeats one copy of the show (about 1.3 MB) until HOURS have been read: memory
// stays flat whatever the length, where a concatenated WAV would hold 115 MB
// per hour in the bench and on disk. Outputs: an MP4 file, an HLS directory
// (the live default: a rolling window of 6 segments) and RTMP to a local nginx
// (output/rtmp_test_server.h) that the bench kills (SIGKILL) and starts again
// on the same port every simulated hour; the RTMP output must reconnect. Every
// CORRECTION_MINUTES (3) of show time a correction is submitted in process
// (`line 3 = ...`, `tm ... = ...`, `term ... = ...`, in turn).
//
// Every 5 minutes of output time (keyed on the job's events' timestamps, which
// are on the output timeline) a sample: RSS, open fds (/proc/self/fd), threads
// (/proc/self/task), audio and video drops, compute latency p95 of the lines
// whose speech started since the last sample, and the A/V offset at two outputs:
//   HLS   the newest complete segment in the playlist, read back with libav as a
//         player downloads it: the end of its last audio packet minus the end of
//         its last video frame (and the same for their starts). A player joining
//         or switching there hears the audio that far ahead of (+) or behind (-)
//         the picture at the segment's edges.
//   RTMP  the packets the sender wrote to the socket (OutputsConfig::
//         on_packet_written): the end of the newest audio packet minus the end
//         of the newest video frame, at the sample. What the server, and so a
//         viewer, has received so far.
// no-mp4 leaves the MP4 file out (to tell its muxer's index, which grows with
// the recording until the file is closed, from the rest of the heap); mp4:N
// rotates it every N minutes of show (--segment-minutes N), which bounds that
// index to one file's.
// Drift: the least-squares slope of each offset over the hours (ms/h); RSS
// growth: the slope of RSS from minute 10 on (MB/h).
// Writes OUT_DIR/soak.csv (one row per sample), OUT_DIR/soak.png (RSS, offsets
// and latency over the hours, drawn by gnuplot when installed) and prints an
// hourly table. SIZE (default 320x180) at FPS (default 15): the soak exercises
// the same pipeline as a 720p30 show at a fraction of the CPU.
//
// The serve part: SERVE_CYCLES (default 80, more than the 64 ended sessions a
// SessionManager keeps, so the kept reports reach their limit) sessions, one at
// a time, through a SessionManager with the live session factory, each the
// show once on the simulated clock to an HLS directory; every other one is
// stopped after its third line, the others run to their end. RSS, fds and
// threads after each cycle, the growth after the first 10 cycles.
//
// SIGINT/SIGTERM end the live part early (and the serve part after its cycle),
// with the figures so far.
// Prints figures; never fails on them.
#include <dirent.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "app/live_job.h"
#include "app/serve_sessions.h"
#include "app/signals.h"
#include "core/process_memory.h"
#include "core/process_stats.h"
#include "live_show.h"
#include "output/live_report.h"
#include "output/rtmp_test_server.h"
#include "server/session_manager.h"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

constexpr int kSampleMinutes = 5;
constexpr int kCorrectionMinutes = 3;
constexpr int kWarmUpMinutes = 10;

// The show's PCM repeated until `total_bytes` have been read; one copy in memory.
class LoopedShow : public std::streambuf {
 public:
  LoopedShow(std::vector<char> once, int64_t total_bytes) : once_(std::move(once)), left_(total_bytes) {}

 protected:
  int_type underflow() override {
    if (left_ <= 0 || once_.empty()) return traits_type::eof();
    if (offset_ >= once_.size()) offset_ = 0;
    const size_t n = static_cast<size_t>(std::min<int64_t>(left_, static_cast<int64_t>(once_.size() - offset_)));
    char* begin = once_.data() + offset_;
    setg(begin, begin, begin + n);
    offset_ += n;
    left_ -= static_cast<int64_t>(n);
    return traits_type::to_int_type(*begin);
  }

 private:
  std::vector<char> once_;
  size_t offset_ = 0;
  int64_t left_;
};

// The heap in use, MB: every malloc arena's allocated blocks plus the large
// blocks malloc maps on their own (x264's frames, a muxer's growing index):
// what RSS holds apart from memory the allocator keeps free for reuse.
double HeapInUseMb() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd) / (1 << 20);
}

int CountEntries(const char* dir) {
  int n = 0;
  if (DIR* d = opendir(dir)) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    closedir(d);
  }
  return n - (std::string(dir) == "/proc/self/fd" ? 1 : 0);  // less the one opendir holds
}

struct StreamSpan {
  std::optional<double> first_ms, last_ms;
  double step_ms = 0;  // the smallest step between two packets: one frame
  double end_ms() const { return *last_ms + step_ms; }
};

// The A/V offsets of one MPEG-TS segment: {start, end} (audio - video), ms.
std::optional<std::pair<double, double>> SegmentOffsets(const std::string& path) {
  AVFormatContext* format = nullptr;
  if (avformat_open_input(&format, path.c_str(), nullptr, nullptr) < 0) return std::nullopt;
  StreamSpan audio, video;
  AVPacket* packet = av_packet_alloc();
  while (av_read_frame(format, packet) >= 0) {
    const AVStream* stream = format->streams[packet->stream_index];
    if (packet->pts != AV_NOPTS_VALUE) {
      StreamSpan& span = stream->codecpar->codec_type == AVMEDIA_TYPE_AUDIO ? audio : video;
      const double ms = static_cast<double>(packet->pts) * av_q2d(stream->time_base) * 1000;
      if (span.last_ms && ms > *span.last_ms) {
        const double step = ms - *span.last_ms;
        span.step_ms = span.step_ms == 0 ? step : std::min(span.step_ms, step);
      }
      if (!span.first_ms || ms < *span.first_ms) span.first_ms = ms;
      if (!span.last_ms || ms > *span.last_ms) span.last_ms = ms;
    }
    av_packet_unref(packet);
  }
  av_packet_free(&packet);
  avformat_close_input(&format);
  if (!audio.first_ms || !video.first_ms) return std::nullopt;
  return std::make_pair(*audio.first_ms - *video.first_ms, audio.end_ms() - video.end_ms());
}

// The newest complete segment the HLS playlist lists, read back.
std::optional<std::pair<double, double>> HlsOffsets(const std::filesystem::path& dir) {
  std::ifstream playlist(dir / "video.m3u8");
  std::string line, newest;
  while (std::getline(playlist, line)) {
    if (!line.empty() && line[0] != '#') newest = line;
  }
  if (newest.empty()) return std::nullopt;
  return SegmentOffsets((dir / newest).string());
}

// What the RTMP sender has written: the newest packet of each stream and the step before it.
class WireWatch {
 public:
  void Written(const PacketWritten& p) {
    absl::MutexLock lock(&mu_);
    StreamSpan& span = p.stream_index == kAudioStreamIndex ? audio_ : video_;
    const double ms = static_cast<double>(p.pts.micros()) / 1000;
    if (span.last_ms && ms > *span.last_ms) span.step_ms = ms - *span.last_ms;
    if (!span.last_ms || ms > *span.last_ms) span.last_ms = ms;
    connection_ = p.connection;
  }
  std::optional<double> OffsetMs() const {
    absl::MutexLock lock(&mu_);
    if (!audio_.last_ms || !video_.last_ms) return std::nullopt;
    return audio_.end_ms() - video_.end_ms();
  }
  int connection() const {
    absl::MutexLock lock(&mu_);
    return connection_;
  }

 private:
  mutable absl::Mutex mu_;
  StreamSpan audio_ ABSL_GUARDED_BY(mu_), video_ ABSL_GUARDED_BY(mu_);
  int connection_ ABSL_GUARDED_BY(mu_) = 0;
};

// How far the output timeline has got (from the job's events), and whether the job has ended.
class OutputTime {
 public:
  void Saw(int64_t at_ms) {
    absl::MutexLock lock(&mu_);
    at_ms_ = std::max(at_ms_, at_ms);
  }
  void End() {
    absl::MutexLock lock(&mu_);
    ended_ = true;
  }
  // False when the job ended first.
  bool WaitFor(int64_t ms) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, ms]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ended_ || at_ms_ >= ms; };
    mu_.Await(absl::Condition(&reached));
    return at_ms_ >= ms;
  }

 private:
  absl::Mutex mu_;
  int64_t at_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

struct Sample {
  int minute = 0;
  double wall_s = 0, rss_mb = 0, heap_mb = 0;
  int fds = 0, threads = 0;
  int64_t audio_drops = 0, video_drops = 0, frames = 0, lines = 0;
  double latency_p95_ms = NAN;  // lines that started since the sample before
  double hls_start_ms = NAN, hls_end_ms = NAN, rtmp_ms = NAN;
  int rtmp_connection = 0, nginx_restarts = 0, corrections = 0, corrections_refused = 0;
};

// Least-squares slope of y over x, ignoring NaNs.
double Slope(const std::vector<double>& x, const std::vector<double>& y) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(y[i])) continue;
    n += 1, sx += x[i], sy += y[i], sxx += x[i] * x[i], sxy += x[i] * y[i];
  }
  const double d = n * sxx - sx * sx;
  return n < 2 || d == 0 ? NAN : (n * sxy - sx * sy) / d;
}

double MaxAbs(const std::vector<Sample>& samples, double Sample::*field) {
  double m = 0;
  for (const Sample& s : samples) {
    if (!std::isnan(s.*field)) m = std::max(m, std::abs(s.*field));
  }
  return m;
}

void WriteCsv(const std::filesystem::path& path, const std::vector<Sample>& samples) {
  std::ofstream out(path);
  out << "minute,hours,wall_s,rss_mb,fds,threads,audio_drops,video_drops,frames,lines,latency_p95_ms,"
         "hls_av_start_ms,hls_av_end_ms,rtmp_av_ms,rtmp_connection,nginx_restarts,corrections,corrections_refused,heap_mb\n";
  for (const Sample& s : samples) {
    char row[512];
    std::snprintf(row, sizeof(row), "%d,%.4f,%.1f,%.2f,%d,%d,%lld,%lld,%lld,%lld,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%.2f\n",
                  s.minute, s.minute / 60.0, s.wall_s, s.rss_mb, s.fds, s.threads,
                  static_cast<long long>(s.audio_drops), static_cast<long long>(s.video_drops),
                  static_cast<long long>(s.frames), static_cast<long long>(s.lines), s.latency_p95_ms, s.hls_start_ms,
                  s.hls_end_ms, s.rtmp_ms, s.rtmp_connection, s.nginx_restarts, s.corrections, s.corrections_refused, s.heap_mb);
    out << row;
  }
}

// soak.png beside the CSV: three panels over the hours of show.
void Plot(const std::filesystem::path& csv, const std::filesystem::path& png, const std::string& title) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    std::printf("(gnuplot is not installed: no %s; scripts/install-deps.sh installs gnuplot-nox)\n", png.c_str());
    return;
  }
  const std::filesystem::path script = png.string() + ".gp";
  std::ofstream(script) << "set terminal pngcairo size 1100,1000 noenhanced\n"
                           "set output '" << png.string() << "'\n"
                           "set datafile separator ','\n"
                           "set datafile missing 'nan'\n"
                           "set key autotitle columnhead\n"
                           "set grid\n"
                           "set xrange [0:*]\n"
                           "set multiplot layout 3,1 title '" << title << "'\n"
                           "set ylabel 'RSS (MB)'\n"
                           "plot '" << csv.string() << "' using 2:4 with linespoints pt 7 ps 0.4 title 'RSS', "
                           "'' using 2:19 with linespoints pt 7 ps 0.4 title 'heap in use'\n"
                           "set ylabel 'A/V offset (ms, audio - video)'\n"
                           "plot '" << csv.string() << "' using 2:12 with linespoints pt 7 ps 0.4 title 'HLS segment start', "
                           "'' using 2:13 with linespoints pt 7 ps 0.4 title 'HLS segment end', "
                           "'' using 2:14 with linespoints pt 7 ps 0.4 title 'RTMP written'\n"
                           "set ylabel 'compute latency p95 (ms)'\n"
                           "set yrange [0:*]\n"
                           "set xlabel 'hours of show (simulated clock)'\n"
                           "plot '" << csv.string() << "' using 2:11 with linespoints pt 7 ps 0.4 title 'lines since the sample before'\n"
                           "unset multiplot\n";
  const std::string command = "gnuplot '" + script.string() + "'";
  if (std::system(command.c_str()) != 0) std::printf("(gnuplot failed: see %s)\n", script.c_str());
}

std::vector<char> ShowPcm(const std::string& wav) {
  std::ifstream in(wav, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.erase(bytes.begin(), bytes.begin() + std::min<size_t>(44, bytes.size()));  // WriteHost's canonical header
  return bytes;
}

int RunLiveSoak(SignalWatcher& signals, double hours, const std::string& size, int fps, bool mp4, int segment_minutes,
                const std::filesystem::path& work,
                const std::filesystem::path& out_dir, const std::string& script, const std::string& glossary,
                const std::vector<char>& show_pcm, Logger& logger) {
  std::optional<testing_util::RtmpTestServer> nginx;
  if (testing_util::RtmpTestServer::Available()) {
    nginx.emplace();
    if (!nginx->Start()) nginx.reset();
  }
  if (!nginx) std::printf("(nginx with the RTMP module is not available: no RTMP output)\n");
  WireWatch wire;
  LiveOptions options;
  options.input.path = "-";
  options.outputs.destinations = {"hls:" + (work / "hls").string()};
  if (mp4) options.outputs.destinations.push_back((work / "soak.mp4").string());
  options.outputs.segment_minutes = segment_minutes;
  if (nginx) options.outputs.destinations.push_back(nginx->Url("live", "soak"));
  options.outputs.on_packet_written = [&](const std::string& output, const PacketWritten& p) {
    if (output.rfind("rtmp", 0) == 0) wire.Written(p);
  };
  options.translation.script_path = script;
  options.translation.glossary_path = glossary;
  options.translation.control_in_process = true;
  options.timing.clock = LiveClock::kSimulated;
  if (std::sscanf(size.c_str(), "%dx%d", &options.look.width, &options.look.height) != 2) return 2;
  options.look.fps = fps;
  options.quiet = true;

  const int64_t total_bytes = static_cast<int64_t>(hours * 3600 * 16000) * 2;
  LoopedShow looped(show_pcm, total_bytes);
  std::istream host(&looped);
  const double rss_before_create = CurrentRssMb();
  absl::StatusOr<std::unique_ptr<LiveJob>> job = LiveJob::Create(options, logger, host);
  if (!job.ok()) {
    std::fprintf(stderr, "live: %s\n", job.status().ToString().c_str());
    return 1;
  }
  OutputTime output_time;
  (*job)->SetEventObserver([&](const nlohmann::json& event) {
    if (event.contains("at_ms") && event["at_ms"].is_number()) output_time.Saw(event["at_ms"].get<int64_t>());
  });

  std::vector<Sample> samples;
  const auto wall_start = std::chrono::steady_clock::now();
  auto wall = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(); };
  // The id of the last line counted: the report keeps the last 1,000 lines
  // only (LiveMonitor::kKeptRecords), so a position in its list moves.
  int64_t counted_through_id = -1;
  int restarts = 0, corrections = 0, refused = 0;
  std::map<int, std::vector<double>> latency_by_hour;  // hour -> compute latency of its lines
  auto take_sample = [&](int minute) {
    Sample s;
    s.minute = minute;
    s.wall_s = wall();
    LiveProgress progress = (*job)->Progress();
    s.rss_mb = CurrentRssMb();
    s.heap_mb = HeapInUseMb();
    s.fds = CountEntries("/proc/self/fd");
    s.threads = CountEntries("/proc/self/task");
    s.audio_drops = progress.counters.audio_drops;
    s.video_drops = progress.counters.video_drops;
    s.frames = progress.counters.frames;
    s.lines = progress.lines;
    std::vector<double> recent;
    const nlohmann::json& utterances = progress.report["utterances"];
    // Lines whose speech has started (and so has a compute latency) since the last sample.
    for (const nlohmann::json& u : utterances) {
      if (u["id"].get<int64_t>() <= counted_through_id) continue;
      // Settled: said (a compute latency), skipped, or decided long enough ago to be subtitles only.
      const bool settled = u["compute_latency_ms"].is_number() || u["skipped"].get<bool>() ||
                           u["decided_at_ms"].get<double>() + 30'000 < minute * 60'000.0;
      if (!settled) break;
      if (u["compute_latency_ms"].is_number()) {
        recent.push_back(u["compute_latency_ms"].get<double>());
        latency_by_hour[(minute - 1) / 60].push_back(recent.back());
      }
      counted_through_id = u["id"].get<int64_t>();
    }
    if (!recent.empty()) s.latency_p95_ms = ComputePercentiles(recent).p95;
    if (auto hls = HlsOffsets(work / "hls")) std::tie(s.hls_start_ms, s.hls_end_ms) = *hls;
    if (auto rtmp = wire.OffsetMs()) s.rtmp_ms = *rtmp;
    s.rtmp_connection = wire.connection();
    s.nginx_restarts = restarts;
    s.corrections = corrections;
    s.corrections_refused = refused;
    samples.push_back(s);
    WriteCsv(out_dir / "soak.csv", samples);  // every sample: a run cut short keeps its figures
    std::printf("  %6.2f h  wall %6.0f s  RSS %6.1f MB  heap %6.1f MB  fds %3d  threads %3d  drops a%lld v%lld  lines %5lld  "
                "p95 %5.0f ms  A/V hls %+5.0f/%+5.0f rtmp %+5.0f ms  conn %d\n",
                minute / 60.0, s.wall_s, s.rss_mb, s.heap_mb, s.fds, s.threads, static_cast<long long>(s.audio_drops),
                static_cast<long long>(s.video_drops), static_cast<long long>(s.lines), s.latency_p95_ms,
                s.hls_start_ms, s.hls_end_ms, s.rtmp_ms, s.rtmp_connection);
    std::fflush(stdout);
  };
  const std::vector<std::string> correction_cycle = {
      "line 3 = 今天只要九十九美元，快来抢购",
      "tm Let me read some of your comments = 我来读一读大家的评论",
      "term dress = 连衣裙",
      "line 3 = 今天只要九十九美元",
      "tm Let me read some of your comments = 我来看看大家的留言",
      "term dress = 裙子",
  };

  std::printf("live soak: %.2f h of host audio (the show looped, %.1f s a loop), %s at %d fps, simulated clock; "
              "outputs %sHLS%s; RSS %.1f MB before the job, %.1f MB after Create\n",
              hours, static_cast<double>(show_pcm.size()) / 32000, size.c_str(), fps, mp4 ? "MP4 + " : "",
              nginx ? " + RTMP" : "",
              rss_before_create, CurrentRssMb());
  std::fflush(stdout);
  absl::StatusOr<nlohmann::json> report;
  std::thread runner([&] {
    report = (*job)->Run(&signals, nullptr);
    output_time.End();
  });
  take_sample(0);
  for (int minute = 1;; ++minute) {
    if (!output_time.WaitFor(int64_t{minute} * 60'000)) break;
    if (minute % kCorrectionMinutes == 0) {
      const std::string& command = correction_cycle[static_cast<size_t>(corrections + refused) % correction_cycle.size()];
      absl::Status submitted = (*job)->SubmitCorrection(command);
      (submitted.ok() ? corrections : refused) += 1;
      if (!submitted.ok()) std::printf("  correction refused: %s\n", submitted.ToString().c_str());
    }
    // Not at the show's last minute: a server killed as the stream ends leaves the
    // RTMP output unconnected at its end, which the job reports as an error (the
    // 24 h run of 2026-12-06 ended so at its 24th restart, after its last sample).
    if (minute % 60 == 0 && nginx && minute + 1 < static_cast<int>(hours * 60)) {
      nginx->Kill();
      if (!nginx->Start()) std::printf("  nginx did not come back at %d min\n", minute);
      ++restarts;
    }
    if (minute % kSampleMinutes == 0) take_sample(minute);
  }
  runner.join();
  if (!report.ok()) {
    std::fprintf(stderr, "live soak: %s\n", report.status().ToString().c_str());
    return 1;
  }
  const nlohmann::json& summary = (*report)["summary"];
  const double show_hours = samples.empty() ? 0 : samples.back().minute / 60.0;
  // The output time the job reached (less than HOURS when a signal cut it short).
  const double done_hours = static_cast<double>(summary["frames"].get<int64_t>()) / fps / 3600;
  std::printf("done: %.1f s wall for %.2f h of show (%.1fx real time; %.2f h asked); lines %lld, audio drops %lld, "
              "video drops %lld of %lld frames, corrections applied %d, refused %d, nginx restarts %d\n",
              wall(), done_hours, done_hours * 3600 / std::max(1.0, wall()), hours,
              static_cast<long long>(samples.back().lines),
              static_cast<long long>(summary["audio_drops"].get<int64_t>()),
              static_cast<long long>(summary["video_drops"].get<int64_t>()),
              static_cast<long long>(summary["frames"].get<int64_t>()), corrections, refused, restarts);
  for (const auto& o : summary["outputs"]) {
    std::printf("  output %-40s %lld reconnects %s\n", o["name"].get<std::string>().c_str(),
                static_cast<long long>(o["reconnects"].get<int64_t>()), o["error"].get<std::string>().c_str());
  }

  // Figures over the run.
  std::vector<double> x, rss, hls_end, hls_start, rtmp, x_warm, rss_warm;
  for (const Sample& s : samples) {
    x.push_back(s.minute / 60.0);
    rss.push_back(s.rss_mb);
    hls_start.push_back(s.hls_start_ms);
    hls_end.push_back(s.hls_end_ms);
    rtmp.push_back(s.rtmp_ms);
    if (s.minute >= kWarmUpMinutes) x_warm.push_back(s.minute / 60.0), rss_warm.push_back(s.rss_mb);
  }
  std::printf("\nper hour (the sample at the hour; latency p95 over the hour's lines):\n");
  std::printf("  %5s %8s %4s %7s %14s %14s %11s %11s %12s\n", "hour", "RSS MB", "fds", "threads", "A/V HLS s/e ms",
              "A/V RTMP ms", "audio drops", "video drops", "latency p95");
  for (const Sample& s : samples) {
    if (s.minute % 60 != 0 && s.minute != samples.back().minute) continue;
    const int hour = s.minute / 60;
    const auto lat = latency_by_hour.find(hour - (s.minute % 60 == 0 && hour > 0 ? 1 : 0));
    const double p95 = s.minute == 0 || lat == latency_by_hour.end() ? NAN : ComputePercentiles(lat->second).p95;
    std::printf("  %5.2f %8.1f %4d %7d %6.0f / %5.0f %14.0f %11lld %11lld %9.0f ms\n", s.minute / 60.0, s.rss_mb, s.fds,
                s.threads, s.hls_start_ms, s.hls_end_ms, s.rtmp_ms, static_cast<long long>(s.audio_drops),
                static_cast<long long>(s.video_drops), p95);
  }
  std::vector<double> all_latency;
  for (const auto& [hour, values] : latency_by_hour) all_latency.insert(all_latency.end(), values.begin(), values.end());
  const Percentiles latency = ComputePercentiles(all_latency);
  int fds_min = 1 << 30, fds_max = 0, threads_min = 1 << 30, threads_max = 0;
  for (const Sample& s : samples) {
    if (s.minute < kWarmUpMinutes) continue;
    fds_min = std::min(fds_min, s.fds), fds_max = std::max(fds_max, s.fds);
    threads_min = std::min(threads_min, s.threads), threads_max = std::max(threads_max, s.threads);
  }
  std::printf("\nsummary over %.2f h of show:\n", show_hours);
  std::printf("  RSS growth after %d min   %+.2f MB/h (least squares; start %.1f MB, end %.1f MB)\n", kWarmUpMinutes,
              Slope(x_warm, rss_warm), rss_warm.empty() ? NAN : rss_warm.front(), rss.back());
  if (fds_max > 0) {
    std::printf("  fds after %d min          %d..%d\n", kWarmUpMinutes, fds_min, fds_max);
    std::printf("  threads after %d min      %d..%d\n", kWarmUpMinutes, threads_min, threads_max);
  }
  std::printf("  A/V offset HLS start    max |%.0f| ms, drift %+.2f ms/h\n", MaxAbs(samples, &Sample::hls_start_ms),
              Slope(x, hls_start));
  std::printf("  A/V offset HLS end      max |%.0f| ms, drift %+.2f ms/h\n", MaxAbs(samples, &Sample::hls_end_ms),
              Slope(x, hls_end));
  std::printf("  A/V offset RTMP         max |%.0f| ms, drift %+.2f ms/h\n", MaxAbs(samples, &Sample::rtmp_ms),
              Slope(x, rtmp));
  std::printf("  compute latency         p50 %.0f ms, p95 %.0f ms, p99 %.0f ms over %lld lines\n", latency.p50,
              latency.p95, latency.p99, static_cast<long long>(latency.count));
  std::printf("  drops                   audio %lld, video %lld\n",
              static_cast<long long>(summary["audio_drops"].get<int64_t>()),
              static_cast<long long>(summary["video_drops"].get<int64_t>()));
  char title[256];
  std::snprintf(title, sizeof(title), "lingcast live soak: %.1f h of show, %s@%d, simulated clock, %sHLS + RTMP",
                show_hours, size.c_str(), fps, mp4 ? "MP4 + " : "");
  if (samples.size() > 1) Plot(out_dir / "soak.csv", out_dir / "soak.png", title);
  std::printf("  CSV %s, plot %s\n", (out_dir / "soak.csv").c_str(), (out_dir / "soak.png").c_str());
  std::fflush(stdout);
  return 0;
}

// What each open fd points at ("socket:[123]", a path, "anon_inode:[eventfd]").
std::map<int, std::string> OpenFds() {
  std::map<int, std::string> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), error);
    if (!error) fds[std::atoi(entry.path().filename().c_str())] = target.string();
  }
  return fds;
}

int RunServeCycles(const SignalWatcher& signals, int cycles, const std::string& size, int fps, const std::filesystem::path& work,
                   const std::filesystem::path& out_dir, Logger& logger) {
  ServeDirectories dirs;
  dirs.media = work.string();
  dirs.output = work.string();
  EngineCache engines;
  SessionManagerOptions manager_options;
  manager_options.max_sessions = 2;
  SessionManager sessions(LiveSessionFactory(dirs, logger, engines), manager_options);
  std::printf("\nserve: %d sessions one after another (the show once each, %s at %d fps, simulated clock, HLS); "
              "every other one stopped after its third line\n",
              cycles, size.c_str(), fps);
  std::printf("  %5s %7s %8s %8s %4s %7s %s\n", "cycle", "wall s", "RSS MB", "heap MB", "fds", "threads", "session");
  std::ofstream csv(out_dir / "serve_soak.csv");
  csv << "cycle,wall_s,rss_mb,heap_mb,fds,threads,state,lines,audio_drops\n";
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<double> cycle_x, cycle_rss, cycle_heap;
  int fds_min = 1 << 30, fds_max = 0, threads_min = 1 << 30, threads_max = 0;
  std::map<int, std::string> fds_after_warm_up;
  for (int cycle = 1; cycle <= cycles && signals.received() == 0; ++cycle) {
    const std::string hls = "hls" + std::to_string(cycle);
    const nlohmann::json settings = {{"in", "host.wav"}, {"out", {"hls:" + hls}}, {"script", "show.script"},
                                     {"size", size},     {"fps", fps},            {"clock", "simulated"}};
    absl::StatusOr<std::string> id = sessions.Create(settings);
    if (!id.ok()) {
      std::fprintf(stderr, "serve: %s\n", id.status().ToString().c_str());
      return 1;
    }
    if (cycle % 2 == 1) {
      // Stopped mid-show, as an operator ends a session: after its third line.
      while (true) {
        absl::StatusOr<SessionSummary> got = sessions.Get(*id);
        if (!got.ok() || got->state == SessionState::kFinished || got->state == SessionState::kFailed) break;
        const nlohmann::json& progress = got->progress;
        if (progress.contains("utterances") && progress["utterances"].size() >= 3) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      (void)sessions.Stop(*id);
    }
    sessions.WaitForActive(0, absl::Minutes(10));
    absl::StatusOr<SessionSummary> ended = sessions.Get(*id);
    absl::StatusOr<nlohmann::json> report = sessions.Report(*id);
    std::filesystem::remove_all(work / hls);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const double rss = CurrentRssMb(), heap = HeapInUseMb();
    const int fds = CountEntries("/proc/self/fd"), threads = CountEntries("/proc/self/task");
    const std::string state = ended.ok() ? SessionStateName(ended->state) : "?";
    const int64_t lines = report.ok() ? static_cast<int64_t>((*report)["utterances"].size()) : -1;
    const int64_t audio_drops = report.ok() ? (*report)["summary"]["audio_drops"].get<int64_t>() : -1;
    csv << cycle << "," << wall_s << "," << rss << "," << heap << "," << fds << "," << threads << "," << state << "," << lines << ","
        << audio_drops << std::endl;  // flushed: a run cut short keeps its rows
    if (cycle <= 3 || cycle % 10 == 0 || cycle == cycles) {
      std::printf("  %5d %7.0f %8.1f %8.1f %4d %7d %s, %lld lines, audio drops %lld%s\n", cycle, wall_s, rss, heap, fds,
                  threads,
                  state.c_str(), static_cast<long long>(lines), static_cast<long long>(audio_drops),
                  ended.ok() && !ended->error.empty() ? (" " + ended->error).c_str() : "");
      std::fflush(stdout);
    }
    if (cycle == 10) fds_after_warm_up = OpenFds();
    if (cycle > 10) {
      cycle_x.push_back(cycle), cycle_rss.push_back(rss), cycle_heap.push_back(heap);
      fds_min = std::min(fds_min, fds), fds_max = std::max(fds_max, fds);
      threads_min = std::min(threads_min, threads), threads_max = std::max(threads_max, threads);
    }
  }
  if (fds_max > 0) std::printf("  after cycle 10: RSS %+.3f MB per cycle, heap in use %+.3f MB per cycle (least squares), fds %d..%d, "
              "threads %d..%d\n",
              Slope(cycle_x, cycle_rss), Slope(cycle_x, cycle_heap), fds_min, fds_max, threads_min, threads_max);
  std::map<int, std::string> new_fds;
  for (const auto& [fd, target] : OpenFds()) {
    if (auto it = fds_after_warm_up.find(fd); it == fds_after_warm_up.end() || it->second != target) new_fds[fd] = target;
  }
  if (!fds_after_warm_up.empty()) {
    std::printf("  fds opened after cycle 10 and still open: %zu", new_fds.size());
    std::map<std::string, int> kinds;  // "socket", "anon_inode:[eventfd]", "/tmp/...", by count
    for (const auto& [fd, target] : new_fds) kinds[target.substr(0, target.find(":[") == std::string::npos ? target.size() : target.find(":[") + 2)] += 1;
    for (const auto& [kind, n] : kinds) std::printf("; %d x %s", n, kind.c_str());
    std::printf("\n");
  }
  std::printf("  CSV %s\n", (out_dir / "serve_soak.csv").c_str());
  std::fflush(stdout);
  return 0;
}

int Main(int argc, char** argv) {
  const double hours = argc > 1 ? std::atof(argv[1]) : 24;
  const int serve_cycles = argc > 2 ? std::atoi(argv[2]) : 80;
  const std::string size = argc > 3 ? argv[3] : "320x180";
  const int fps = argc > 4 ? std::atoi(argv[4]) : 15;
  const std::filesystem::path out_dir = argc > 5 ? argv[5] : "out/soak";
  const std::string mp4 = argc > 6 ? argv[6] : "mp4";
  int width = 0, height = 0, segment_minutes = 0;
  char rest = 0;
  const bool rotated = std::sscanf(mp4.c_str(), "mp4:%d%c", &segment_minutes, &rest) == 1 && segment_minutes > 0;
  if (hours < 0 || serve_cycles < 0 || fps <= 0 || std::sscanf(size.c_str(), "%dx%d", &width, &height) != 2 ||
      (mp4 != "mp4" && mp4 != "no-mp4" && !rotated)) {
    std::fprintf(stderr,
                 "usage: soak_bench [HOURS>=0] [SERVE_CYCLES>=0] [WIDTHxHEIGHT] [FPS>0] [OUT_DIR] [mp4|mp4:N|no-mp4]\n");
    return 2;
  }
  // SIGINT/SIGTERM end the live show as `live` does (the outputs finished,
  // nginx stopped), and the serve part after its cycle: a run cut short still
  // prints its figures. Before any thread exists, so every thread inherits the
  // blocked signals.
  SignalWatcher signals;
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
  av_log_set_level(AV_LOG_ERROR);
  std::filesystem::create_directories(out_dir);
  std::string pattern = (std::filesystem::temp_directory_path() / "lingcast_soak_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path work = pattern;
  const ShowSpec spec;
  const std::string host = (work / "host.wav").string(), script = (work / "show.script").string(),
                    glossary = (work / "glossary.tsv").string();
  if (absl::Status s = WriteHost(host, 1, spec); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  if (absl::Status s = WriteScript(script, spec); !s.ok()) return 1;
  std::ofstream(glossary) << "裙子\tdress\n";
  Logger logger(LogLevel::kError);
  int rc = 0;
  if (hours > 0) rc = RunLiveSoak(signals, hours, size, fps, mp4 != "no-mp4", rotated ? segment_minutes : 0, work, out_dir, script, glossary, ShowPcm(host), logger);
  if (rc == 0 && serve_cycles > 0) rc = RunServeCycles(signals, serve_cycles, size, fps, work, out_dir, logger);
  std::filesystem::remove_all(work);
  return rc;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  // As lingcast's own main() does (src/app/main.cc), so the soak measures the
  // process a user runs. SOAK_RELEASE_MEMORY=0 leaves the releaser out, to
  // compare.
  lingcast::TuneMallocForLongRuns();
  const char* release = std::getenv("SOAK_RELEASE_MEMORY");
  std::optional<lingcast::FreedMemoryReleaser> releaser;
  if (release == nullptr || std::string(release) != "0") releaser.emplace(absl::Minutes(1));
  return lingcast::Main(argc, argv);
}
