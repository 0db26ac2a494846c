// ReconnectPolicy: when a live output tries its server again.
//
// Attempt n (counting failures since the last stable connection) waits
// initial_delay * multiplier^n, capped at max_delay, shortened by a random
// fraction up to `jitter` so that many senders cut off by one server restart
// do not return in lockstep. A connection that dies before stable_after does
// not reset the count: a server that accepts and then drops us at once must
// still back off. All times come from the injected Clock's readings passed in,
// so tests step it with a SimulatedClock.
#pragma once

#include <optional>
#include <random>

#include "core/media_time.h"
#include "output/output_sink.h"

namespace lingcast {

class ReconnectPolicy {
 public:
  explicit ReconnectPolicy(const ReconnectOptions& options);

  // A connection (first or later) is up.
  void OnConnected(MediaTime now);
  // A connection was lost, or an attempt failed, at `now`. Returns when to try
  // next, or nullopt once max_retries consecutive attempts have failed.
  std::optional<MediaTime> OnDisconnected(MediaTime now);

  // When to attempt after a probe found the server back at `now`: within a
  // random part of server_back_jitter.
  MediaTime ServerBack(MediaTime now);

  // Failures since the last stable connection.
  int consecutive_failures() const { return failures_; }
  // The delay before jitter for attempt `n`.
  MediaTime BaseDelay(int n) const;

 private:
  const ReconnectOptions options_;
  std::mt19937_64 random_;
  std::optional<MediaTime> connected_at_;
  int failures_ = 0;
};

}  // namespace lingcast
