// `lingcast serve` under load, as a live-commerce studio runs it: N hosts at
// once, each reading the bench show at real time (script mode, the default
// engines), each session its own 720p30 MP4 + HLS; then the API hammered while
// two sessions run.
//
//   build/bench/serve_bench [MAX_SESSIONS] [SIZE] [API_SECONDS] [API_RATE]
//
// 1. For n = 1 .. MAX_SESSIONS (default 3): n sessions created over HTTP at
//    once; per session audio drops, video drops (% of frames), compute latency
//    p95, EndOffset p95; the process's peak RSS. "held" when audio drops are 0,
//    video drops <= 0.1% and compute p95 <= 150 ms in every session. The
//    reference in the same run is n = 1: the sessions' figures beside a lone one.
// 2. The API: API_RATE (default 200) requests/s of session status and /metrics
//    for API_SECONDS (default 60) over loopback while 2 sessions run; latency
//    p50/p99, errors, and the sessions' drops beside the 2-session run of 1.
// Prints figures; never fails on them. SERVE_BENCH_REPORTS=DIR also keeps each
// session's live report as DIR/n<N>-s<I>.json (per-line latencies, stage times);
// SERVE_BENCH_STAGGER_MS=M starts the sessions of a round M ms apart instead of at once;
// SERVE_BENCH_SETTINGS='{"preset":"superfast"}' adds settings to every session's.

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <cstdlib>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "app/serve_command.h"
#include "app/serve_sessions.h"
#include "core/process_memory.h"
#include "core/process_stats.h"
#include "live_show.h"
#include "output/live_report.h"
#include "server/http_server.h"
#include "server/session_manager.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

constexpr char kToken[] = "serve-bench-token-0123456789";

// One request on its own loopback connection: the status, or 0 on a transport error.
int Request(int port, const std::string& method, const std::string& target, const std::string& body,
            std::string* reply) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return 0;
  }
  const std::string request = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                              "Authorization: Bearer " + kToken + "\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return 0;
  }
  std::string response;
  char buffer[8192];
  for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) response.append(buffer, static_cast<size_t>(n));
  close(fd);
  if (response.size() < 12) return 0;
  if (reply != nullptr) {
    const size_t end = response.find("\r\n\r\n");
    *reply = end == std::string::npos ? "" : response.substr(end + 4);
  }
  return std::atoi(response.c_str() + 9);
}

struct SessionFigures {
  int64_t audio_drops = 0, video_drops = 0, frames = 0;
  double compute_p95 = 0, end_offset_p95 = 0;
  std::string error;
};

struct Round {
  std::vector<SessionFigures> sessions;
  double peak_rss_mb = 0, rss_mb_before = 0;
  double cpu_seconds = 0, wall_seconds = 0;  // the process's, from the first POST to the last session's end
};

bool Held(const Round& round) {
  for (const SessionFigures& s : round.sessions) {
    if (!s.error.empty() || s.audio_drops != 0 || s.compute_p95 > 150) return false;
    if (s.frames == 0 || 100.0 * static_cast<double>(s.video_drops) / static_cast<double>(s.frames) > 0.1) return false;
  }
  return true;
}

// n sessions at once, created over HTTP, to the end of the show; `during` runs
// on the side once they are all running.
Round RunSessions(int n, const ServeDirectories& dirs, const std::string& size, Logger& logger,
                  const std::function<void(int port, const std::vector<std::string>& ids)>& during) {
  Round round;
  round.rss_mb_before = CurrentRssMb();
  SessionManagerOptions options;
  options.max_sessions = n;
  EngineCache engines;
  SessionManager sessions(LiveSessionFactory(dirs, logger, engines), options);
  HttpServerOptions http;
  http.listen = "127.0.0.1:0";
  http.token = kToken;
  http.threads = 1;
  HttpServer server(http);
  AddServeRoutes(server, sessions, engines);
  if (absl::Status s = server.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return round;
  }
  std::vector<std::string> ids;
  const double cpu_start = ProcessCpuSeconds();
  const auto wall_start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    nlohmann::json settings = {{"in", "host.wav"},
                                     {"out", {"session" + std::to_string(i) + ".mp4",
                                              "hls:hls" + std::to_string(i)}},
                                     {"script", "show.script"},
                                     {"size", size},
                                     {"fps", 30}};
    if (const char* extra = std::getenv("SERVE_BENCH_SETTINGS"); extra != nullptr && *extra != '\0') {
      settings.update(nlohmann::json::parse(extra));
    }
    if (const char* stagger = std::getenv("SERVE_BENCH_STAGGER_MS"); stagger != nullptr && i > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(stagger)));
    }
    std::string reply;
    const int status = Request(server.port(), "POST", "/v1/sessions", settings.dump(), &reply);
    if (status != 201) {
      std::fprintf(stderr, "POST /v1/sessions: %d %s\n", status, reply.c_str());
      continue;
    }
    ids.push_back(nlohmann::json::parse(reply)["id"]);
  }
  for (const std::string& id : ids) sessions.WaitForState(id, SessionState::kRunning, absl::Minutes(5));
  if (during) during(server.port(), ids);
  sessions.WaitAll(absl::Hours(1));
  round.cpu_seconds = ProcessCpuSeconds() - cpu_start;
  round.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  round.peak_rss_mb = PeakRssMb();
  for (const std::string& id : ids) {
    SessionFigures figures;
    absl::StatusOr<nlohmann::json> report = sessions.Report(id);
    if (!report.ok()) {
      figures.error = std::string(report.status().message());
    } else {
      if (const char* keep = std::getenv("SERVE_BENCH_REPORTS"); keep != nullptr && *keep != '\0') {
        std::ofstream(absl::StrCat(keep, "/n", n, "-s", round.sessions.size() + 1, ".json")) << report->dump(2);
      }
      const nlohmann::json& s = (*report)["summary"];
      figures.audio_drops = s["audio_drops"];
      figures.video_drops = s["video_drops"];
      figures.frames = s["frames"];
      figures.compute_p95 = s["compute_latency_ms"]["p95"];
      figures.end_offset_p95 = s["end_offset_ms"]["p95"];
    }
    round.sessions.push_back(figures);
  }
  server.Stop();
  return round;
}

