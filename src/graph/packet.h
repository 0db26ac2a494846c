// Packet<T>: a value on a stream, with its place on the media timeline.
#pragma once

#include <cstdint>
#include <utility>

#include "core/media_time.h"

namespace lingcast {

template <typename T>
struct Packet {
  T value{};
  MediaTime pts;       // start on the session's media timeline (increasing per stream; the parts of
                       // one event, a line's speech streamed in parts, share its pts)
  MediaTime duration;  // span covered on the media timeline
  // Wall-clock time (Clock::Now()) at which the source audio or script line that
  // this packet derives from entered the system. Latency at any stage boundary
  // is `clock.Now() - origin`. Carried unchanged through derived packets.
  MediaTime origin;
  // Bumped by Flush/Interrupt; stages drop packets of an older generation.
  // Stamped by the output port, so stages never set it by hand.
  uint64_t generation = 0;

  MediaTime end() const { return pts + duration; }

  // A packet derived from this one (same timing and origin, new value).
  template <typename U>
  Packet<U> Derive(U v) const {
    return Packet<U>{std::move(v), pts, duration, origin, generation};
  }
};

}  // namespace lingcast
