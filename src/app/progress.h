// A one-line progress bar for long jobs on a terminal:
//   [#########-----------]  45%  1350/3000 frames  5.2x realtime  ETA 0:12
// Drawn on stderr only when it is a terminal (and not --quiet).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace lingcast {

class ProgressBar {
 public:
  // `enabled` false makes every call a no-op (pipes, --quiet, --json).
  ProgressBar(bool enabled, std::FILE* out = stderr) : enabled_(enabled), out_(out) {}
  ~ProgressBar() { Finish(); }

  // done/total in `unit`s; media_seconds: media produced so far; total_known:
  // false while the total is still growing (shown as "~").
  void Update(int64_t done, int64_t total, bool total_known, double media_seconds, double wall_seconds);
  void Finish();

  // The line that Update() would draw (exposed for tests).
  static std::string Format(int64_t done, int64_t total, bool total_known, double media_seconds,
                            double wall_seconds, const std::string& unit);

 private:
  bool enabled_;
  std::FILE* out_;
  bool drawn_ = false;
};

// True when fd 2 is a terminal.
bool StderrIsTerminal();

}  // namespace lingcast
