// OutputSet: one encode (H.264 + AAC) feeding several outputs at once: MP4
// files, HLS directories, RTMP and SRT pushes.
//
// Same contract as Mp4Writer: audio is the master clock (audio pts from the
// sample count, video pts from the frame index), the caller feeds both streams
// in step from one thread. Every output gets the same packets; a network
// output queues them for its own sender thread, so a slow or dead server never
// stalls the encode or the other outputs.
//
// Failure is per output: an output that fails for good (unwritable HLS
// directory, disk full, authentication rejected, retries exhausted) is marked
// kFailed with a one-line error in its stats and the others keep going.
// WriteVideo/WriteAudio fail only when every output has failed; Finish()
// finishes every output that is still alive and then reports the failures.
//
// The writing calls come from one thread; stats() may be called from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/clock.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/video_frame.h"
#include "output/audio_encoder.h"
#include "output/bitrate_controller.h"
#include "output/encoder_options.h"
#include "output/live_output.h"
#include "output/output_sink.h"
#include "output/output_spec.h"
#include "output/video_encoder.h"

namespace lingcast {

struct OutputSetOptions {
  // Added to every timestamp of the network and HLS outputs (MP4 files always
  // start at 0). Lets tests cross the 2^24 ms / 2^31 ms RTMP limits without
  // streaming for hours. Live outputs start no earlier than the AAC priming
  // (1024 samples, 21.3 ms at 48 kHz): their containers cannot go negative.
  MediaTime start_offset = MediaTime::Zero();
  // Live defaults: HLS keeps a rolling window instead of a full VOD playlist.
  bool live = false;
  // Reconnects, congestion and timeouts of RTMP/SRT outputs (see output_sink.h).
  NetworkOptions network;
  // HLS: target segment length (segments cut at keyframes, so make it a
  // multiple of the keyframe interval) and the playlist window; window 0 is a
  // VOD playlist that keeps every segment. -1: 6 segments when live, else 0.
  double hls_segment_seconds = 2.0;
  int hls_window_segments = -1;
  // Subtitles from AddSubtitle also go to an .srt beside each MP4 file. HLS
  // always gets them (its WebVTT rendition).
  bool srt_sidecars = true;
  // MP4 rotation: above zero, each MP4 output is written as complete files
  // FILE-0001.mp4, FILE-0002.mp4, ... cut at the first video keyframe at or
  // after every multiple of this on the media timeline, each committed as it
  // closes (mp4_output.h). Zero: one file, committed at Finish.
  MediaTime mp4_segment_length = MediaTime::Zero();
  // Called on the network outputs' sender threads after each packet was sent
  // (the benchmark's rendered -> sent latency). Optional.
  PacketWrittenObserver on_packet_written;
  // Steps the video bitrate down under sustained congestion of the network
  // outputs and back up after a clean period (bitrate_controller.h). Applies
  // when the video has a target bitrate and there is an RTMP or SRT output.
  AdaptiveBitrateOptions adaptive_bitrate;
  // Called on the writing thread for every step, before the frame it applies to. Optional.
  std::function<void(const BitrateStep&)> on_bitrate_step;
};

// Per-output figures plus the shared encode's.
struct OutputSetStats {
  std::vector<OutputSinkStats> outputs;
  int64_t video_frames = 0;
  int64_t video_packets = 0;
  int64_t audio_packets = 0;
  int64_t keyframes_forced = 0;   // asked for by a network output after a reconnect
  int64_t video_switches = 0;     // SwitchVideo calls that took effect
  MediaTime media_duration;       // audio sent to the encoder (the master clock)
  int64_t video_bitrate = 0;      // the encoder's target now (0: constant quality)
  int64_t bitrate_steps_down = 0; // adaptive bitrate steps (see OutputSetOptions)
  int64_t bitrate_steps_up = 0;
  int64_t min_video_bitrate = 0;  // the lowest target it stepped to
  double video_encode_seconds = 0;
  double audio_encode_seconds = 0;
};

class OutputSet {
 public:
  // InvalidArgument for no outputs, bad encoder options or two outputs with the
  // same target. An output that cannot open (an unwritable MP4 path, an HLS
  // directory that cannot be created) is marked failed; Open fails only when
  // every output failed. Network outputs connect on their own threads.
  // `clock` paces reconnect backoff; it must outlive the set.
  static absl::StatusOr<std::unique_ptr<OutputSet>> Open(const std::vector<OutputSpec>& specs,
                                                         const VideoEncoderOptions& video,
                                                         const AudioEncoderOptions& audio,
                                                         const OutputSetOptions& options, Clock& clock);
  ~OutputSet();  // without Finish: network outputs stop at once, files are discarded
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // RGBA8 frame at the current size; frame_index increases, counted from the
  // last SwitchVideo (or the start); pts = the switch's time + index / fps.
  absl::Status WriteVideo(const VideoFrame& frame, int64_t frame_index);
  // Switches the picture live, at a frame boundary: frames from now on are
  // `video`'s size at its frame rate, their pts `at` + index / fps on the same
  // timeline (`at` not before the last frame written). A new H.264 encoder
  // starts with a keyframe carrying the new SPS/PPS; every output continues
  // (RTMP: a new AVC sequence header; SRT: the new parameters in band; HLS: a
  // new segment after an EXT-X-DISCONTINUITY). An MP4 file keeps the size and
  // frame rate it was opened with: from the first switch on it is fed from the
  // encoder it started with, each frame scaled to its size (the recording stays
  // one plain file any player reads). Audio is untouched. InvalidArgument for
  // bad options, or the encoder's error; FailedPrecondition for an encode with
  // B-frames (their decoding times would step back at the switch): live
  // encodes use tune zerolatency. Nothing is changed then.
  absl::Status SwitchVideo(const VideoEncoderOptions& video, MediaTime at);
  VideoEncoderOptions video_options() const;
  // Float PCM at the configured input rate and channel count, in order.
  absl::Status WriteAudio(const AudioBuffer& pcm);
  // A subtitle cue on the media timeline (0-based, before the start offset):
  // lines[0] is the spoken text, lines[1] (optional) its translation. Goes to
  // the MP4 .srt sidecars and the HLS WebVTT rendition. InvalidArgument for no
  // text, end <= start, or a cue starting before the previous one.
  absl::Status AddSubtitle(MediaTime start, MediaTime end, std::vector<std::string> lines);
  // Flushes the encoders, drains and closes every output. OK when every
  // output finished; otherwise the first failure, naming its output (the
  // others are still finished).
  absl::Status Finish();

