// When a live session's timeline begins on its clock. Fixed by the first stage
// that asks, once the graph runs: Pipeline::Start opens every stage before any
// runs, so the time the engines and outputs take to open is not taken for
// lateness by the first frames (the playout would drop them) nor for the host's
// audio arriving late (the ingest would rush it). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

#include "core/clock.h"
#include "core/media_time.h"

namespace lingcast {

class SessionStart {
 public:
  // The first call's clock.Now(); every later call, from any thread, the same.
  MediaTime Get(const Clock& clock) {
    int64_t expected = kUnset;
    const int64_t now = clock.Now().micros();
    if (us_.compare_exchange_strong(expected, now)) return MediaTime::Micros(now);
    return MediaTime::Micros(expected);
  }

 private:
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
  std::atomic<int64_t> us_{kUnset};
};

}  // namespace lingcast
