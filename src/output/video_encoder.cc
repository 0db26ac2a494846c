#include "output/video_encoder.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"
#include "output/rgba_to_yuv.h"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
}

namespace lingcast {
namespace {

absl::Status SetPrivateOption(AVCodecContext& ctx, const char* name, const std::string& value) {
  const int err = av_opt_set(ctx.priv_data, name, value.c_str(), 0);
  if (err < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("x264 option ", name, "=\"", value, "\" was rejected: ", AvErrorText(err)));
  }
  return absl::OkStatus();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

absl::StatusOr<std::unique_ptr<VideoEncoder>> VideoEncoder::Create(const VideoEncoderOptions& options,
                                                                   bool global_header) {
  LC_RETURN_IF_ERROR(ValidateVideoOptions(options));
  const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
  if (codec == nullptr) {
    return absl::FailedPreconditionError(
        "the libx264 encoder is missing from this libavcodec; install Debian's libavcodec59 "
        "(scripts/install-deps.sh)");
  }
  // Allocating with the codec applies libx264's own defaults (B-frames, refs
  // from the preset), exactly as the ffmpeg CLI does.
  CodecContextPtr ctx(avcodec_alloc_context3(codec));
  if (!ctx) return absl::ResourceExhaustedError("out of memory allocating the H.264 encoder");
  ctx->width = options.width;
  ctx->height = options.height;
  ctx->pix_fmt = AV_PIX_FMT_YUV420P;
  ctx->sample_aspect_ratio = AVRational{1, 1};
  ctx->time_base = AVRational{options.fps_den, options.fps_num};
  ctx->framerate = AVRational{options.fps_num, options.fps_den};
  ctx->gop_size = KeyframeIntervalFrames(options);
  ctx->thread_count = options.threads;
  ctx->color_range = AVCOL_RANGE_MPEG;
  ctx->color_primaries = AVCOL_PRI_BT709;
  ctx->color_trc = AVCOL_TRC_BT709;
  ctx->colorspace = AVCOL_SPC_BT709;
  ctx->chroma_sample_location = AVCHROMA_LOC_CENTER;
  if (global_header) ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

  LC_RETURN_IF_ERROR(SetPrivateOption(*ctx, "preset", options.preset));
  if (!options.tune.empty()) LC_RETURN_IF_ERROR(SetPrivateOption(*ctx, "tune", options.tune));
  if (options.bitrate > 0) {
    ctx->bit_rate = options.bitrate;
    ctx->rc_max_rate = options.bitrate;
    ctx->rc_buffer_size = static_cast<int>(std::min<int64_t>(options.bitrate * 2, INT32_MAX));
  } else {
    LC_RETURN_IF_ERROR(SetPrivateOption(*ctx, "crf", std::to_string(options.crf)));
  }

  int err = avcodec_open2(ctx.get(), codec, nullptr);
  if (err < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot open the H.264 encoder at %dx%d, preset \"%s\"%s: %s", options.width, options.height,
        options.preset, options.tune.empty() ? "" : absl::StrCat(", tune \"", options.tune, "\""),
        AvErrorText(err)));
  }

  FramePtr yuv(av_frame_alloc());
  PacketPtr packet(av_packet_alloc());
  if (!yuv || !packet) return absl::ResourceExhaustedError("out of memory allocating video frames");
  yuv->format = AV_PIX_FMT_YUV420P;
  yuv->width = options.width;
  yuv->height = options.height;
  yuv->color_range = ctx->color_range;
  yuv->color_primaries = ctx->color_primaries;
  yuv->color_trc = ctx->color_trc;
  yuv->colorspace = ctx->colorspace;
  yuv->chroma_location = ctx->chroma_sample_location;
  err = av_frame_get_buffer(yuv.get(), 0);
  if (err < 0) return AvError(err, "allocating a yuv420p frame");

  return std::unique_ptr<VideoEncoder>(
      new VideoEncoder(options, std::move(ctx), std::move(yuv), std::move(packet)));
}

VideoEncoder::VideoEncoder(const VideoEncoderOptions& options, CodecContextPtr codec,
                           FramePtr yuv, PacketPtr packet)
    : options_(options),
      codec_(std::move(codec)),
      yuv_(std::move(yuv)),
      packet_(std::move(packet)),
      converter_(ConversionThreadsFor(options.width, options.height,
                                      static_cast<int>(std::thread::hardware_concurrency()))) {}

