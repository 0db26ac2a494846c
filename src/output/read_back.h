// ReadBack: what a player or a server's viewer sees of an output, read with
// libavformat: per stream the codec and every packet's timestamps and key
// flag. For tests (files, HLS playlists, RTMP pulls from the test server).
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "audio/av_util.h"

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
}

namespace lingcast::testing_util {

struct ReadPacket {
  int64_t dts_ms = 0;
  int64_t pts_ms = 0;
  bool key = false;
  int64_t pts = 0;       // in the stream's time base
  int64_t duration = 0;  // in the stream's time base (0: the container does not say)
};

// A video frame as a player decodes it (ReadBackAll with `decode`).
struct DecodedPicture {
  int64_t pts_ms = 0;
  int width = 0;
  int height = 0;
  bool key = false;  // a keyframe (IDR)
  double mean_luma = 0;  // the Y plane's mean (8-bit formats), to tell what was drawn
};

struct ReadStream {
  std::string codec;  // "h264", "aac", "webvtt"
  AVMediaType type = AVMEDIA_TYPE_UNKNOWN;
  std::vector<ReadPacket> packets;
  std::vector<std::string> texts;  // subtitle packets' payloads
  AVRational time_base{1, 1000};
  std::vector<DecodedPicture> pictures;  // video, with `decode`, in presentation order
  int decode_errors = 0;
  int corrupt_packets = 0;  // flagged by the demuxer (e.g. MPEG-TS packets lost)
};

struct ReadBackResult {
  std::string format;
  std::vector<ReadStream> streams;
  const ReadStream* Find(AVMediaType type) const {
    for (const ReadStream& s : streams) {
      if (s.type == type) return &s;
    }
    return nullptr;
  }
};

// Reads `url` to its end (or until `max_packets`). `options`: demuxer/protocol
// options (e.g. {"rw_timeout", "20000000"} for a live pull).
inline absl::StatusOr<ReadBackResult> ReadBackAll(const std::string& url,
                                                  const std::map<std::string, std::string>& options = {},
                                                  int64_t max_packets = INT64_MAX,
                                                  const AVIOInterruptCB* interrupt = nullptr,
                                                  std::atomic<int64_t>* packets_read = nullptr,
                                                  bool decode = false) {
  AVFormatContext* raw = avformat_alloc_context();
  if (interrupt != nullptr) raw->interrupt_callback = *interrupt;
  AVDictionary* dict = nullptr;
  for (const auto& [k, v] : options) av_dict_set(&dict, k.c_str(), v.c_str(), 0);
  int err = avformat_open_input(&raw, url.c_str(), nullptr, &dict);
  av_dict_free(&dict);
  if (err < 0) return AvError(err, absl::StrCat("opening ", url));
  InputFormatContextPtr ctx(raw);
  err = avformat_find_stream_info(ctx.get(), nullptr);
  if (err < 0) return AvError(err, absl::StrCat("probing ", url));
  ReadBackResult result;
  result.format = ctx->iformat->name;
  std::vector<CodecContextPtr> decoders(ctx->nb_streams);
  for (unsigned i = 0; i < ctx->nb_streams; ++i) {
    ReadStream stream;
    stream.codec = avcodec_get_name(ctx->streams[i]->codecpar->codec_id);
    stream.type = ctx->streams[i]->codecpar->codec_type;
    stream.time_base = ctx->streams[i]->time_base;
    result.streams.push_back(stream);
    if (decode && stream.type == AVMEDIA_TYPE_VIDEO) {
      const AVCodec* codec = avcodec_find_decoder(ctx->streams[i]->codecpar->codec_id);
      if (codec == nullptr) return absl::NotFoundError(absl::StrCat("no decoder for ", stream.codec));
      decoders[i].reset(avcodec_alloc_context3(codec));
      if (!decoders[i] || avcodec_parameters_to_context(decoders[i].get(), ctx->streams[i]->codecpar) < 0 ||
          avcodec_open2(decoders[i].get(), codec, nullptr) < 0) {
        return absl::InternalError(absl::StrCat("cannot open the ", stream.codec, " decoder"));
      }
      decoders[i]->pkt_timebase = ctx->streams[i]->time_base;
    }
  }
  FramePtr picture(av_frame_alloc());
  // Sends `packet` (null: the end) to stream i's decoder and collects what comes out.
  auto decode_packet = [&](unsigned i, const AVPacket* packet) {
    ReadStream& stream = result.streams[i];
    if (avcodec_send_packet(decoders[i].get(), packet) < 0) ++stream.decode_errors;
    while (true) {
      const int err = avcodec_receive_frame(decoders[i].get(), picture.get());
      if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
      if (err < 0) {
        ++stream.decode_errors;
        break;
      }
      if (picture->decode_error_flags != 0) ++stream.decode_errors;
      const int64_t pts = picture->best_effort_timestamp;
      double luma = 0;
      for (int y = 0; y < picture->height; ++y) {
        const uint8_t* row = picture->data[0] + static_cast<ptrdiff_t>(y) * picture->linesize[0];
        for (int x = 0; x < picture->width; ++x) luma += row[x];
      }
      if (picture->width > 0 && picture->height > 0) luma /= static_cast<double>(picture->width) * picture->height;
      stream.pictures.push_back({pts == AV_NOPTS_VALUE ? INT64_MIN : av_rescale_q(pts, stream.time_base, {1, 1000}),
                                 picture->width, picture->height, picture->key_frame != 0, luma});
      av_frame_unref(picture.get());
    }
  };
  PacketPtr packet(av_packet_alloc());
  int64_t count = 0;
  while (count < max_packets && av_read_frame(ctx.get(), packet.get()) >= 0) {
    const AVRational tb = ctx->streams[packet->stream_index]->time_base;
    ReadStream& stream = result.streams[packet->stream_index];
    ReadPacket p;
    p.dts_ms = packet->dts == AV_NOPTS_VALUE ? INT64_MIN : av_rescale_q(packet->dts, tb, AVRational{1, 1000});
    p.pts_ms = packet->pts == AV_NOPTS_VALUE ? INT64_MIN : av_rescale_q(packet->pts, tb, AVRational{1, 1000});
    p.key = (packet->flags & AV_PKT_FLAG_KEY) != 0;
    p.pts = packet->pts;
    p.duration = packet->duration;
    if (packet->flags & AV_PKT_FLAG_CORRUPT) ++stream.corrupt_packets;
    stream.packets.push_back(p);
    if (decoders[packet->stream_index]) decode_packet(static_cast<unsigned>(packet->stream_index), packet.get());
    if (stream.type == AVMEDIA_TYPE_SUBTITLE) {
      stream.texts.emplace_back(reinterpret_cast<const char*>(packet->data), static_cast<size_t>(packet->size));
    }
    av_packet_unref(packet.get());
    ++count;
    if (packets_read != nullptr) ++*packets_read;
  }
  for (unsigned i = 0; i < decoders.size(); ++i) {
    if (decoders[i]) decode_packet(i, nullptr);
  }
  return result;
}

// Reads a live URL (an RTMP play, an SRT listener) on its own thread until the
// stream ends or Stop() is called.
class LiveReader {
 public:
  explicit LiveReader(std::string url, std::map<std::string, std::string> options = {}, bool decode = false)
      : url_(std::move(url)), options_(std::move(options)) {
    thread_ = std::thread([this, decode] {
      AVIOInterruptCB interrupt{[](void* opaque) { return static_cast<LiveReader*>(opaque)->stop_.load() ? 1 : 0; },
                                this};
      result_ = ReadBackAll(url_, options_, INT64_MAX, &interrupt, &packets_read_, decode);
      done_ = true;
    });
  }
  ~LiveReader() { Stop(); }
  LiveReader(const LiveReader&) = delete;
  LiveReader& operator=(const LiveReader&) = delete;

  bool done() const { return done_; }
  int64_t packets_read() const { return packets_read_; }
  // Interrupts the read (if still running) and returns what was read.
  const absl::StatusOr<ReadBackResult>& Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return result_;
  }

 private:
  const std::string url_;
  const std::map<std::string, std::string> options_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::atomic<int64_t> packets_read_{0};
  absl::StatusOr<ReadBackResult> result_ = absl::UnknownError("not read");
  std::thread thread_;
};

}  // namespace lingcast::testing_util
