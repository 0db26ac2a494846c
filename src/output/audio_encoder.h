// AudioEncoder: float PCM at any rate -> AAC-LC packets (libavcodec's native AAC).
//
// Audio is the master clock: packet timestamps come only from the count of
// samples fed to the encoder, in time_base() = 1/output_sample_rate, so the
// first sample is at 0 and there is never a gap or an overlap. The resampler
// (libswresample) and a FIFO cut arbitrary input buffers into AAC's 1024-sample
// frames.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/audio_buffer.h"
#include "audio/av_util.h"
#include "output/encoder_options.h"
#include "output/packet_sink.h"

namespace lingcast {

class AudioEncoder {
 public:
  // `global_header`: AudioSpecificConfig in extradata (MP4 and FLV need it).
  static absl::StatusOr<std::unique_ptr<AudioEncoder>> Create(const AudioEncoderOptions& options,
                                                              bool global_header = true);

  // `pcm` must have the options' input rate and channel count.
  absl::Status Encode(const AudioBuffer& pcm, PacketSink sink);
  // Drains the resampler and the FIFO (the last frame may be short), then the
  // encoder. Call once, last.
  absl::Status Flush(PacketSink sink);

  const AVCodecContext& codec_context() const { return *codec_; }
  AVRational time_base() const { return codec_->time_base; }
  int64_t input_samples() const { return input_samples_; }    // per channel, input rate
  int64_t output_samples() const { return output_samples_; }  // per channel, sent to AAC

 private:
  AudioEncoder(const AudioEncoderOptions& options, CodecContextPtr codec, SwrContextPtr swr,
               AudioFifoPtr fifo, FramePtr frame, PacketPtr packet);
  // Resamples `frames` input frames (nullptr: flush the resampler) into the FIFO.
  absl::Status Resample(const float* interleaved, int frames);
  // Encodes every whole frame in the FIFO; with `final_partial`, the rest too.
  absl::Status EncodeFifo(bool final_partial, PacketSink sink);
  absl::Status Drain(PacketSink sink);

  const AudioEncoderOptions options_;
  CodecContextPtr codec_;
  SwrContextPtr swr_;
  AudioFifoPtr fifo_;
  FramePtr frame_;
  PacketPtr packet_;
  int64_t input_samples_ = 0;
  int64_t output_samples_ = 0;
  bool flushed_ = false;
};

}  // namespace lingcast
