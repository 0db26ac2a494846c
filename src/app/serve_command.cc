#include "app/serve_command.h"

#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "app/model_dirs.h"
#include "app/progress.h"
#include "app/overlay_page.h"
#include "app/serve_metrics.h"
#include "app/serve_sessions.h"
#include "app/serve_watchdog.h"
#include "app/live_flags.h"
#include "app/signals.h"
#include "core/process_stats.h"
#include "core/status.h"
#include "core/sync.h"
#include "server/http_server.h"
#include "server/prometheus_text.h"
#include "server/session_manager.h"

namespace lingcast {
namespace {

struct ServeFlags {
  std::string listen = "127.0.0.1:8080";
  std::string token_file;
  int max_sessions = 4;
  ServeDirectories directories;
  double shutdown_timeout_s = 30;
  size_t max_body_kb = 1024;
  int max_event_clients = 64;
  bool public_metrics = false;
  bool json = false;
  std::string watch_memory = "auto";  // HIGH,LOW MB, auto (85%,75% of the memory the process may use) or off
  std::string watch_gpu_memory = "auto";  // HIGH,LOW MB, auto (90%,80% of the GPU's, where there is one) or off
};

constexpr char kTokenVariable[] = "LINGCAST_SERVE_TOKEN";

absl::StatusOr<std::string> LoadToken(const ServeFlags& flags) {
  std::string token;
  if (!flags.token_file.empty()) {
    std::ifstream in(flags.token_file);
    if (!in) return absl::NotFoundError(absl::StrCat("--token-file ", flags.token_file, ": cannot be read"));
    std::stringstream text;
    text << in.rdbuf();
    token = std::string(absl::StripAsciiWhitespace(text.str()));
  } else if (const char* from_env = std::getenv(kTokenVariable); from_env != nullptr) {
    token = std::string(absl::StripAsciiWhitespace(from_env));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("serve needs a token: give --token-file FILE or set ", kTokenVariable,
                                                   " (every endpoint but /healthz asks for it)"));
  }
  if (token.size() < 16) {
    return absl::InvalidArgumentError(absl::StrCat("the serve token is ", token.size(),
                                                   " characters: use at least 16 (e.g. openssl rand -hex 16)"));
  }
  return token;
}

HttpResponse FromStatus(const absl::Status& status) { return ErrorResponseFor(status); }

// "serve | running 2, starting 0, draining 0, ended 3 | lines 41 | drops a0 v0 | rss 640 MB | cpu 118%".
std::string ServeStatusLine(const std::vector<SessionSummary>& sessions, double cpu_percent) {
  int running = 0, starting = 0, draining = 0, ended = 0;
  int64_t lines = 0, audio_drops = 0, video_drops = 0;
  for (const SessionSummary& s : sessions) {
    switch (s.state) {
      case SessionState::kRunning: ++running; break;
      case SessionState::kStarting: ++starting; break;
      case SessionState::kDraining: ++draining; break;
      default: ++ended; break;
    }
    const nlohmann::json summary = s.progress.value("summary", nlohmann::json::object());
    lines += summary.value("lines", int64_t{0});
    audio_drops += summary.value("audio_drops", int64_t{0});
    video_drops += summary.value("video_drops", int64_t{0});
  }
  return absl::StrFormat("serve | running %d, starting %d, draining %d, ended %d | lines %lld | drops a%lld v%lld | "
                         "rss %.0f MB | cpu %3.0f%%",
                         running, starting, draining, ended, static_cast<long long>(lines),
                         static_cast<long long>(audio_drops), static_cast<long long>(video_drops), CurrentRssMb(),
                         cpu_percent);
}

// The overlay page with the session's view token: a URL for OBS that can show
// the captions and nothing else.
std::string OverlayPath(const SessionSummary& s) { return absl::StrCat("/overlay/", s.id, "?token=", s.view_token); }

nlohmann::json SessionJson(const SessionSummary& s) {
  nlohmann::json out = {{"id", s.id}, {"state", SessionStateName(s.state)}, {"age_seconds", s.age_seconds}};
  if (!s.error.empty()) out["error"] = s.error;
  out["summary"] = s.progress.value("summary", nlohmann::json::object());
  return out;
}

}  // namespace

