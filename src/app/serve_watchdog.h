// `lingcast serve`'s process-wide watchdog: the server's memory (and GPU
// memory, where a reading is given) on the degradation ladder of
// core/degradation_ladder.h, to its fourth rung. Its level is every session's
// floor (each also has its own ladder on its lag: app/live_watchdog.h), and at
// the fourth rung the server takes no new sessions (503, readiness fails) until
// the pressure has passed. docs/reliability.md, "Under pressure".
#pragma once

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "app/live_watchdog.h"
#include "core/degradation_ladder.h"
#include "core/logger.h"
#include "nlohmann/json.hpp"
#include "core/sync.h"
#include "server/session_manager.h"

namespace lingcast {

// The marks `--watch-memory auto` takes: 85% and 75% of the memory this
// process may use (the cgroup's limit where there is one, else the machine's);
// nullopt where neither can be read.
std::optional<std::pair<double, double>> AutoMemoryMarksMb();

// The marks `--watch-gpu-memory auto` takes: 90% and 80% of the GPU's memory
// (device 0, docs/gpu.md); nullopt where no CUDA GPU is usable.
std::optional<std::pair<double, double>> AutoGpuMemoryMarksMb();

class ServeWatchdog {
 public:
  using ReadingSource = std::function<PressureReading()>;
  // `limits.max_level` is taken as 4 whatever it says. `sessions` outlives it.
  static absl::StatusOr<std::unique_ptr<ServeWatchdog>> Create(PressureLimits limits, SessionManager& sessions,
                                                                Logger& logger, ReadingSource source);

  // One look at `now` (the server's loop calls it once a second).
  void Look(MediaTime now);
  int level() const;
  // For /metrics: {"level", "taken": {rung: n}, "given_back": {rung: n}}.
  nlohmann::json Report() const;

 private:
  ServeWatchdog(DegradationLadder ladder, SessionManager& sessions, Logger& logger, ReadingSource source);

  SessionManager& sessions_;
  Logger& logger_;
  const ReadingSource source_;
  mutable Mutex mu_;
  DegradationLadder ladder_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
