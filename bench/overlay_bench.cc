// The OBS overlay's latency in a real browser: how long after a line is
// decided its subtitle shows on the overlay page, as OBS's browser source
// would show it (Debian's headless chromium).
//
//   build/bench/overlay_bench [SHOWS]
//
// One `lingcast serve` in this process runs the bench show (live_show.h: the
// seven-line script, read by espeak-ng at real time) SHOWS times (default 1),
// one session at a time, each with chromium on its overlay. Per line:
//   - compute: the line's compute latency from the session's report (its
//     decision to its first sample on the outputs, when the video shows it);
//   - server -> page: from the moment the server hands the subtitle event to
//     its event clients (an in-process client joined beside the page is the
//     reference clock) to the page's own Date.now() when its DOM shows it.
// Prints both, per line and as p50/max, beside the target of 500 ms
// for their sum. Prints figures; never fails on them. Run it on a quiet
// machine: beside a build, chromium waits for a core.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "app/serve_command.h"
#include "app/serve_sessions.h"
#include "core/status.h"
#include "live_show.h"
#include "server/headless_chromium.h"
#include "server/http_server.h"
#include "server/session_manager.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

constexpr char kToken[] = "overlay-bench-token-0123456789";

// When each subtitle event left the server (system clock ms, as the page stamps its own).
class SubtitleClock : public EventClient {
 public:
  bool Send(std::string text) override {
    const int64_t now = absl::ToUnixMillis(absl::Now());
    const nlohmann::json event = nlohmann::json::parse(text, nullptr, false);
    if (event.is_object() && event.value("type", "") == "subtitle") {
      std::lock_guard<std::mutex> lock(mu_);
      sent_.emplace_back(event.value("primary", ""), now);
    }
    return true;
  }
  bool open() const override { return true; }
  void Close() override {}
  std::vector<std::pair<std::string, int64_t>> sent() {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, int64_t>> sent_;
};

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5))];
}