void PrintRound(int n, const Round& round) {
  std::printf("%d session%s at once: %s\n", n, n == 1 ? "" : "s", Held(round) ? "held" : "NOT held");
  for (size_t i = 0; i < round.sessions.size(); ++i) {
    const SessionFigures& s = round.sessions[i];
    if (!s.error.empty()) {
      std::printf("  session %zu failed: %s\n", i + 1, s.error.c_str());
      continue;
    }
    std::printf("  session %zu: audio drops %lld, video drops %lld of %lld frames (%.2f%%), compute p95 %.0f ms, "
                "EndOffset p95 %.0f ms\n",
                i + 1, static_cast<long long>(s.audio_drops), static_cast<long long>(s.video_drops),
                static_cast<long long>(s.frames),
                s.frames > 0 ? 100.0 * static_cast<double>(s.video_drops) / static_cast<double>(s.frames) : 0.0,
                s.compute_p95, s.end_offset_p95);
  }
  std::printf("  process RSS before %.0f MB, peak %.0f MB (peak since the bench started)\n", round.rss_mb_before,
              round.peak_rss_mb);
  std::printf("  process CPU %.1f s in %.1f s of wall time: %.0f%% of one core\n", round.cpu_seconds,
              round.wall_seconds, round.wall_seconds > 0 ? 100.0 * round.cpu_seconds / round.wall_seconds : 0.0);
  std::fflush(stdout);
}

int Main(int argc, char** argv) {
  const int max_sessions = argc > 1 ? std::atoi(argv[1]) : 3;
  const std::string size = argc > 2 ? argv[2] : "1280x720";
  const double api_seconds = argc > 3 ? std::atof(argv[3]) : 60;
  const int api_rate = argc > 4 ? std::atoi(argv[4]) : 200;
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
  av_log_set_level(AV_LOG_ERROR);
  const ShowSpec spec;
  const absl::StatusOr<std::filesystem::path> show_dir = WriteShowDir("serve_bench", spec);
  if (!show_dir.ok()) {
    std::fprintf(stderr, "%s\n", show_dir.status().ToString().c_str());
    return 1;
  }
  const std::filesystem::path dir = *show_dir;
  std::printf("the show: %.1f s of host audio, %zu script lines; %s at 30 fps, the default engines\n",
              Seconds((dir / "host.wav").string()), Lines(spec).size(), size.c_str());
  ServeDirectories dirs;
  dirs.media = dir.string();
  dirs.output = dir.string();
  Logger logger(LogLevel::kError);

  // SERVE_BENCH_FROM=N skips the rounds of fewer sessions (the reference round of 1 with them).
  const char* from_env = std::getenv("SERVE_BENCH_FROM");
  const int first = from_env != nullptr ? std::max(1, std::atoi(from_env)) : 1;
  std::map<int, Round> rounds;
  int most_held = 0;
  for (int n = first; n <= max_sessions; ++n) {
    rounds[n] = RunSessions(n, dirs, size, logger, nullptr);
    PrintRound(n, rounds[n]);
    if (Held(rounds[n])) most_held = n;
  }
  std::printf("most sessions held: %d (target >= 3)\n", most_held);

  if (api_seconds > 0) {
    std::vector<double> latencies_ms;
    int errors = 0;
    const Round loaded = RunSessions(2, dirs, size, logger, [&](int port, const std::vector<std::string>& ids) {
      const auto start = std::chrono::steady_clock::now();
      const auto period = std::chrono::microseconds(1'000'000 / std::max(1, api_rate));
      auto next = start;
      for (int64_t i = 0; std::chrono::steady_clock::now() - start < std::chrono::duration<double>(api_seconds); ++i) {
        std::this_thread::sleep_until(next);  // the bench's pacing of the load, not a test's wait
        next += period;
        const std::string target = i % 2 == 0 && !ids.empty() ? "/v1/sessions/" + ids[static_cast<size_t>(i / 2) % ids.size()]
                                                              : "/metrics";
        const auto before = std::chrono::steady_clock::now();
        const int status = Request(port, "GET", target, "", nullptr);
        latencies_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count());
        if (status != 200) ++errors;
      }
    });
    const Percentiles p = ComputePercentiles(latencies_ms);
    std::printf("API: %lld requests in %.0f s (%d/s asked) while 2 sessions ran: p50 %.1f ms, p99 %.1f ms, errors %d\n",
                static_cast<long long>(p.count), api_seconds, api_rate, p.p50, p.p99, errors);
    PrintRound(2, loaded);
    if (rounds.count(2) != 0) {
      int64_t before = 0, after = 0;
      for (const SessionFigures& s : rounds[2].sessions) before += s.audio_drops + s.video_drops;
      for (const SessionFigures& s : loaded.sessions) after += s.audio_drops + s.video_drops;
      std::printf("  drops (audio + video) with the API load %lld, without it (the 2-session round) %lld\n",
                  static_cast<long long>(after), static_cast<long long>(before));
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  // As lingcast's own main() does (src/app/main.cc): memory freed by an ended
  // session goes back to the system, so the next round's RSS is its own.
  lingcast::TuneMallocForLongRuns();
  lingcast::FreedMemoryReleaser releaser(absl::Minutes(1));
  return lingcast::Main(argc, argv);
}
