// `lingcast live` as a user runs it: an English host following a script (with
// ad-libs between the lines), the avatar interpreting into Mandarin, 720p30 to
// RTMP on loopback (nginx with the RTMP module, when installed) plus HLS.
//
//   build/bench/live_bench [REALTIME_SHOWS] [SOAK_MINUTES] [SOAK_SIZE] [SHOW] [HOST]
//
// SHOW: "seven" (the default: 7 script lines, all said in order, 2 ad-libs) or
// "eleven" (11 lines; the host skips one, says two out of order, and ad-libs
// twice, as the voice issue's held-out-style show). HOST: "espeak" (the default:
// espeak-ng en-gb) or "neural" (the installed English neural voice, Piper, as a
// host a recognizer hears like a person; espeak-ng when none is installed).
//
// 1. Real time (the system clock; the host recording is played at real time):
//    compute latency p50/p95, EndOffset median, the median commit point, CPU
//    use, peak RSS, audio and video drops. The reference in the same run is the
//    recording's own duration: the run must keep pace with it (x real time).
// 2. A soak on the simulated clock: the show looped for SOAK_MINUTES (default
//    30) of host audio, as fast as the CPU allows; RSS at the start and end.
//    SOAK_SIZE (default 1280x720) at 30 fps: a smaller frame soaks the same
//    pipeline in less CPU time on a shared machine.
// Prints figures; never fails on them.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/live_job.h"
#include "core/status.h"
#include "live_show.h"
#include "output/rtmp_test_server.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