  OutputSetStats stats() const;

 private:
  OutputSet(const VideoEncoderOptions& video, const AudioEncoderOptions& audio, const OutputSetOptions& options,
            std::unique_ptr<VideoEncoder> video_encoder, std::unique_ptr<AudioEncoder> audio_encoder);
  // Which sinks a packet goes to: all, those that follow a switch, or the MP4
  // recordings that keep their picture (follows_video_switch() false).
  enum class Route { kAll, kFollowing, kRecordings };
  // The MP4 files' own encoder after a switch: the one the set opened with.
  struct Recording;
  absl::Status Distribute(int stream_index, AVPacket& packet, AVRational time_base, MediaTime origin = {},
                          Route route = Route::kAll) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WriteRecording(const VideoFrame& frame, MediaTime pts) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Route VideoRoute() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AllFailedError() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Feeds the network outputs' queues to the bitrate controller before frame `frame_index`.
  absl::Status AdaptBitrate(int64_t frame_index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  VideoEncoderOptions video_options_ ABSL_GUARDED_BY(mu_);
  const AudioEncoderOptions audio_options_;
  const OutputSetOptions options_;
  // Held by the writing calls and by stats(), so a progress thread can read
  // figures while the output thread writes.
  mutable std::mutex mu_;
  std::unique_ptr<VideoEncoder> video_encoder_ ABSL_GUARDED_BY(mu_);
  MediaTime video_origin_ ABSL_GUARDED_BY(mu_);  // pts of frame index 0 of video_encoder_
  MediaTime last_video_pts_ ABSL_GUARDED_BY(mu_) = MediaTime::Micros(-1);
  // The first keyframe of a switched encoder carries its SPS/PPS as side data.
  bool announce_extradata_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<Recording> recording_ ABSL_GUARDED_BY(mu_);  // null until a switch with MP4 outputs
  std::unique_ptr<AudioEncoder> audio_encoder_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<OutputSink>> sinks_ ABSL_GUARDED_BY(mu_);
  PacketPtr scratch_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<BitrateController> bitrate_controller_ ABSL_GUARDED_BY(mu_);  // null: not adaptive
  // Set by a network output's sender thread after a reconnect; the next
  // WriteVideo forces a keyframe so the new connection starts decodable soon.
  std::atomic<bool> keyframe_requested_{false};
  OutputSetStats stats_ ABSL_GUARDED_BY(mu_);
  MediaTime last_cue_start_ ABSL_GUARDED_BY(mu_) = MediaTime::Micros(-1);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace lingcast