std::function<bool(const std::string& session_id, std::string_view offered)> ViewerAdmission(
    const SessionManager& sessions) {
  return [&sessions](const std::string& session_id, std::string_view offered) {
    return sessions.AdmitsViewer(session_id, offered);
  };
}

void AddServeRoutes(HttpServer& server, SessionManager& sessions, const EngineCache& engines,
                    const ServeWatchdog* watchdog) {
  server.Route("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::Json(200, {{"status", "ok"}}); });
  server.Route("GET", "/readyz", [&sessions](const HttpRequest&) {
    const bool draining = sessions.shutting_down();
    const int left = sessions.capacity_left();
    const bool under_pressure = sessions.refusing_new();
    const bool ready = !draining && left > 0 && !under_pressure;
    return HttpResponse::Json(ready ? 200 : 503, {{"ready", ready},
                                                  {"draining", draining},
                                                  {"under_pressure", under_pressure},
                                                  {"capacity_left", left}});
  });
  server.Route("GET", "/metrics", [&server, &sessions, &engines, watchdog](const HttpRequest&) {
    HttpResponse response;
    response.content_type = std::string(PrometheusText::kContentType);
    response.body = ServeMetrics(sessions.List(), sessions.capacity_left(), sessions.shutting_down(), server.stats(),
                                 engines.stats(), watchdog != nullptr ? watchdog->Report() : nlohmann::json());
    return response;
  });
  server.Route("POST", "/v1/sessions", [&sessions](const HttpRequest& request) {
    const nlohmann::json settings = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (settings.is_discarded()) return HttpResponse::Error(400, "the body is not JSON: give the session's settings");
    absl::StatusOr<std::string> id = sessions.Create(settings);
    if (!id.ok()) return FromStatus(id.status());
    absl::StatusOr<SessionSummary> s = sessions.Get(*id);
    if (!s.ok()) return FromStatus(s.status());
    return HttpResponse::Json(201, {{"id", *id}, {"state", "starting"}, {"view_token", s->view_token},
                                    {"overlay", OverlayPath(*s)}});
  });
  server.Route("GET", "/v1/sessions", [&sessions](const HttpRequest&) {
    nlohmann::json list = nlohmann::json::array();
    for (const SessionSummary& s : sessions.List()) list.push_back(SessionJson(s));
    return HttpResponse::Json(200, {{"sessions", list}});
  });
  server.Route("GET", "/v1/sessions/{id}", [&sessions](const HttpRequest& request) {
    absl::StatusOr<SessionSummary> s = sessions.Get(request.params.at("id"));
    if (!s.ok()) return FromStatus(s.status());
    nlohmann::json out = SessionJson(*s);
    out["settings"] = s->settings;
    out["view_token"] = s->view_token;
    out["overlay"] = OverlayPath(*s);
    return HttpResponse::Json(200, out);
  });
  server.Route("DELETE", "/v1/sessions/{id}", [&sessions](const HttpRequest& request) {
    const std::string& id = request.params.at("id");
    if (absl::Status stopped = sessions.Stop(id); !stopped.ok()) return FromStatus(stopped);
    absl::StatusOr<SessionSummary> s = sessions.Get(id);
    if (!s.ok()) return FromStatus(s.status());
    return HttpResponse::Json(202, {{"id", id}, {"state", SessionStateName(s->state)}});
  });
  server.Route("GET", "/v1/sessions/{id}/report", [&sessions](const HttpRequest& request) {
    absl::StatusOr<nlohmann::json> report = sessions.Report(request.params.at("id"));
    if (!report.ok()) return FromStatus(report.status());
    return HttpResponse::Json(200, *report);
  });
  server.Route("POST", "/v1/sessions/{id}/corrections", [&sessions](const HttpRequest& request) {
    const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (!body.is_object() || !body.contains("command") || !body["command"].is_string()) {
      return HttpResponse::Error(400, R"(give {"command": "line N = TEXT" | "term SOURCE = TEXT" | "tm SOURCE = TEXT"})");
    }
    const std::string command = body["command"].get<std::string>();
    if (absl::Status queued = sessions.SubmitCorrection(request.params.at("id"), command); !queued.ok()) {
      return FromStatus(queued);
    }
    return HttpResponse::Json(202, {{"queued", command}});
  });
  // The picture switched live: {"size": "1280x720", "fps": 30}, either or both;
  // the `video` control command (docs/live.md), applied at the next frame.
  server.Route("POST", "/v1/sessions/{id}/video", [&sessions](const HttpRequest& request) {
    const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    constexpr char kUsage[] = R"(give {"size": "WIDTHxHEIGHT", "fps": N}, either or both)";
    if (!body.is_object() || (!body.contains("size") && !body.contains("fps"))) return HttpResponse::Error(400, kUsage);
    std::string command = "video ";
    if (body.contains("size")) {
      if (!body["size"].is_string()) return HttpResponse::Error(400, kUsage);
      const std::string size = body["size"].get<std::string>();
      if (size.empty() || size.find_first_of("@ \t") != std::string::npos) {
        return HttpResponse::Error(400, absl::StrCat("size \"", size, "\": expected WIDTHxHEIGHT, e.g. 1280x720"));
      }
      absl::StrAppend(&command, size);
    }
    if (body.contains("fps")) {
      if (!body["fps"].is_number_integer()) return HttpResponse::Error(400, R"("fps" is a whole number of frames a second, 1..120)");
      absl::StrAppend(&command, "@", body["fps"].get<int64_t>());
    }
    if (absl::Status queued = sessions.SubmitCorrection(request.params.at("id"), command); !queued.ok()) {
      return FromStatus(queued);
    }
    return HttpResponse::Json(202, {{"queued", command}});
  });
  // The two routes a session's view token opens (RouteAccess), for that session only.
  const RouteAccess session_viewer{.viewer_session_param = "id"};
  server.RouteStream(
      "/v1/sessions/{id}/events",
      [&sessions](const HttpRequest& request, std::shared_ptr<EventClient> client) {
        return sessions.JoinEvents(request.params.at("id"), std::move(client));
      },
      session_viewer);
  server.Route("GET", "/overlay/{id}", [&sessions](const HttpRequest& request) {
    absl::StatusOr<SessionSummary> s = sessions.Get(request.params.at("id"));
    if (!s.ok()) return FromStatus(s.status());
    HttpResponse page;
    page.content_type = "text/html; charset=utf-8";
    const auto given = s->settings.find("subtitle_style");
    const std::string style = given != s->settings.end() && given->is_string() ? given->get<std::string>() : "";
    const bool known = style == "outline" || style == "box" || style == "shadow";
    page.body = absl::StrReplaceAll(kOverlayPage, {{"STYLE_FROM_SERVER", known ? style : "outline"}});
    return page;
  }, session_viewer);
}

namespace {

// The serve flags' ranges, before anything starts: one line each, exit 2.
absl::Status CheckServeFlags(const ServeFlags& flags) {
  if (flags.max_sessions < 1 || flags.max_sessions > 256) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-sessions ", flags.max_sessions, " is outside 1..256"));
  }
  if (flags.max_body_kb < 1 || flags.max_body_kb > 64 * 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-body-kb ", flags.max_body_kb, " is outside 1..65536"));
  }
  if (flags.max_event_clients < 1 || flags.max_event_clients > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-event-clients ", flags.max_event_clients, " is outside 1..4096"));
  }
  if (flags.watch_memory != "auto") {
    double high = 0, low = 0;
    LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-memory", flags.watch_memory, &high, &low));
  }
  if (flags.watch_gpu_memory != "auto") {
    double high = 0, low = 0;
    LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-gpu-memory", flags.watch_gpu_memory, &high, &low));
  }
  if (flags.shutdown_timeout_s < 1 || flags.shutdown_timeout_s > 3600) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--shutdown-timeout %.1f is outside 1..3600 s", flags.shutdown_timeout_s));
  }
  return absl::OkStatus();
}

