#include "output/audio_encoder.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status.h"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
}

namespace lingcast {
namespace {

// The native AAC encoder takes planar float and 1024-sample frames.
constexpr AVSampleFormat kAacSampleFormat = AV_SAMPLE_FMT_FLTP;

}  // namespace

absl::StatusOr<std::unique_ptr<AudioEncoder>> AudioEncoder::Create(const AudioEncoderOptions& options,
                                                                   bool global_header) {
  LC_RETURN_IF_ERROR(ValidateAudioOptions(options));
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
  if (codec == nullptr) {
    return absl::FailedPreconditionError("this libavcodec has no AAC encoder; install Debian's libavcodec59");
  }
  CodecContextPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) return absl::ResourceExhaustedError("out of memory allocating the AAC encoder");
  ctx->sample_fmt = kAacSampleFormat;
  ctx->sample_rate = options.output_sample_rate;
  av_channel_layout_default(&ctx->ch_layout, options.output_channels);
  ctx->bit_rate = options.bitrate;
  ctx->time_base = AVRational{1, options.output_sample_rate};
  if (global_header) ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  // The "fast" quantizer search costs about half the CPU of the default
  // ("twoloop") and is indistinguishable on speech at these bitrates; audio
  // encoding was ~10% of a whole 720p render.
  if (options.fast_coder) {
    const int opt_err = av_opt_set(ctx->priv_data, "aac_coder", "fast", 0);
    if (opt_err < 0) return AvError(opt_err, "setting the AAC coder");
  }
  int err = avcodec_open2(ctx.get(), codec, nullptr);
  if (err < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot open the AAC encoder at %d Hz, %d channels, %d bit/s: %s", options.output_sample_rate,
        options.output_channels, options.bitrate, AvErrorText(err)));
  }

  AVChannelLayout in_layout;
  av_channel_layout_default(&in_layout, options.input_channels);
  SwrContext* raw_swr = nullptr;
  err = swr_alloc_set_opts2(&raw_swr, &ctx->ch_layout, kAacSampleFormat, options.output_sample_rate,
                            &in_layout, AV_SAMPLE_FMT_FLT, options.input_sample_rate, 0, nullptr);
  SwrContextPtr swr(raw_swr);
  av_channel_layout_uninit(&in_layout);
  if (err < 0) return AvError(err, "configuring the audio resampler");
  if (options.input_channels == 1 && options.output_channels == 2) {
    // Duplicate mono to both channels at full level. swresample's default
    // upmix would put it at -3 dB on each side, making speech quieter than
    // the TTS produced it.
    const double mono_to_stereo[2] = {1.0, 1.0};
    err = swr_set_matrix(swr.get(), mono_to_stereo, 1);
    if (err < 0) return AvError(err, "setting the mono-to-stereo matrix");
  }
  err = swr_init(swr.get());
  if (err < 0) return AvError(err, "initialising the audio resampler");

  AudioFifoPtr fifo(av_audio_fifo_alloc(kAacSampleFormat, options.output_channels, ctx->frame_size * 2));
  FramePtr frame(av_frame_alloc());
  PacketPtr packet(av_packet_alloc());
  if (!fifo || !frame || !packet) return absl::ResourceExhaustedError("out of memory allocating audio buffers");
  frame->format = kAacSampleFormat;
  frame->nb_samples = ctx->frame_size;
  frame->sample_rate = ctx->sample_rate;
  err = av_channel_layout_copy(&frame->ch_layout, &ctx->ch_layout);
  if (err < 0) return AvError(err, "copying the audio channel layout");
  err = av_frame_get_buffer(frame.get(), 0);
  if (err < 0) return AvError(err, "allocating an audio frame");

  return std::unique_ptr<AudioEncoder>(new AudioEncoder(options, std::move(ctx), std::move(swr),
                                                        std::move(fifo), std::move(frame),
                                                        std::move(packet)));
}

AudioEncoder::AudioEncoder(const AudioEncoderOptions& options, CodecContextPtr codec, SwrContextPtr swr,
                           AudioFifoPtr fifo, FramePtr frame, PacketPtr packet)
    : options_(options),
      codec_(std::move(codec)),
      swr_(std::move(swr)),
      fifo_(std::move(fifo)),
      frame_(std::move(frame)),
      packet_(std::move(packet)) {}

