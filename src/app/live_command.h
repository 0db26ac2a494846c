// The `lingcast live` command line: its flags (registered on the CLI) and the
// run (RunLive, then the summary on stderr or --json on stdout). Kept out of
// main.cc so the entry point stays a list of commands.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "app/live_options.h"
#include "core/logger.h"

namespace lingcast {

class LiveCommand {
 public:
  // Adds the `live` subcommand and its flags to `app`.
  void Register(CLI::App& app);
  // Whether the command line chose `live`.
  bool chosen() const { return command_ != nullptr && command_->parsed(); }
  // Runs it; returns the process exit code.
  int Run(Logger& logger);

 private:
  CLI::App* command_ = nullptr;
  LiveOptions options_;
  std::string source_ = "en", target_ = "zh", size_ = "1280x720", lag_policy_ = "speedup", clock_ = "realtime";
  double max_lag_s_ = 4;
  double source_timeout_s_ = 10;
  std::vector<std::string> engines_ = {"tm"};
};

}  // namespace lingcast