// One show with chromium on its overlay; appends each line's figures.
absl::Status RunShow(int show, const ServeDirectories& dirs, Logger& logger, std::vector<double>& compute_ms,
                     std::vector<double>& to_page_ms) {
  testing_util::HeadlessChromium chromium(
      (std::filesystem::path(dirs.output) / absl::StrCat("chromium", show)).string());
  LC_RETURN_IF_ERROR(chromium.WaitUntilListening());  // before the show, which does not wait
  EngineCache engines;
  SessionManager sessions(LiveSessionFactory(dirs, logger, engines), SessionManagerOptions{});
  HttpServerOptions http;
  http.listen = "127.0.0.1:0";
  http.token = kToken;
  HttpServer server(http);
  AddServeRoutes(server, sessions, engines);
  LC_RETURN_IF_ERROR(server.Start());
  const nlohmann::json settings = {{"in", "host.wav"},
                                   {"out", {absl::StrCat("show", show, ".mp4")}},
                                   {"script", "show.script"},
                                   {"size", "1280x720"},
                                   {"fps", 30}};
  LC_ASSIGN_OR_RETURN(std::string id, sessions.Create(settings));
  auto clock = std::make_shared<SubtitleClock>();
  LC_RETURN_IF_ERROR(sessions.JoinEvents(id, clock));
  LC_ASSIGN_OR_RETURN(testing_util::TestConnection page,
                      chromium.OpenPage(absl::StrCat("http://127.0.0.1:", server.port(), "/overlay/", id,
                                                     "?token=", kToken)));
  // A subtitle sent before the page listened reaches it as a late joiner's
  // replay, not live: only those sent after this moment count.
  const int64_t page_ready_at = absl::ToUnixMillis(absl::Now());

  // Each subtitle the page shows, by its own stamp, until the show ends.
  std::vector<std::pair<std::string, int64_t>> shown;
  std::string last_stamp;
  int call = 1;
  for (;;) {
    const absl::StatusOr<SessionSummary> summary = sessions.Get(id);
    if (!summary.ok() || summary->state == SessionState::kFinished || summary->state == SessionState::kFailed) break;
    LC_ASSIGN_OR_RETURN(std::string seen, testing_util::EvaluateString(
                                              page, call++,
                                              "(document.body.dataset.shownAt || '') + '\\t' + "
                                              "(document.body.dataset.lastSubtitle || '')"));
    const size_t tab = seen.find('\t');
    const std::string stamp = seen.substr(0, tab);
    if (!stamp.empty() && stamp != last_stamp) {
      shown.emplace_back(seen.substr(tab + 1), std::atoll(stamp.c_str()));
      last_stamp = stamp;
    }
    usleep(20'000);  // lines are seconds apart; the page's stamp, not this poll, is the figure
  }
  server.Stop();
  LC_ASSIGN_OR_RETURN(nlohmann::json report, sessions.Report(id));
  for (const nlohmann::json& line : report["utterances"]) {
    // A line heard but not spoken (an ad-lib the host is told to skip) has no compute latency.
    if (line.contains("compute_latency_ms") && line["compute_latency_ms"].is_number()) {
      compute_ms.push_back(line["compute_latency_ms"].get<double>());
    }
  }

  size_t next_shown = 0;
  for (const auto& [text, sent_at] : clock->sent()) {
    if (sent_at < page_ready_at) continue;
    while (next_shown < shown.size() && shown[next_shown].first != text) ++next_shown;
    if (next_shown == shown.size()) {
      std::printf("  show %d: \"%s\" was sent but the page never showed it\n", show, text.c_str());
      next_shown = 0;
      continue;
    }
    const double delay = static_cast<double>(shown[next_shown].second - sent_at);
    to_page_ms.push_back(delay);
    std::printf("  show %d: server -> page %4.0f ms  %s\n", show, delay, text.c_str());
    ++next_shown;
  }
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  const int shows = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  if (access(testing_util::kChromiumPath, X_OK) != 0) {
    std::fprintf(stderr, "%s is not installed (scripts/install-deps.sh installs it)\n", testing_util::kChromiumPath);
    return 1;
  }
  setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
  av_log_set_level(AV_LOG_ERROR);
  const ShowSpec spec;
  const absl::StatusOr<std::filesystem::path> show_dir = WriteShowDir("overlay_bench", spec);
  if (!show_dir.ok()) {
    std::fprintf(stderr, "%s\n", show_dir.status().ToString().c_str());
    return 1;
  }
  const std::filesystem::path dir = *show_dir;
  std::printf("the show: %.1f s of host audio, %zu script lines, 1280x720 at 30 fps, the default engines; "
              "%d show(s), chromium headless on the overlay\n",
              Seconds((dir / "host.wav").string()), Lines(spec).size(), shows);
  ServeDirectories dirs;
  dirs.media = dir.string();
  dirs.output = dir.string();
  Logger logger(LogLevel::kError);
  std::vector<double> compute_ms, to_page_ms;
  for (int show = 1; show <= shows; ++show) {
    if (absl::Status s = RunShow(show, dirs, logger, compute_ms, to_page_ms); !s.ok()) {
      std::fprintf(stderr, "show %d: %s\n", show, s.ToString().c_str());
      return 1;
    }
  }
  std::printf("compute (decision -> outputs): %zu lines, p50 %.0f ms, max %.0f ms\n", compute_ms.size(),
              Percentile(compute_ms, 0.5), Percentile(compute_ms, 1.0));
  std::printf("server -> page: %zu subtitles, p50 %.0f ms, max %.0f ms\n", to_page_ms.size(),
              Percentile(to_page_ms, 0.5), Percentile(to_page_ms, 1.0));
  const double worst = Percentile(compute_ms, 1.0) + Percentile(to_page_ms, 1.0);
  std::printf("decision -> subtitle in the browser: p50 %.0f ms, worst case (max + max) %.0f ms: %.2fx the 500 ms "
              "target\n",
              Percentile(compute_ms, 0.5) + Percentile(to_page_ms, 0.5), worst, worst / 500.0);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