// The process-wide watchdog of --watch-memory and --watch-gpu-memory
// (app/serve_watchdog.h); null with both off.
absl::StatusOr<std::unique_ptr<ServeWatchdog>> MakeServeWatchdog(const ServeFlags& flags, SessionManager& sessions,
                                                                 Logger& logger) {
  PressureLimits limits;
  limits.lag_high = limits.lag_low = MediaTime::Zero();  // lag is each session's own
  if (flags.watch_memory == "auto") {
    if (const std::optional<std::pair<double, double>> marks = AutoMemoryMarksMb()) {
      limits.rss_high_mb = marks->first;
      limits.rss_low_mb = marks->second;
    }
  } else {
    LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-memory", flags.watch_memory, &limits.rss_high_mb, &limits.rss_low_mb));
  }
  if (flags.watch_gpu_memory == "auto") {
    if (const std::optional<std::pair<double, double>> marks = AutoGpuMemoryMarksMb()) {
      limits.gpu_high_mb = marks->first;
      limits.gpu_low_mb = marks->second;
    }
  } else {
    LC_RETURN_IF_ERROR(
        ParseWatchMarks("--watch-gpu-memory", flags.watch_gpu_memory, &limits.gpu_high_mb, &limits.gpu_low_mb));
  }
  if (limits.rss_high_mb == 0 && limits.gpu_high_mb == 0) return std::unique_ptr<ServeWatchdog>();
  logger.Info("serve", "watching memory",
              {{"high_mb", absl::StrCat(limits.rss_high_mb)},
               {"low_mb", absl::StrCat(limits.rss_low_mb)},
               {"gpu_high_mb", absl::StrCat(limits.gpu_high_mb)},
               {"gpu_low_mb", absl::StrCat(limits.gpu_low_mb)}});
  const bool watch_gpu = limits.gpu_high_mb > 0;
  return ServeWatchdog::Create(limits, sessions, logger, [watch_gpu] {
    return PressureReading{.rss_mb = CurrentRssMb(), .gpu_mb = watch_gpu ? GpuMemoryInUseMb() : std::nullopt};
  });
}