absl::Status AudioEncoder::Encode(const AudioBuffer& pcm, PacketSink sink) {
  if (flushed_) return absl::InternalError("AudioEncoder::Encode called after Flush");
  if (pcm.sample_rate != options_.input_sample_rate || pcm.channels != options_.input_channels) {
    return absl::InternalError(absl::StrFormat(
        "audio buffer is %d Hz, %d channel(s) but the encoder was opened for %d Hz, %d channel(s)",
        pcm.sample_rate, pcm.channels, options_.input_sample_rate, options_.input_channels));
  }
  if (pcm.empty()) return absl::OkStatus();
  // Feed the resampler in bounded slices so one long utterance never needs a
  // huge intermediate buffer.
  constexpr int64_t kSliceFrames = 16384;
  const int64_t total = pcm.frames();
  for (int64_t offset = 0; offset < total; offset += kSliceFrames) {
    const int frames = static_cast<int>(std::min(kSliceFrames, total - offset));
    LC_RETURN_IF_ERROR(Resample(pcm.samples.data() + offset * pcm.channels, frames));
    LC_RETURN_IF_ERROR(EncodeFifo(/*final_partial=*/false, sink));
  }
  input_samples_ += total;
  return absl::OkStatus();
}

absl::Status AudioEncoder::Resample(const float* interleaved, int frames) {
  const int capacity = swr_get_out_samples(swr_.get(), frames);
  if (capacity < 0) return AvError(capacity, "sizing the resampler output");
  if (capacity == 0) return absl::OkStatus();
  std::vector<float> planes(static_cast<size_t>(capacity) * options_.output_channels);
  uint8_t* out[2] = {reinterpret_cast<uint8_t*>(planes.data()),
                     reinterpret_cast<uint8_t*>(planes.data() + capacity)};
  const uint8_t* in[1] = {reinterpret_cast<const uint8_t*>(interleaved)};
  const int produced = swr_convert(swr_.get(), out, capacity, interleaved ? in : nullptr, frames);
  if (produced < 0) return AvError(produced, "resampling audio");
  if (produced == 0) return absl::OkStatus();
  const int written = av_audio_fifo_write(fifo_.get(), reinterpret_cast<void**>(out), produced);
  if (written < produced) return AvError(written < 0 ? written : AVERROR(ENOMEM), "buffering audio");
  return absl::OkStatus();
}

absl::Status AudioEncoder::EncodeFifo(bool final_partial, PacketSink sink) {
  const int frame_size = codec_->frame_size;
  while (av_audio_fifo_size(fifo_.get()) >= frame_size ||
         (final_partial && av_audio_fifo_size(fifo_.get()) > 0)) {
    int err = av_frame_make_writable(frame_.get());
    if (err < 0) return AvError(err, "preparing an audio frame");
    const int count = std::min(frame_size, av_audio_fifo_size(fifo_.get()));
    int read = av_audio_fifo_read(fifo_.get(), reinterpret_cast<void**>(frame_->data), count);
    if (read != count) return AvError(read < 0 ? read : AVERROR_BUG, "reading buffered audio");
    if (count < frame_size &&
        !(codec_->codec->capabilities & (AV_CODEC_CAP_SMALL_LAST_FRAME | AV_CODEC_CAP_VARIABLE_FRAME_SIZE))) {
      // This encoder wants whole frames: pad the tail with silence.
      av_samples_set_silence(frame_->data, count, frame_size - count, options_.output_channels,
                             kAacSampleFormat);
      read = frame_size;
    }
    frame_->nb_samples = read;
    frame_->pts = output_samples_;  // the master clock: samples so far
    err = avcodec_send_frame(codec_.get(), frame_.get());
    frame_->nb_samples = frame_size;
    if (err < 0) return AvError(err, "encoding AAC audio");
    output_samples_ += read;
    LC_RETURN_IF_ERROR(Drain(sink));
  }
  return absl::OkStatus();
}

absl::Status AudioEncoder::Flush(PacketSink sink) {
  if (flushed_) return absl::OkStatus();
  flushed_ = true;
  LC_RETURN_IF_ERROR(Resample(nullptr, 0));
  LC_RETURN_IF_ERROR(EncodeFifo(/*final_partial=*/true, sink));
  const int err = avcodec_send_frame(codec_.get(), nullptr);
  if (err < 0) return AvError(err, "flushing the AAC encoder");
  return Drain(sink);
}

absl::Status AudioEncoder::Drain(PacketSink sink) {
  while (true) {
    const int err = avcodec_receive_packet(codec_.get(), packet_.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return absl::OkStatus();
    if (err < 0) return AvError(err, "receiving an AAC packet");
    absl::Status status = sink(*packet_);
    av_packet_unref(packet_.get());
    LC_RETURN_IF_ERROR(status);
  }
}

}  // namespace lingcast
