// Runs a wired pipeline as a job: the one place that owns what every job
// (render, live, and next the server's sessions) needs around its graph —
// the stop signal, the wind-down deadline, the periodic status tick with the
// process's CPU use, and the wait for the graph to end.
//
//   JobRunner runner(pipeline, signals, logger, {.job = "live", ...});
//   LC_RETURN_IF_ERROR(runner.Start());
//   absl::Status result = runner.Wait([&](const JobTick& tick) { draw a status line });
//
// On SIGINT/SIGTERM the runner either stops the graph at once (kStop: nothing
// in flight is kept, as a render that must not leave a partial file wants) or
// drains it (kDrain: sources end, what is in flight is finished, as a live show
// wants), and in that case cancels it if it has not ended by the deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "app/signals.h"
#include "core/logger.h"
#include "graph/pipeline.h"

namespace lingcast {

enum class OnStopSignal {
  kStop,   // Pipeline::Stop(): end now, discard what is in flight
  kDrain,  // Pipeline::Drain(): end the input, finish what is in flight
};

struct JobRunnerOptions {
  std::string job = "job";                 // names the job in log lines and errors
  absl::Duration tick = absl::Milliseconds(500);  // how often Wait()'s callback runs
  OnStopSignal on_signal = OnStopSignal::kStop;
  // kDrain: a graph that has not ended this long after the signal is cancelled
  // and Wait() fails with DeadlineExceeded.
  absl::Duration drain_deadline = absl::Seconds(20);
};

// What Wait()'s callback sees at each tick.
struct JobTick {
  double cpu_percent = 0;  // of one core, since the previous tick
  double wall_seconds = 0; // since Start()
};

class JobRunner {
 public:
  // `signals` may be null: a job the server runs, stopped by RequestStop() alone.
  JobRunner(Pipeline& pipeline, SignalWatcher* signals, Logger& logger, JobRunnerOptions options);
  ~JobRunner();  // the signal handler goes with the runner
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Points the stop signals at the graph, then starts it.
  absl::Status Start();
  // Calls `on_tick` every options.tick until the graph ends; returns the
  // graph's result (the first stage error, or OK), or DeadlineExceeded when a
  // drain had to be cancelled.
  absl::Status Wait(const std::function<void(const JobTick&)>& on_tick);
  // What a stop signal does (options.on_signal), asked by the job's owner
  // instead: the server ending a session. Thread-safe; the first call counts.
  void RequestStop();
  bool stop_requested() const { return signalled_at_.load() != 0; }

  // The stages' warnings (recoverable failures posted on the bus), by stage:
  // each is counted here and logged, the first few per stage in full.
  std::map<std::string, int64_t> warnings() const;

  // Process figures over the run, for the job's report.
  double wall_seconds() const;
  double cpu_percent() const;  // of one core, over the whole run
  double rss_start_mb() const { return rss_start_mb_; }

 private:
  bool DrainOverdue(std::chrono::steady_clock::time_point now) const;
  void TakeWarnings();  // from the bus: counted and logged

  Pipeline& pipeline_;
  SignalWatcher* signals_;
  Logger& logger_;
  const JobRunnerOptions options_;
  std::chrono::steady_clock::time_point started_at_;
  double cpu_at_start_ = 0;
  double rss_start_mb_ = 0;
  // steady_clock ticks when the first stop request came; 0: none yet.
  std::atomic<int64_t> signalled_at_{0};
  // std::mutex, not absl::Mutex: ThreadSanitizer sees it (Debian's absl is not instrumented).
  mutable std::mutex warnings_mu_;
  std::map<std::string, int64_t> warnings_ ABSL_GUARDED_BY(warnings_mu_);
};

}  // namespace lingcast
