// `lingcast worker --redis URL`: renders jobs from a Redis Stream, each one a
// `lingcast render` command line run as a child process (a job that crashes
// cannot take the worker down), acknowledged once its outputs are complete.
// `lingcast submit --redis URL -- SCRIPT -o OUT.mp4 [render flags]` adds one,
// checked by render's own flags first. app/render_queue.h has the protocol.
#pragma once

#include "app/command.h"

namespace lingcast {

Command AddWorkerCommand(CLI::App& app);
Command AddSubmitCommand(CLI::App& app);

}  // namespace lingcast
