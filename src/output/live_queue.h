// LivePacketQueue: the packets a network output has yet to send, measured in
// milliseconds of media, with the live policies applied as packets arrive.
//
// - Congestion (connected, more than `congestion_threshold` of media queued):
//   non-key video is dropped; once a frame is dropped, video stays dropped
//   until a keyframe arrives with the queue back under the threshold, so what
//   is sent always decodes. Keyframes and audio are never dropped.
// - Disconnected: only the newest `reconnect_buffer` of media is kept; a live
//   audience wants now, not the minute the server was down.
// - Reconnected: the new connection starts at a video keyframe (queued ones
//   before it are discarded, and until one arrives everything is).
//
// The congestion span is that of the queued video (newest - oldest dts):
// audio arrives in bursts (a render writes a spoken line at once, seconds
// ahead of its frames), so it would make an idle queue look congested, while
// video waiting behind a slow link grows steadily. B-frames reorder dts by a
// few frames at most, which a threshold of hundreds of milliseconds absorbs.
// The reconnect buffer counts every packet. The queue also counts its bytes
// and packets, and the most it has held of each (the send buffer's high water:
// bounded because congestion drops video, a stalled connection is declared dead
// after the write timeout, and a disconnected queue keeps only the reconnect
// buffer). Thread-safe: one producer, one consumer.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "audio/av_util.h"
#include "core/media_time.h"

namespace lingcast {

class LivePacketQueue {
 public:
  LivePacketQueue(MediaTime congestion_threshold, MediaTime reconnect_buffer);

  // `packet`: timestamps in microseconds, stream_index 0 video / 1 audio.
  void Push(PacketPtr packet);
  // Blocks until a packet is queued (returns it), or the queue is closed and
  // empty, or aborted (returns null).
  PacketPtr Pop();

  // The sender's connection state. `reconnect`: a connection after the first,
  // whose first packet must be a keyframe.
  void SetConnected(bool connected, bool reconnect);
  // No more pushes: Pop drains what is left, then returns null.
  void Close();
  // Pop returns null at once, now and from here on.
  void Abort();

  MediaTime span() const;  // of the queued video: the congestion measure
  int64_t dropped_video() const;  // congestion drops
  int64_t discarded() const;      // lost while disconnected or waiting for a keyframe
  int64_t bytes() const;          // of the packets queued now
  int64_t packets() const;
  int64_t max_bytes() const;      // the most queued at once so far
  int64_t max_packets() const;

 private:
  MediaTime SpanLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);     // queued video
  MediaTime AllSpanLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);  // every packet
  PacketPtr TakeFrontLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AppendLocked(PacketPtr packet) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const MediaTime congestion_threshold_;
  const MediaTime reconnect_buffer_;
  mutable std::mutex mu_;
  std::condition_variable ready_;
  std::deque<PacketPtr> packets_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> video_dts_ ABSL_GUARDED_BY(mu_);  // of the queued video, in order
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
  bool need_keyframe_ ABSL_GUARDED_BY(mu_) = false;    // after a reconnect
  bool dropping_video_ ABSL_GUARDED_BY(mu_) = false;   // congestion
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;
  int64_t dropped_video_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t discarded_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t max_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_packets_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lingcast