absl::Status VideoEncoder::Encode(const VideoFrame& frame, int64_t frame_index, PacketSink sink) {
  if (flushed_) return absl::InternalError("VideoEncoder::Encode called after Flush");
  if (frame.width != options_.width || frame.height != options_.height) {
    return absl::InternalError(absl::StrFormat("video frame is %dx%d but the encoder was opened at %dx%d",
                                               frame.width, frame.height, options_.width,
                                               options_.height));
  }
  const Yuv420Picture* planes = frame.yuv420.get();
  if (planes != nullptr && (planes->width != frame.width || planes->height != frame.height)) {
    return absl::InternalError(absl::StrFormat("video frame %dx%d carries a %dx%d yuv420p picture", frame.width,
                                               frame.height, planes->width, planes->height));
  }
  if (planes == nullptr &&
      (frame.stride < frame.width * 4 ||
       frame.rgba.size() < static_cast<size_t>(frame.stride) * static_cast<size_t>(frame.height))) {
    return absl::InternalError(absl::StrFormat(
        "video frame %dx%d has stride %d and %d bytes: too small for RGBA", frame.width, frame.height,
        frame.stride, frame.rgba.size()));
  }
  if (frame_index <= last_frame_index_) {
    return absl::InternalError(absl::StrFormat(
        "video frame index %d after %d: indices must increase", frame_index, last_frame_index_));
  }

  const auto convert_start = std::chrono::steady_clock::now();
  // x264 copies the picture into its own buffers, so this frame is normally
  // writable again at once; make_writable only copies if libavcodec kept a reference.
  int err = av_frame_make_writable(yuv_.get());
  if (err < 0) return AvError(err, "preparing a yuv420p frame");
  if (planes != nullptr) {  // converted already (the CUDA renderer): copy the planes
    av_image_copy_plane(yuv_->data[0], yuv_->linesize[0], planes->y, planes->y_stride, frame.width, frame.height);
    av_image_copy_plane(yuv_->data[1], yuv_->linesize[1], planes->u, planes->u_stride, frame.width / 2,
                        frame.height / 2);
    av_image_copy_plane(yuv_->data[2], yuv_->linesize[2], planes->v, planes->v_stride, frame.width / 2,
                        frame.height / 2);
  } else {
    converter_.Convert(frame.rgba.data(), frame.stride, frame.width, frame.height,
                       {yuv_->data[0], yuv_->linesize[0], yuv_->data[1], yuv_->linesize[1], yuv_->data[2],
                        yuv_->linesize[2]});
  }
  convert_seconds_ += SecondsSince(convert_start);

  yuv_->pts = frame_index;
  yuv_->pict_type = keyframe_requested_ ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
  keyframe_requested_ = false;
  err = avcodec_send_frame(codec_.get(), yuv_.get());
  if (err < 0) return AvError(err, absl::StrFormat("encoding video frame %d", frame_index));
  last_frame_index_ = frame_index;
  ++frames_encoded_;
  return Drain(sink);
}

absl::Status VideoEncoder::SetBitrate(int64_t bits_per_second) {
  if (options_.bitrate <= 0) {
    return absl::FailedPreconditionError("the H.264 encoder runs at constant quality (CRF): it has no bitrate to set");
  }
  if (bits_per_second < 1000) {
    return absl::InvalidArgumentError(absl::StrCat("video bitrate ", bits_per_second, " bit/s is below 1 kbit/s"));
  }
  codec_->bit_rate = bits_per_second;
  codec_->rc_max_rate = bits_per_second;
  codec_->rc_buffer_size = static_cast<int>(std::min<int64_t>(bits_per_second * 2, INT32_MAX));
  return absl::OkStatus();
}

absl::Status VideoEncoder::Flush(PacketSink sink) {
  if (flushed_) return absl::OkStatus();
  flushed_ = true;
  const int err = avcodec_send_frame(codec_.get(), nullptr);
  if (err < 0) return AvError(err, "flushing the H.264 encoder");
  return Drain(sink);
}

absl::Status VideoEncoder::Drain(PacketSink sink) {
  while (true) {
    const int err = avcodec_receive_packet(codec_.get(), packet_.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return absl::OkStatus();
    if (err < 0) return AvError(err, "receiving an H.264 packet");
    // Every frame lasts one tick of 1/fps; muxers need it for the last frame.
    if (packet_->duration == 0) packet_->duration = 1;
    absl::Status status = sink(*packet_);
    av_packet_unref(packet_.get());
    LC_RETURN_IF_ERROR(status);
  }
}

}  // namespace lingcast