void PrintRun(const char* title, const nlohmann::json& report, double host_seconds) {
  const nlohmann::json& s = report["summary"];
  int lines = 0, ad_libs = 0;
  for (const auto& u : report["utterances"]) (u["line"].is_null() ? ad_libs : lines) += 1;
  std::printf("%s\n", title);
  std::printf("  host audio            %.1f s, run %.1f s wall (%.2fx real time)\n", host_seconds,
              s["wall_seconds"].get<double>(), host_seconds / std::max(0.001, s["wall_seconds"].get<double>()));
  std::printf("  decisions             %d script lines, %d off script; spoken %lld, skipped %lld, subtitles only %lld\n",
              lines, ad_libs, static_cast<long long>(s["spoken"].get<int64_t>()),
              static_cast<long long>(s["skipped"].get<int64_t>()),
              static_cast<long long>(s["subtitles_only"].get<int64_t>()));
  std::printf("  compute latency       p50 %.0f ms  p95 %.0f ms  p99 %.0f ms\n", s["compute_latency_ms"]["p50"].get<double>(),
              s["compute_latency_ms"]["p95"].get<double>(), s["compute_latency_ms"]["p99"].get<double>());
  std::printf("  queue wait            p50 %.0f ms  p95 %.0f ms (for the line before: the lag policy's)\n",
              s["queue_wait_ms"]["p50"].get<double>(), s["queue_wait_ms"]["p95"].get<double>());
  std::printf("  EndOffset             p50 %.0f ms  p95 %.0f ms\n", s["end_offset_ms"]["p50"].get<double>(),
              s["end_offset_ms"]["p95"].get<double>());
  std::printf("  StartOffset           p50 %.0f ms\n", s["start_offset_ms"]["p50"].get<double>());
  std::printf("  commit point          median %.2f (fraction of the line heard)\n", s["commit_point"]["p50"].get<double>());
  std::printf("  CPU                   %.0f%% of one core (2 cores = 200%%)\n", s["cpu_percent"].get<double>());
  std::printf("  RSS                   start %.0f MB, end %.0f MB, peak %.0f MB\n", s["rss_start_mb"].get<double>(),
              s["rss_end_mb"].get<double>(), s["peak_rss_mb"].get<double>());
  std::printf("  drops                 audio %lld, video %lld; voice underruns %lld\n",
              static_cast<long long>(s["audio_drops"].get<int64_t>()), static_cast<long long>(s["video_drops"].get<int64_t>()),
              static_cast<long long>(s.value("voice_underruns", int64_t{0})));
  for (const auto& o : s["outputs"]) {
    std::printf("  output %-28s %.0f kbit/s, %lld reconnects %s\n", o["name"].get<std::string>().c_str(),
                o["bitrate"].get<double>() / 1000, static_cast<long long>(o["reconnects"].get<int64_t>()),
                o["error"].get<std::string>().c_str());
  }
  std::printf("  %-44s %6s %6s %9s %9s %9s %5s\n", "utterance", "commit", "decided", "compute", "wait", "EndOffset",
              "rate");
  constexpr size_t kMostRowsShown = 40;  // a soak has hundreds: its summary says enough
  if (report["utterances"].size() > kMostRowsShown) {
    std::printf("  (%zu utterances: the table is left out)\n", report["utterances"].size());
  }
  for (const auto& u : report["utterances"]) {
    if (report["utterances"].size() > kMostRowsShown) break;
    auto ms = [](const nlohmann::json& v) { return v.is_null() ? -1.0 : v.get<double>(); };
    std::printf("  %-44.44s %6.2f %6.1fs %7.0fms %7.0fms %7.0fms %5.2f\n", u["source_text"].get<std::string>().c_str(),
                u["commit_point"].is_null() ? -1.0 : u["commit_point"].get<double>(), ms(u["decided_at_ms"]) / 1000,
                ms(u["compute_latency_ms"]), ms(u["queue_wait_ms"]), ms(u["end_offset_ms"]),
                u.contains("rate") && u["rate"].is_number() ? u["rate"].get<double>() : 0.0);
  }
  for (const auto& [boundary, stage] : report["stage_latency"].items()) {
    std::printf("  stage %-16s p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms\n", boundary.c_str(),
                stage["p50_ms"].get<double>(), stage["p95_ms"].get<double>(), stage["max_ms"].get<double>());
  }
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  const int realtime_shows = argc > 1 ? std::atoi(argv[1]) : 1;
  const double soak_minutes = argc > 2 ? std::atof(argv[2]) : 30;
  int soak_width = 1280, soak_height = 720;
  if (argc > 3 && std::sscanf(argv[3], "%dx%d", &soak_width, &soak_height) != 2) {
    std::fprintf(stderr, "SOAK_SIZE must be WIDTHxHEIGHT, not %s\n", argv[3]);
    return 2;
  }
  const std::string show = argc > 4 ? argv[4] : "seven", host_voice = argc > 5 ? argv[5] : "espeak";
  if ((show != "seven" && show != "eleven") || (host_voice != "espeak" && host_voice != "neural")) {
    std::fprintf(stderr, "SHOW is seven or eleven, HOST espeak or neural (not %s, %s)\n", show.c_str(), host_voice.c_str());
    return 2;
  }
  const ShowSpec spec{show == "eleven", host_voice == "neural"};
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
  // A directory of its own: two runs at once (a soak and a real-time run) must
  // not delete each other's outputs.
  std::string pattern = (std::filesystem::temp_directory_path() / "lingcast_live_bench_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path dir = pattern;
  const std::string script = (dir / "show.script").string();
  if (absl::Status written = WriteScript(script, spec); !written.ok()) {
    std::fprintf(stderr, "%s\n", written.ToString().c_str());
    return 1;
  }
  Logger logger(LogLevel::kError);
  av_log_set_level(AV_LOG_ERROR);

  // The server first: nginx must not inherit the signal mask SignalWatcher sets,
  // or it would ignore the signal that stops it.
  std::optional<testing_util::RtmpTestServer> server;
  std::vector<std::string> outputs = {"hls:" + (dir / "hls").string()};
  if (testing_util::RtmpTestServer::Available()) {
    server.emplace();
    if (server->Start()) outputs.push_back(server->Url("live", "bench"));
  }
  if (outputs.size() == 1) std::printf("(nginx with the RTMP module is not installed: HLS only)\n");
  SignalWatcher signals;

  if (realtime_shows > 0) {
    const std::string host = (dir / "host.wav").string();
    if (absl::Status s = WriteHost(host, realtime_shows, spec); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    LiveOptions options;
    options.input.path = host;
    options.outputs.destinations = outputs;
    options.translation.script_path = script;
    options.quiet = true;
    std::istringstream no_stdin;
    absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, no_stdin, nullptr);
    if (!report.ok()) {
      std::fprintf(stderr, "realtime run: %s\n", report.status().ToString().c_str());
      return 1;
    }
    const std::string title = "live, real time, 720p30, English host (" + host_voice + ", " + show +
                              " lines) -> Mandarin avatar, RTMP + HLS";
    PrintRun(title.c_str(), *report, Seconds(host));
  }

  if (soak_minutes > 0) {
    const std::string host = (dir / "soak.wav").string();
    const double show_seconds = [&] {
      (void)WriteHost(host, 1, spec);
      return Seconds(host);
    }();
    const int repeats = std::max(1, static_cast<int>(soak_minutes * 60 / show_seconds + 0.999));
    if (absl::Status s = WriteHost(host, repeats, spec); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    LiveOptions options;
    options.input.path = host;
    options.outputs.destinations = {"hls:" + (dir / "soak_hls").string()};
    if (outputs.size() > 1) options.outputs.destinations.push_back(server->Url("live", "soak"));
    options.translation.script_path = script;
    options.timing.clock = LiveClock::kSimulated;
    options.look.width = soak_width;
    options.look.height = soak_height;
    options.quiet = true;
    std::istringstream no_stdin;
    absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, no_stdin, nullptr);
    if (!report.ok()) {
      std::fprintf(stderr, "soak run: %s\n", report.status().ToString().c_str());
      return 1;
    }
    const std::string title = "soak, simulated clock, " + std::to_string(soak_width) + "x" + std::to_string(soak_height) +
                              " at 30 fps, the show looped";
    PrintRun(title.c_str(), *report, Seconds(host));
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
