// The `lingcast live` command line: its flags (registered on the CLI) and the
// run (RunLive, then the summary on stderr or --json on stdout). Kept out of
// main.cc so the entry point stays a list of commands.
#pragma once

#include "app/command.h"

namespace lingcast {

// Adds the `live` subcommand and its flags to `app`.
Command AddLiveCommand(CLI::App& app);

}  // namespace lingcast
