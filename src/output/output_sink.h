// OutputSink: one destination of an OutputSet (an MP4 file, an HLS directory,
// an RTMP or SRT push), fed with the shared encode's packets.
//
// Packets reach a sink with timestamps in microseconds (kPacketTimeBase) on
// the 0-based media timeline; stream 0 is video, stream 1 audio. A sink never
// returns errors from Write: it records its own failure (state kFailed, a
// one-line error) so one dead output cannot stop the others.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/media_time.h"
#include "media/text_segment.h"
#include "output/output_spec.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/packet.h>
#include <libavutil/rational.h>
}

namespace lingcast {

inline constexpr AVRational kPacketTimeBase{1, 1'000'000};
inline constexpr int kVideoStreamIndex = 0;
inline constexpr int kAudioStreamIndex = 1;

enum class OutputState { kConnecting, kConnected, kReconnecting, kFailed, kFinished };
const char* OutputStateName(OutputState state);  // "connecting", "connected", ...

// Reconnect backoff of a network output: attempt n (0-based) waits
// initial_delay * multiplier^n, capped at max_delay, minus up to `jitter` of
// itself (so a fleet of senders does not hammer a restarted server in step,
// and the first retry comes no later than initial_delay).
struct ReconnectOptions {
  MediaTime initial_delay = MediaTime::Seconds(2);
  double multiplier = 1.5;
  MediaTime max_delay = MediaTime::Seconds(30);
  // Consecutive failed attempts before the output is marked failed.
  int max_retries = 10;
  double jitter = 0.25;
  // A connection that lived at least this long resets the attempt count; one
  // that died sooner (a server that accepts and drops) does not.
  MediaTime stable_after = MediaTime::Seconds(1);
  // Seed of the jitter; 0 seeds from std::random_device.
  uint64_t seed = 0;
  // RTMP: while waiting for the next attempt, try a bare TCP connection to the
  // server this often; once it answers, the attempt comes within a random
  // `server_back_jitter` instead of at the end of a backoff that may have grown
  // to max_delay. So a restarted server sees its senders back within about a
  // second however long it was down, still spread out. 0: off.
  MediaTime probe_interval = MediaTime::Millis(500);
  MediaTime server_back_jitter = MediaTime::Millis(500);
};

struct NetworkOptions {
  ReconnectOptions reconnect;
  // Media queued for the server beyond this: non-key video is dropped until
  // the next keyframe that arrives under it. Audio is never dropped.
  MediaTime congestion_threshold = MediaTime::Millis(700);
  // RTMP's TCP send buffer. Small, so that a slow link shows up in our queue
  // (measured, and acted on by dropping video) instead of hiding seconds of
  // media in the kernel (Linux grows a loopback buffer to 4 MB). 0: the system's.
  int socket_send_buffer_bytes = 256 * 1024;
  // Connecting (TCP + RTMP handshake, or SRT handshake) gives up after this.
  MediaTime connect_timeout = MediaTime::Seconds(5);
  // A send that makes no progress for this long counts as a dead connection.
  MediaTime write_timeout = MediaTime::Seconds(10);
  // Finish() waits this long for the queue to drain before closing anyway.
  MediaTime drain_timeout = MediaTime::Seconds(10);
  // A finished SRT stream stays connected this long (real time, within
  // drain_timeout) after its last packet before it closes. An SRT receiver holds
  // every packet for its latency and, when the sender closes, drops what it has
  // not played out yet (libsrt does: a listener at 3 s of latency lost the last
  // 1.1 s of a 4 s stream); the last packets' retransmissions need the
  // connection too. Covers receivers whose latency is up to this (SRT's default
  // is 120 ms; lossy links use a few times their round trip). 0: close at once.
  MediaTime srt_close_hold = MediaTime::Seconds(2);
  // While disconnected, keep at most this much media for the new connection
  // (it starts at a keyframe inside it); older media is discarded, as a live
  // audience wants now, not the past.
  MediaTime reconnect_buffer = MediaTime::Seconds(2);
};

struct OutputSinkStats {
  std::string name;  // OutputSpec::DisplayName()
  OutputSpec::Kind kind = OutputSpec::kMp4;
  OutputState state = OutputState::kConnecting;
  std::string error;  // the failure (kFailed) or the last connection error
  absl::StatusCode error_code = absl::StatusCode::kOk;  // of the failure
  int64_t bytes = 0;
  int64_t video_packets = 0;  // written to the output
  int64_t audio_packets = 0;
  double bitrate = 0;  // bit/s over the media written
  int64_t dropped_video_frames = 0;   // congestion drops (never audio)
  int64_t discarded_packets = 0;      // lost while disconnected
  int64_t reconnects = 0;             // successful connections after the first
  MediaTime send_buffer;              // media queued for the server (its video span)
  int64_t send_buffer_bytes = 0;      // queued now, and the most queued at once
  int64_t send_buffer_packets = 0;
  int64_t max_send_buffer_bytes = 0;
  int64_t max_send_buffer_packets = 0;
  MediaTime av_offset;                // last audio written minus last video written
  MediaTime last_dts;                 // of the last packet written, on the output's timeline
  MediaTime last_connect_attempt;     // clock reading when the latest connection attempt began
};

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // `packet`: timestamps in kPacketTimeBase, borrowed for the call.
  virtual void Write(const AVPacket& packet) = 0;
  virtual void AddSubtitle(const SubtitleCue& cue) = 0;
  // Flush and close; OK, or the output's failure.
  virtual absl::Status Finish() = 0;
  virtual OutputSinkStats stats() const = 0;
  virtual bool failed() const = 0;

  // The picture switches (OutputSet::SwitchVideo): the next video packet is a
  // keyframe of `video` (an opened encoder; read during the call), carrying its
  // SPS/PPS as AV_PKT_DATA_NEW_EXTRADATA. A sink that keeps the picture it
  // opened with (an MP4 file: one track, one size) says so below and is fed
  // from an encoder at its own size instead.
  virtual bool follows_video_switch() const { return true; }
  virtual void SwitchVideo(const AVCodecContext& /*video*/, const AVCodecContext& /*audio*/) {}
};

}  // namespace lingcast
