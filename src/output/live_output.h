// LiveOutput: an RTMP (FLV) or SRT (MPEG-TS, caller mode) push on its own
// sender thread, fed by an OutputSet through a LivePacketQueue.
//
// The encode never waits for the network: Write() only queues. The sender
// connects, sends, and on a lost connection reconnects on the ReconnectPolicy's
// schedule (the injected Clock), starting every new connection at a keyframe
// that it asks the encoder for. A rejection by the server (unknown application,
// bad stream key, failed authentication) is final: retrying cannot fix it.
//
// Timestamps are the media timeline plus the start offset. FLV carries them
// as signed 32-bit milliseconds (RTMP's 24-bit field plus the extended byte),
// so each RTMP connection starts its own timeline at the media time less a
// multiple of 2^30 ms (none below 2^30 ms, about 12 days), and a connection
// that would pass 2^31 ms reconnects onto a new base rather than wrap.
#pragma once

#include <functional>
#include <memory>

#include "core/clock.h"
#include "output/output_sink.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace lingcast {

// Called on a sender thread after each packet reached the network.
struct PacketWritten {
  int stream_index = 0;
  MediaTime pts;         // on the 0-based media timeline
  MediaTime written_at;  // clock reading
  bool key = false;
  int connection = 0;  // 0 for the first connection, 1 after the first reconnect, ...
};
using PacketWrittenObserver = std::function<void(const std::string& output, const PacketWritten&)>;

struct LiveOutputParams {
  OutputSpec spec;
  const AVCodecContext* video = nullptr;  // parameters copied at open
  const AVCodecContext* audio = nullptr;
  NetworkOptions network;
  MediaTime start_offset;
  Clock* clock = nullptr;
  // Asks the shared encoder for a keyframe (thread-safe); after a reconnect.
  std::function<void()> request_keyframe;
  PacketWrittenObserver on_packet_written;  // optional
};

// Starts the sender thread, which connects at once. Never null.
std::unique_ptr<OutputSink> OpenLiveOutput(const LiveOutputParams& params);

// FLV timestamp of media time `ms` on a connection whose timeline starts at
// `base_ms` (see above); exposed for tests.
int64_t FlvConnectionBase(int64_t first_ms);
inline constexpr int64_t kFlvTimestampLimitMs = (int64_t{1} << 31) - 1;

}  // namespace lingcast
