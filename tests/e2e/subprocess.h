// Runs the lingcast binary as a child process for end-to-end tests: arguments
// in, exit code and captured stdout/stderr out. Optionally watches stderr and
// sends a signal once a line containing a marker appears (no sleeps).
#pragma once

#include <string>
#include <vector>

namespace lingcast::e2e {

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;
};

struct RunOptions {
  // When non-empty: send `signal` to the child as soon as stderr contains it.
  std::string signal_on_stderr;
  int signal = 0;
  // What the child reads on stdin (then end of file); at most 64 KiB.
  std::string stdin_text;
};

RunResult RunLingcast(const std::vector<std::string>& args, const RunOptions& options = {});

// build/lingcast (from the LINGCAST_BINARY_DIR the test was built with).
std::string LingcastBinary();

}  // namespace lingcast::e2e
