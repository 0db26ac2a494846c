// Mp4Writer: the file output of `lingcast render`: H.264 + AAC in an MP4
// (faststart), written atomically.
//
// It composes the pieces a live output reuses: VideoEncoder and AudioEncoder
// make packets, AvMuxer writes them, TempFile makes the result appear all at
// once. Audio is the master clock: audio pts come from the sample count,
// video pts from the frame index (frame i is shown at i / fps), and the caller
// renders frame i from the animation state at that time, so picture and speech
// stay together however long the render takes.
//
// Feed the two streams in step: before frame i, the audio up to its end
// (i + 1) / fps. Packets are interleaved by DTS in libavformat's buffer, which
// waits for both streams only up to 10 s apart; writing all the speech first and
// then all the frames still makes a valid file, but one whose audio and video
// lie apart on disk, which progressive playback handles badly.
//
// Until Finish() succeeds, nothing exists at the output path; destroying the
// writer earlier (an error, a cancelled job) deletes the temporary file.
// Not thread-safe: call from one thread (the output stage's).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"
#include "media/video_frame.h"
#include "core/atomic_file.h"
#include "output/audio_encoder.h"
#include "output/av_muxer.h"
#include "output/encoder_options.h"
#include "output/video_encoder.h"

namespace lingcast {

// Figures for progress, summaries and the benchmark's per-stage times.
// Times are wall time spent inside the writer's calls on the caller's thread
// (x264's own threads work in parallel with the caller).
struct OutputStats {
  int64_t video_frames = 0;
  int64_t video_packets = 0;
  int64_t audio_input_samples = 0;   // per channel, at the input rate
  int64_t audio_output_samples = 0;  // per channel, at the output rate, sent to AAC
  int64_t audio_packets = 0;
  int64_t bytes_written = 0;         // after Finish: the file's size
  double video_convert_seconds = 0;  // RGBA -> yuv420p (included in video_encode_seconds)
  double video_encode_seconds = 0;   // WriteVideo + video flush, muxing excluded
  double audio_encode_seconds = 0;   // WriteAudio + audio flush, muxing excluded
  double mux_seconds = 0;            // packet writes, trailer (faststart rewrite), fsync, rename

  int audio_output_rate = 0;
  int fps_num = 0, fps_den = 1;

  MediaTime audio_duration() const {
    return audio_output_rate ? MediaTime::FromSamples(audio_output_samples, audio_output_rate) : MediaTime::Zero();
  }
  MediaTime video_duration() const {
    return fps_num ? MediaTime::FromFrameIndex(video_frames, fps_num, fps_den) : MediaTime::Zero();
  }
  double encode_seconds() const { return video_encode_seconds + audio_encode_seconds + mux_seconds; }
};

class Mp4Writer {
 public:
  // Validates the options and the path (CheckOutputPath), opens the encoders
  // and a temporary file beside `path`.
  static absl::StatusOr<std::unique_ptr<Mp4Writer>> Open(const std::string& path,
                                                         const VideoEncoderOptions& video,
                                                         const AudioEncoderOptions& audio);
  ~Mp4Writer();  // without a successful Finish(): removes the temporary file
  Mp4Writer(const Mp4Writer&) = delete;
  Mp4Writer& operator=(const Mp4Writer&) = delete;

  // `frame`: RGBA8 premultiplied at the configured size (opaque). `frame_index`
  // must increase; its pts is frame_index / fps.
  absl::Status WriteVideo(const VideoFrame& frame, int64_t frame_index);
  // Mono (or input_channels) float PCM at the configured input rate, in order.
  absl::Status WriteAudio(const AudioBuffer& pcm);
  // Flushes the encoders, writes the trailer with the index moved to the front
  // (faststart), fsyncs and renames the temporary file onto the path.
  absl::Status Finish();

  const std::string& path() const { return path_; }
  const OutputStats& stats() const { return stats_; }

 private:
  Mp4Writer(std::string path, const AudioEncoderOptions& audio, std::unique_ptr<VideoEncoder> video_encoder,
            std::unique_ptr<AudioEncoder> audio_encoder, TempFile temp, std::unique_ptr<AvMuxer> muxer);
  absl::Status MuxVideo(AVPacket& packet);
  absl::Status MuxAudio(AVPacket& packet);
  // Records the first failure; every later call returns it.
  absl::Status Fail(absl::Status status);
  absl::Status CheckUsable() const;

  std::string path_;
  AudioEncoderOptions audio_options_;
  std::unique_ptr<VideoEncoder> video_encoder_;
  std::unique_ptr<AudioEncoder> audio_encoder_;
  TempFile temp_;
  std::unique_ptr<AvMuxer> muxer_;
  OutputStats stats_;
  absl::Status error_;
  bool finished_ = false;
};

}  // namespace lingcast