int RunServe(const ServeFlags& flags, Logger& logger) {
  absl::StatusOr<std::string> token = LoadToken(flags);
  if (!token.ok()) return ReportCommandStatus(token.status());
  if (absl::Status checked = CheckServeFlags(flags); !checked.ok()) return ReportCommandStatus(checked);
  ServeDirectories directories = flags.directories;
  if (directories.models.empty()) directories.models = ModelRoots();

  // Before any thread exists, so every thread inherits the blocked signals.
  SignalWatcher signals;
  SessionManagerOptions session_options;
  session_options.max_sessions = flags.max_sessions;
  EngineCache engines;
  SessionManager sessions(LiveSessionFactory(directories, logger, engines), session_options);
  absl::StatusOr<std::unique_ptr<ServeWatchdog>> watchdog = MakeServeWatchdog(flags, sessions, logger);
  if (!watchdog.ok()) return ReportCommandStatus(watchdog.status());
  HttpServerOptions http;
  http.listen = flags.listen;
  http.token = *token;
  http.max_body_bytes = flags.max_body_kb * 1024;
  http.max_event_clients = flags.max_event_clients;
  // Two: a slow handler (a long report) does not hold up health checks and streams.
  http.threads = 2;
  if (flags.public_metrics) http.public_paths.push_back("/metrics");
  http.admits_viewer = ViewerAdmission(sessions);
  HttpServer server(http);
  AddServeRoutes(server, sessions, engines, watchdog->get());
  if (absl::Status started = server.Start(); !started.ok()) return ReportCommandStatus(started);
  logger.Info("serve", "listening", {{"listen", flags.listen}, {"port", absl::StrCat(server.port())}});
  if (!flags.json) {
    std::fprintf(stderr, "serve: listening on http://%s (port %d), at most %d sessions; Ctrl-C to stop\n",
                 flags.listen.c_str(), server.port(), flags.max_sessions);
  }

  // A signal: readiness fails at once (shutting_down), sessions wind down.
  Notification stop;
  signals.SetHandler([&](int) {
    sessions.BeginShutdown();
    if (!stop.HasBeenNotified()) stop.Notify();
  });
  // On a terminal, a status line every second until the signal.
  const bool status_line = !flags.json && StderrIsTerminal();
  double cpu_before = ProcessCpuSeconds();
  auto wall_before = std::chrono::steady_clock::now();
  SystemClock clock;
  while (!stop.WaitForNotificationWithTimeout(absl::Seconds(1))) {
    if (*watchdog != nullptr) (*watchdog)->Look(clock.Now());
    if (!status_line) continue;
    const double cpu = ProcessCpuSeconds();
    const auto wall = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(wall - wall_before).count();
    const double cpu_percent = seconds > 0 ? 100 * (cpu - cpu_before) / seconds : 0;
    cpu_before = cpu;
    wall_before = wall;
    std::fprintf(stderr, "\r%s", ServeStatusLine(sessions.List(), cpu_percent).c_str());
  }
  if (status_line) std::fprintf(stderr, "\n");
  signals.SetHandler([&sessions](int) { sessions.BeginShutdown(); });
  logger.Info("serve", "shutting down", {{"sessions", absl::StrCat(sessions.active())}});
  const bool ended = sessions.WaitAll(absl::Seconds(flags.shutdown_timeout_s));
  const std::vector<SessionSummary> all = sessions.List();
  server.Stop();
  int finished = 0, failed = 0;
  for (const SessionSummary& s : all) (s.state == SessionState::kFailed ? failed : finished) += 1;
  if (flags.json) {
    std::cout << nlohmann::json{{"sessions", all.size()}, {"failed", failed}, {"forced", !ended}}.dump() << std::endl;
  } else {
    std::fprintf(stderr, "serve: stopped; %zu sessions (%d failed)%s\n", all.size(), failed,
                 ended ? "" : "; some did not end in time and were cut off");
  }
  // The handler refers to what is about to go.
  signals.SetHandler(nullptr);
  if (!ended) {
    // A session stuck past the deadline cannot be joined: end the process.
    std::fflush(nullptr);
    std::_Exit(1);
  }
  return 0;
}

}  // namespace

