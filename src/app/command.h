// What every `lingcast` subcommand offers main.cc: one function per command,
// declared in the command's own header and defined beside its job,
//
//   Command AddRenderCommand(CLI::App& app);
//
// which adds the subcommand and its flags to `app` and returns the runner that
// turns the parsed flags into a run. The flags' storage lives in the runner (a
// shared_ptr the closure holds), so nothing is static and `app` only points at it.
#pragma once

#include <functional>

#include "absl/status/status.h"
#include "core/logger.h"

namespace CLI {
class App;
}  // namespace CLI

namespace lingcast {

// Runs a parsed subcommand with the process's logger (--log-level); returns the
// process exit code (core/status.h: 0 ok, 2 bad usage or input, 1 internal
// failure, 130 interrupted).
using CommandRunner = std::function<int(Logger& logger)>;

struct Command {
  CLI::App* cli = nullptr;  // the subcommand, owned by the parent CLI::App
  CommandRunner run;        // call only when cli->parsed()
};

// Prints "lingcast: error: MESSAGE" on stderr and returns the exit code for
// `status`: 130 when it was cancelled (SIGINT/SIGTERM), else ExitCodeFor. Returns
// 0, printing nothing, when it is ok.
int ReportCommandStatus(const absl::Status& status);

}  // namespace lingcast
