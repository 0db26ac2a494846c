// The live show's watchdog: samples memory and the avatar's lag once a second
// of output, walks the degradation ladder (core/degradation_ladder.h) and does
// what each rung says to the running stages, logging and counting every step
// (docs/reliability.md, "Under pressure").
//
// It runs on the playout's thread, at the output's own time (one look per
// second of output), so a show on the simulated clock degrades and recovers the
// same way every run. The server may set a floor: its process-wide ladder
// (memory of all sessions together) puts every session at least that low.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/degradation_ladder.h"
#include "core/logger.h"
#include "core/sync.h"
#include "media/video_format.h"
#include "nlohmann/json.hpp"
#include "output/live_report.h"

namespace lingcast {

// The GPU memory in use (CudaDeviceMemory: device 0, every process's), for a
// watchdog's reading; nullopt where it cannot be read. Makes a CUDA context in
// a process that has none, so only watchdogs that watch the GPU ask.
std::optional<double> GpuMemoryInUseMb();

class LiveWatchdog {
 public:
  // What each rung does to the show, `taken` true when taken and false when
  // given back, with the show's counters at that look; any may be empty (the
  // show has nothing of that kind to give up).
  using RungAction = std::function<void(bool taken, const LiveCounters& now)>;
  struct Rungs {
    RungAction drop_provisional_captions;
    RungAction lower_video;
    RungAction lighter_voice;
  };
  // The reading at a look: the real one reads the process's memory and the
  // voice's lag; tests and the soak bench put in their own pressure.
  using ReadingSource = std::function<PressureReading(const LiveCounters& counters)>;

  // `monitor` gets the watchdog's events ({"type":"degradation"}) and, when
  // Watch() is called, drives it.
  LiveWatchdog(DegradationLadder ladder, Rungs rungs, ReadingSource source, Logger& logger, LiveMonitor& monitor);
  // Looks at every output tick of `monitor` from now on (before the show starts).
  void Watch();

  // At every output tick (the monitor's tick observer); looks once a second,
  // and takes no lock between looks.
  void OnOutputTick(const LiveCounters& counters);
  // Readings from `source` from the next look on (app/live_job.h SetPressureSource).
  void SetReadingSource(ReadingSource source);
  // The server's process-wide level (0 to 3), from any thread; applied at the next look.
  void SetFloor(int level);

  int level() const;
  // {"level", "deepest", "taken": {rung: n}, "given_back": {rung: n}, "changes": [...]}
  nlohmann::json Report() const;

 private:
  void Apply(int from, int to, const LiveCounters& now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Rungs rungs_;

  Logger& logger_;
  LiveMonitor& monitor_;
  mutable Mutex mu_;
  DegradationLadder ladder_ ABSL_GUARDED_BY(mu_);
  ReadingSource source_ ABSL_GUARDED_BY(mu_);
  // When the next look is due, in microseconds of output time (the minimum:
  // the first tick looks). Read at every output frame without the lock, so a
  // frame between two looks costs one atomic load; written under mu_, and read
  // again under it before a look, so ticks from two threads look once.
  std::atomic<int64_t> next_look_us_{std::numeric_limits<int64_t>::min()};
  int floor_ ABSL_GUARDED_BY(mu_) = 0;
  int applied_ ABSL_GUARDED_BY(mu_) = 0;  // the level the show is at (the ladder's or the floor)
  int deepest_ ABSL_GUARDED_BY(mu_) = 0;
};

// The second rung's picture: half the size and frame rate while it is taken,
// then the picture it had. The playout polls TakeChanges() once a frame with
// the `video` command's changes (the switch itself: output/playout_stage.h).
class LowerVideoRung {
 public:
  // Half the width and height (even; kept when that would go below 160x90) and
  // half the frame rate (not below 15; kept at 15 or less).
  static VideoFormat Lowered(const VideoFormat& now);
  // The rung's action (LiveWatchdog::Rungs::lower_video); any thread.
  void Act(bool taken, const LiveCounters& now);
  std::vector<VideoChange> TakeChanges();

 private:
  Mutex mu_;
  std::vector<VideoChange> pending_ ABSL_GUARDED_BY(mu_);
  std::optional<VideoFormat> before_ ABSL_GUARDED_BY(mu_);  // the picture when the rung was taken
};

}  // namespace lingcast
