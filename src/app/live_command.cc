#include "app/live_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "app/live_flags.h"
#include "app/live_job.h"
#include "app/progress.h"
#include "app/signals.h"
#include "core/status.h"

namespace lingcast {
namespace {

int RunFromFlags(const LiveFlags& flags, Logger& logger) {
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "lingcast: error: %s\n", std::string(status.message()).c_str());
    return ExitCodeFor(status);
  };
  absl::StatusOr<LiveOptions> parsed = LiveOptionsFromFlags(flags);
  if (!parsed.ok()) return fail(parsed.status());
  const LiveOptions& options = *parsed;
  // Before any thread exists, so every thread inherits the blocked signals.
  SignalWatcher signals;
  std::FILE* status = !options.quiet && !options.json && StderrIsTerminal() ? stderr : nullptr;
  absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, std::cin, status);
  if (!report.ok()) return fail(report.status());
  const nlohmann::json& s = (*report)["summary"];
  if (options.json) {
    std::cout << report->dump() << std::endl;
  } else if (!options.quiet) {
    std::fprintf(stderr,
                 "live: %lld lines (%lld spoken, %lld skipped, %lld subtitles only); compute latency p50 %.0f ms "
                 "p95 %.0f ms; end offset p50 %.0f ms; drops audio %lld video %lld; peak RSS %.0f MB\n",
                 static_cast<long long>(s["lines"].get<int64_t>()), static_cast<long long>(s["spoken"].get<int64_t>()),
                 static_cast<long long>(s["skipped"].get<int64_t>()),
                 static_cast<long long>(s["subtitles_only"].get<int64_t>()),
                 s["compute_latency_ms"]["p50"].get<double>(), s["compute_latency_ms"]["p95"].get<double>(),
                 s["end_offset_ms"]["p50"].get<double>(), static_cast<long long>(s["audio_drops"].get<int64_t>()),
                 static_cast<long long>(s["video_drops"].get<int64_t>()), s["peak_rss_mb"].get<double>());
  }
  return 0;
}

}  // namespace

Command AddLiveCommand(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("live", "Interpret a host live: the avatar speaks the translation (docs/live.md)");
  CLI::App& c = *command;
  auto flags = std::make_shared<LiveFlags>();
  AddLiveFlags(c, *flags);
  return {command, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
