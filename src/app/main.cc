// lingcast: the command-line entry point. Parses the command line, runs one job,
// and maps its Status to an exit code:
//   0 ok; 2 bad usage or bad input (one line naming file, line, field);
//   1 internal failure; 130 interrupted (SIGINT/SIGTERM; nothing half-written).
// Each subcommand's flags and run live beside its job (app/command.h).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "app/asr_command.h"
#include "app/command.h"
#include "app/doctor.h"
#include "app/follow_command.h"
#include "app/lipsync_command.h"
#include "app/live_command.h"
#include "app/pinyin_command.h"
#include "app/render_options.h"
#include "app/serve_command.h"
#include "app/translate_command.h"
#include "app/tts_command.h"
#include "app/worker_command.h"
#include "core/logger.h"
#include "core/process_memory.h"

extern "C" {
#include <libavutil/log.h>
}

namespace lingcast {
namespace {

int Main(int argc, char** argv) {
  CLI::App app{"lingcast: a real-time bilingual (Chinese <-> English) virtual anchor"};
  app.set_version_flag("--version", "lingcast 0.1.0");
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "Log level: debug, info, warn, error, off")->capture_default_str();

  // In the order `lingcast --help` lists them.
  const std::vector<Command> commands = {
      AddRenderCommand(app),    AddDoctorCommand(app),  AddPinyinCommand(app),
      AddTtsCommand(app),       AddAsrCommand(app),     AddTranslateCommand(app),
      AddLipsyncCommand(app),   AddLiveCommand(app),    AddFollowCommand(app),
      AddServeCommand(app),    AddWorkerCommand(app),  AddSubmitCommand(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "lingcast: error: %s (see lingcast --help)\n", e.what());
    return 2;
  }

  absl::StatusOr<LogLevel> level = ParseLogLevel(log_level);
  if (!level.ok()) return ReportCommandStatus(level.status());
  Logger logger(*level);
  // libav* logs to stderr through its own process-wide level; keep it as quiet
  // as ours (its messages only matter when debugging).
  av_log_set_level(*level == LogLevel::kDebug ? AV_LOG_INFO : AV_LOG_ERROR);

  for (const Command& command : commands) {
    if (command.cli->parsed()) return command.run(logger);
  }
  return 2;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  // The neural engines' OpenMP threads sleep when out of work instead of
  // spinning (libgomp reads this when the plug-in loads it). A show runs several
  // engines at once on few cores (Whisper's partials beside the voice beside x264):
  // spinning workers took the cores the others needed. Measured on 2 cores,
  // live zh->en on AISHELL with Whisper base and the Piper voice, twice each:
  // CPU 117-139% -> 43-45%, decision to first sample 830-1563 -> 663-730 ms.
  // A value the user set wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  // core/process_memory.h says why and what it measured.
  lingcast::TuneMallocForLongRuns();
  lingcast::FreedMemoryReleaser releaser(absl::Minutes(1));
  return lingcast::Main(argc, argv);
}