Command AddServeCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand("serve", "Run live sessions behind an HTTP/WebSocket API (docs/serve.md)");
  CLI::App& c = *command;
  auto flags = std::make_shared<ServeFlags>();
  c.add_option("--listen", flags->listen, "Address and port to listen on (localhost unless you mean otherwise)")
      ->capture_default_str();
  c.add_option("--token-file", flags->token_file,
               "File holding the API token (else $LINGCAST_SERVE_TOKEN); every endpoint but /healthz needs it");
  c.add_option("--max-sessions", flags->max_sessions, "Sessions at once")->capture_default_str();
  c.add_option("--media-dir", flags->directories.media, "Where a session's input files may be")->capture_default_str();
  c.add_option("--output-dir", flags->directories.output, "Where a session's file and HLS outputs may be written")
      ->capture_default_str();
  c.add_option("--models-dir", flags->directories.models,
               "Where model checkpoints may be (repeatable; default: the model roots of docs/models.md)");
  c.add_option("--shutdown-timeout", flags->shutdown_timeout_s, "Seconds sessions get to finish after SIGTERM")
      ->capture_default_str();
  c.add_option("--max-body-kb", flags->max_body_kb, "Largest request body, KiB")->capture_default_str();
  c.add_option("--max-event-clients", flags->max_event_clients, "Event streams (WebSocket/SSE) open at once")
      ->capture_default_str();
  c.add_option("--watch-memory", flags->watch_memory,
               "Resident memory in MB HIGH,LOW under which sessions degrade and, at the last rung, new ones are "
               "refused (docs/reliability.md); auto: 85%,75% of the memory the process may use; off")
      ->capture_default_str();
  c.add_option("--watch-gpu-memory", flags->watch_gpu_memory,
               "GPU memory in use in MB HIGH,LOW, as --watch-memory; auto: 90%,80% of the GPU's memory where there "
               "is a CUDA GPU; off")
      ->capture_default_str();
  c.add_flag("--public-metrics", flags->public_metrics,
             "Serve /metrics without the token (for a Prometheus that scrapes pods directly)");
  c.add_flag("--json", flags->json, "Print the summary as JSON on stdout when it stops");
  return {command, [flags](Logger& logger) { return RunServe(*flags, logger); }};
}

}  // namespace lingcast
