#include "compose/test_media.h"

#include <cmath>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "audio/av_util.h"
#include "audio/test_audio.h"
#include "core/status.h"

namespace lingcast::compose::testing_media {
namespace {

struct OutputFormatDeleter {
  void operator()(AVFormatContext* ctx) const {
    if (ctx->pb != nullptr) avio_closep(&ctx->pb);
    avformat_free_context(ctx);
  }
};
using OutputFormatPtr = std::unique_ptr<AVFormatContext, OutputFormatDeleter>;

// Fills `frame` (YUV 4:2:0, 4:4:4 or BGR0 planes) with `color`, full-range BT.601.
void Fill(AVFrame& frame, Rgba color) {
  const double r = color.r, g = color.g, b = color.b;
  const auto y = static_cast<uint8_t>(std::lround(0.299 * r + 0.587 * g + 0.114 * b));
  const auto u = static_cast<uint8_t>(std::lround(128 - 0.168736 * r - 0.331264 * g + 0.5 * b));
  const auto v = static_cast<uint8_t>(std::lround(128 + 0.5 * r - 0.418688 * g - 0.081312 * b));
  if (frame.format == AV_PIX_FMT_BGR0) {
    for (int row = 0; row < frame.height; ++row) {
      uint8_t* p = frame.data[0] + static_cast<size_t>(row) * frame.linesize[0];
      for (int x = 0; x < frame.width; ++x) {
        p[x * 4 + 0] = color.b, p[x * 4 + 1] = color.g, p[x * 4 + 2] = color.r, p[x * 4 + 3] = 255;
      }
    }
    return;
  }
  const bool sub = frame.format == AV_PIX_FMT_YUVJ420P;
  const int cw = sub ? (frame.width + 1) / 2 : frame.width, ch = sub ? (frame.height + 1) / 2 : frame.height;
  for (int row = 0; row < frame.height; ++row) std::fill_n(frame.data[0] + row * frame.linesize[0], frame.width, y);
  for (int row = 0; row < ch; ++row) {
    std::fill_n(frame.data[1] + row * frame.linesize[1], cw, u);
    std::fill_n(frame.data[2] + row * frame.linesize[2], cw, v);
  }
}

absl::Status Encode(const std::string& path, const char* muxer, AVCodecID codec_id, AVPixelFormat pix_fmt,
                    int width, int height, int frames, int fps, const std::function<Rgba(int)>& color_of) {
  AVFormatContext* raw = nullptr;
  if (int ret = avformat_alloc_output_context2(&raw, nullptr, muxer, path.c_str()); ret < 0) {
    return AvError(ret, "test media: muxer");
  }
  OutputFormatPtr format(raw);
  const AVCodec* codec = avcodec_find_encoder(codec_id);
  if (codec == nullptr) return absl::UnavailableError(absl::StrCat("test media: no encoder ", avcodec_get_name(codec_id)));
  CodecContextPtr enc(avcodec_alloc_context3(codec));
  enc->width = width;
  enc->height = height;
  enc->pix_fmt = pix_fmt;
  enc->time_base = AVRational{1, fps};
  enc->framerate = AVRational{fps, 1};
  enc->color_range = AVCOL_RANGE_JPEG;
  enc->gop_size = 1;
  if (format->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (int ret = avcodec_open2(enc.get(), codec, nullptr); ret < 0) return AvError(ret, "test media: encoder");
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
  avcodec_parameters_from_context(stream->codecpar, enc.get());
  stream->time_base = enc->time_base;
  if (!(format->oformat->flags & AVFMT_NOFILE)) {
    if (int ret = avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE); ret < 0) return AvError(ret, "test media: open");
  }
  if (int ret = avformat_write_header(format.get(), nullptr); ret < 0) return AvError(ret, "test media: header");
  FramePtr frame(av_frame_alloc());
  frame->width = width;
  frame->height = height;
  frame->format = pix_fmt;
  frame->color_range = AVCOL_RANGE_JPEG;
  if (int ret = av_frame_get_buffer(frame.get(), 0); ret < 0) return AvError(ret, "test media: frame");
  PacketPtr packet(av_packet_alloc());
  auto drain = [&]() -> absl::Status {
    for (;;) {
      int ret = avcodec_receive_packet(enc.get(), packet.get());
      if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return absl::OkStatus();
      if (ret < 0) return AvError(ret, "test media: encode");
      av_packet_rescale_ts(packet.get(), enc->time_base, stream->time_base);
      packet->stream_index = stream->index;
      if (ret = av_interleaved_write_frame(format.get(), packet.get()); ret < 0) return AvError(ret, "test media: write");
    }
  };
  for (int i = 0; i < frames; ++i) {
    if (int ret = av_frame_make_writable(frame.get()); ret < 0) return AvError(ret, "test media: writable");
    Fill(*frame, color_of(i));
    frame->pts = i;
    if (int ret = avcodec_send_frame(enc.get(), frame.get()); ret < 0) return AvError(ret, "test media: send");
    LC_RETURN_IF_ERROR(drain());
  }
  avcodec_send_frame(enc.get(), nullptr);
  LC_RETURN_IF_ERROR(drain());
  if (int ret = av_write_trailer(format.get()); ret < 0) return AvError(ret, "test media: trailer");
  return absl::OkStatus();
}

}  // namespace

Rgba FrameColor(int i) {
  return Rgba{static_cast<uint8_t>((i * 53) % 256), static_cast<uint8_t>(255 - (i * 29) % 256),
              static_cast<uint8_t>((i * 97 + 40) % 256), 255};
}

absl::Status WriteSolidVideo(const std::string& path, int width, int height, int frames, int fps,
                             const std::function<Rgba(int)>& color_of) {
  // FFV1 over BGR0: lossless, so each frame decodes to exactly its colour.
  return Encode(path, "matroska", AV_CODEC_ID_FFV1, AV_PIX_FMT_BGR0, width, height, frames, fps, color_of);
}

absl::Status WriteSolidJpeg(const std::string& path, int width, int height, Rgba color) {
  return Encode(path, "image2", AV_CODEC_ID_MJPEG, AV_PIX_FMT_YUVJ420P, width, height, 1, 25,
                [color](int) { return color; });
}

absl::Status WriteToneWav(const std::string& path) {
  const int rate = 16000, samples = 1600;
  std::vector<int16_t> pcm(samples);
  for (int i = 0; i < samples; ++i) pcm[i] = static_cast<int16_t>(8000 * std::sin(i * 0.1));
  const std::string wav = lingcast::testing::RawWavBytes(
      1, rate, 1, 16, std::string_view(reinterpret_cast<const char*>(pcm.data()), pcm.size() * sizeof(int16_t)));
  std::ofstream out(path, std::ios::binary);
  out.write(wav.data(), static_cast<std::streamsize>(wav.size()));
  return out ? absl::OkStatus() : absl::InternalError("test media: cannot write " + path);
}

}  // namespace lingcast::compose::testing_media
