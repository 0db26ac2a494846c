// Clock: the only source of "now" in lingcast. Injected into every stage so the
// same pipeline runs in real time (SystemClock) or as fast as it can with
// reproducible results (SimulatedClock) in tests and offline renders.
#pragma once

#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "core/media_time.h"

namespace lingcast {

class Clock {
 public:
  virtual ~Clock() = default;
  // Current time on this clock's monotonic timeline.
  virtual MediaTime Now() const = 0;
  // Blocks until Now() >= deadline (or returns at once if already past).
  virtual void SleepUntil(MediaTime deadline) = 0;
};

// Monotonic wall clock (std::chrono::steady_clock).
class SystemClock final : public Clock {
 public:
  MediaTime Now() const override;
  void SleepUntil(MediaTime deadline) override;
};

// A clock that moves only when told to.
//
// Manual mode (default): SleepUntil() blocks until another thread calls
// Advance()/AdvanceTo() past the deadline, which lets a test step a pipeline
// deterministically. Auto-advance mode: SleepUntil() jumps the clock forward to
// the deadline, so paced code runs as fast as the CPU allows.
class SimulatedClock final : public Clock {
 public:
  enum class Mode { kManual, kAutoAdvance };
  explicit SimulatedClock(MediaTime start = MediaTime::Zero(), Mode mode = Mode::kManual);

  MediaTime Now() const override;
  void SleepUntil(MediaTime deadline) override;

  void Advance(MediaTime delta);
  void AdvanceTo(MediaTime t);  // never moves backwards
  // Number of threads currently blocked in SleepUntil (lets tests wait for quiescence).
  int sleepers() const;

 private:
  const Mode mode_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  MediaTime now_ ABSL_GUARDED_BY(mu_);
  int sleepers_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lingcast
