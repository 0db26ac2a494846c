#include "compose/media_background.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "audio/av_util.h"
#include "compose/blend.h"
#include "core/status.h"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace lingcast::compose {
namespace {

struct SwsContextDeleter {
  void operator()(SwsContext* ctx) const { sws_freeContext(ctx); }
};
using SwsContextPtr = std::unique_ptr<SwsContext, SwsContextDeleter>;

std::string Quoted(const std::string& path) { return absl::StrCat("'", path, "'"); }

absl::Status Unreadable(const std::string& path, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("background ", Quoted(path), ": ", why));
}

// A video file opened for decoding its best video stream from the start.
struct VideoFile {
  std::string path;
  InputFormatContextPtr format;
  CodecContextPtr codec;
  AVStream* stream = nullptr;
  PacketPtr packet;
  FramePtr frame;
  bool draining = false;
};

absl::StatusOr<std::unique_ptr<VideoFile>> OpenVideoFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat("background file ", Quoted(path), " does not exist"));
  }
  if (std::filesystem::is_directory(path, ec)) {
    return Unreadable(path, "is a directory, not an image or video file");
  }
  auto file = std::make_unique<VideoFile>();
  file->path = path;
  AVFormatContext* raw = nullptr;
  if (int ret = avformat_open_input(&raw, path.c_str(), nullptr, nullptr); ret < 0) {
    if (ret == AVERROR(EACCES) || ret == AVERROR(EPERM)) return AvError(ret, absl::StrCat("background ", Quoted(path)));
    return Unreadable(path, absl::StrCat("not an image or video libav can read (", AvErrorText(ret), ")"));
  }
  file->format.reset(raw);
  if (int ret = avformat_find_stream_info(raw, nullptr); ret < 0) {
    return Unreadable(path, absl::StrCat("cannot read its streams (", AvErrorText(ret), ")"));
  }
  const AVCodec* decoder = nullptr;
  const int index = av_find_best_stream(raw, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  if (index == AVERROR_STREAM_NOT_FOUND) {
    return Unreadable(path, "has no video stream (an image or a video is needed)");
  }
  if (index < 0 || decoder == nullptr) {
    return Unreadable(path, "no decoder for its video codec (is it a supported image or video format?)");
  }
  file->stream = raw->streams[index];
  file->codec.reset(avcodec_alloc_context3(decoder));
  if (!file->codec) return absl::ResourceExhaustedError("out of memory opening a video decoder");
  if (int ret = avcodec_parameters_to_context(file->codec.get(), file->stream->codecpar); ret < 0) {
    return Unreadable(path, absl::StrCat("bad video parameters (", AvErrorText(ret), ")"));
  }
  // One decoding thread: the background decoder runs beside the compositor's
  // drawing threads and must not compete with them for every core.
  file->codec->thread_count = 1;
  if (int ret = avcodec_open2(file->codec.get(), decoder, nullptr); ret < 0) {
    return Unreadable(path, absl::StrCat("cannot open its ", decoder->name, " decoder (", AvErrorText(ret), ")"));
  }
  file->packet.reset(av_packet_alloc());
  file->frame.reset(av_frame_alloc());
  if (!file->packet || !file->frame) return absl::ResourceExhaustedError("out of memory opening a video decoder");
  return file;
}

// The next decoded picture into file.frame; false at the end of the file.
// A damaged packet in the middle is skipped (the decoder conceals it); only a
// file that gives no picture at all is an error (the caller's to report).
absl::StatusOr<bool> ReadFrame(VideoFile& file) {
  for (;;) {
    int ret = avcodec_receive_frame(file.codec.get(), file.frame.get());
    if (ret == 0) return true;
    if (ret == AVERROR_EOF) return false;
    if (ret != AVERROR(EAGAIN)) {
      return Unreadable(file.path, absl::StrCat("its video cannot be decoded (", AvErrorText(ret), ")"));
    }
    if (file.draining) return false;
    ret = av_read_frame(file.format.get(), file.packet.get());
    if (ret == AVERROR_EOF) {
      avcodec_send_packet(file.codec.get(), nullptr);
      file.draining = true;
      continue;
    }
    if (ret < 0) return Unreadable(file.path, absl::StrCat("read error (", AvErrorText(ret), ")"));
    if (file.packet->stream_index == file.stream->index) {
      avcodec_send_packet(file.codec.get(), file.packet.get());  // errors: a damaged packet, skipped
    }
    av_packet_unref(file.packet.get());
  }
}

// JPEG decoders output the deprecated full-range "yuvj" formats: swscale wants
// the plain format with the range set explicitly.
AVPixelFormat PlainFormat(AVPixelFormat format, bool* full_range) {
  switch (format) {
    case AV_PIX_FMT_YUVJ420P: *full_range = true; return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: *full_range = true; return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: *full_range = true; return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: *full_range = true; return AV_PIX_FMT_YUV440P;
    default: return format;
  }
}

// Scales decoded pictures into opaque output frames with a fit mode. The
// swscale context is kept while the source format stays the same.
class FrameScaler {
 public:
  // kExact: bicubic, bit-exact and accurately rounded (the same pixels on every
  // CPU; an image is scaled once, and its goldens depend on it). kFast:
  // bilinear with swscale's SIMD paths, for a video's every frame (still
  // deterministic on one machine: the same input gives the same output).
  enum class Quality { kExact, kFast };
  FrameScaler(int width, int height, BackgroundFit fit, Quality quality)
      : width_(width), height_(height), fit_(fit), quality_(quality) {}

  absl::Status Scale(const AVFrame& in, const std::string& path, VideoFrame& out) {
    if (in.width <= 0 || in.height <= 0) return Unreadable(path, "a picture has no size");
    // The scaled picture's size and where its top-left lands in the frame
    // (negative: cropped on that side).
    int scaled_w = width_, scaled_h = height_;
    if (fit_ != BackgroundFit::kStretch) {
      const double sx = static_cast<double>(width_) / in.width, sy = static_cast<double>(height_) / in.height;
      const double s = fit_ == BackgroundFit::kCover ? std::max(sx, sy) : std::min(sx, sy);
      scaled_w = std::max(1, static_cast<int>(std::lround(in.width * s)));
      scaled_h = std::max(1, static_cast<int>(std::lround(in.height * s)));
      if (fit_ == BackgroundFit::kCover) {
        scaled_w = std::max(scaled_w, width_);
        scaled_h = std::max(scaled_h, height_);
      } else {
        scaled_w = std::min(scaled_w, width_);
        scaled_h = std::min(scaled_h, height_);
      }
    }
    bool full_range = in.color_range == AVCOL_RANGE_JPEG;
    const AVPixelFormat format = PlainFormat(static_cast<AVPixelFormat>(in.format), &full_range);
    // Bit-exact, accurately rounded scaling: the same file gives the same pixels
    // on every CPU (the goldens depend on it).
    const int flags = quality_ == Quality::kExact
                          ? SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT
                          : SWS_BILINEAR;
    ctx_.reset(sws_getCachedContext(ctx_.release(), in.width, in.height, format, scaled_w, scaled_h,
                                    AV_PIX_FMT_RGBA, flags, nullptr, nullptr, nullptr));
    if (!ctx_) {
      return Unreadable(path, absl::StrCat("cannot convert its pixel format ",
                                           av_get_pix_fmt_name(format) ? av_get_pix_fmt_name(format) : "?"));
    }
    const int* coefficients = sws_getCoefficients(in.colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709 : SWS_CS_DEFAULT);
    sws_setColorspaceDetails(ctx_.get(), coefficients, full_range ? 1 : 0, coefficients, 1, 0, 1 << 16, 1 << 16);
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
    const bool opaque = desc != nullptr && !(desc->flags & AV_PIX_FMT_FLAG_ALPHA);
    if (opaque && scaled_w == width_ && scaled_h == height_) {
      // The usual case (a 16:9 video in a 16:9 frame): scaled straight into the frame.
      if (out.width != width_ || out.height != height_) out.Allocate(width_, height_);
      uint8_t* dst[4] = {out.Row(0), nullptr, nullptr, nullptr};
      const int dst_stride[4] = {out.stride, 0, 0, 0};
      sws_scale(ctx_.get(), in.data, in.linesize, 0, in.height, dst, dst_stride);
      return absl::OkStatus();
    }
    const int scaled_stride = (scaled_w * 4 + 63) & ~63;
    scaled_.resize(static_cast<size_t>(scaled_stride) * scaled_h + 64);
    uint8_t* dst[4] = {scaled_.data(), nullptr, nullptr, nullptr};
    const int dst_stride[4] = {scaled_stride, 0, 0, 0};
    sws_scale(ctx_.get(), in.data, in.linesize, 0, in.height, dst, dst_stride);

    if (out.width != width_ || out.height != height_) out.Allocate(width_, height_);
    const int offset_x = (width_ - scaled_w) / 2, offset_y = (height_ - scaled_h) / 2;
    if (opaque && offset_x <= 0 && offset_y <= 0) {
      // Opaque source filling the frame (cover, stretch): the visible rows as they are.
      const size_t row_bytes = static_cast<size_t>(width_) * 4;
      for (int y = 0; y < height_; ++y) {
        std::memcpy(out.Row(y), scaled_.data() + static_cast<size_t>(y - offset_y) * scaled_stride +
                                    static_cast<size_t>(-offset_x) * 4,
                    row_bytes);
      }
      return absl::OkStatus();
    }
    for (int y = 0; y < height_; ++y) {
      uint8_t* row = out.Row(y);
      const int sy = y - offset_y;
      for (int x = 0; x < width_; ++x) {
        const int sx = x - offset_x;
        uint8_t* d = row + static_cast<size_t>(x) * 4;
        if (sy < 0 || sy >= scaled_h || sx < 0 || sx >= scaled_w) {  // contain's bars: opaque black
          d[0] = d[1] = d[2] = 0;
          d[3] = 255;
          continue;
        }
        const uint8_t* s = scaled_.data() + static_cast<size_t>(sy) * scaled_stride + static_cast<size_t>(sx) * 4;
        const uint32_t a = s[3];
        // Over opaque black: premultiplying is the whole composition.
        d[0] = static_cast<uint8_t>(Div255(s[0] * a));
        d[1] = static_cast<uint8_t>(Div255(s[1] * a));
        d[2] = static_cast<uint8_t>(Div255(s[2] * a));
        d[3] = 255;
      }
    }
    return absl::OkStatus();
  }

 private:
  const int width_, height_;
  const BackgroundFit fit_;
  const Quality quality_;
  SwsContextPtr ctx_;
  std::vector<uint8_t> scaled_;
};

MediaTime ToMediaTime(int64_t ts, AVRational time_base) {
  return MediaTime::Micros(av_rescale_q(ts, time_base, AVRational{1, 1'000'000}));
}

}  // namespace

absl::StatusOr<BackgroundFit> ParseBackgroundFit(const std::string& text) {
  if (text == "cover") return BackgroundFit::kCover;
  if (text == "contain") return BackgroundFit::kContain;
  if (text == "stretch") return BackgroundFit::kStretch;
  return absl::InvalidArgumentError(
      absl::StrCat("--background-fit ", text, ": expected cover, contain or stretch"));
}

const char* BackgroundFitName(BackgroundFit fit) {
  switch (fit) {
    case BackgroundFit::kCover: return "cover";
    case BackgroundFit::kContain: return "contain";
    case BackgroundFit::kStretch: return "stretch";
  }
  return "?";
}

absl::StatusOr<MediaProbe> ProbeBackgroundFile(const std::string& path) {
  MediaProbe probe;
  {
    // Timestamps from the packets alone: cheap, and exact where a container's
    // declared duration is only an estimate.
    LC_ASSIGN_OR_RETURN(auto file, OpenVideoFile(path));
    const AVRational time_base = file->stream->time_base;
    std::vector<int64_t> pts;
    int64_t last_duration = 0;
    while (av_read_frame(file->format.get(), file->packet.get()) >= 0) {
      if (file->packet->stream_index == file->stream->index) {
        const int64_t ts = file->packet->pts != AV_NOPTS_VALUE ? file->packet->pts : file->packet->dts;
        pts.push_back(ts != AV_NOPTS_VALUE ? ts : static_cast<int64_t>(pts.size()));
        last_duration = file->packet->duration;
      }
      av_packet_unref(file->packet.get());
    }
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    if (pts.empty()) return Unreadable(path, "its video stream holds no pictures");
    probe.frame_count = static_cast<int>(pts.size());
    for (int64_t ts : pts) probe.frame_times.push_back(ToMediaTime(ts - pts.front(), time_base));
    if (probe.frame_count > 1) {
      MediaTime last = ToMediaTime(last_duration, time_base);
      if (last <= MediaTime::Zero()) {  // no packet duration: the average frame interval
        last = MediaTime::Micros(probe.frame_times.back().micros() / (probe.frame_count - 1));
      }
      probe.duration = probe.frame_times.back() + std::max(last, MediaTime::Micros(1));
    }
    probe.source_width = file->codec->width;
    probe.source_height = file->codec->height;
  }
  // A file whose packets scan but whose first picture does not decode is as
  // useless as no file: say so now, not on the first frame of a render.
  LC_ASSIGN_OR_RETURN(auto file, OpenVideoFile(path));
  LC_ASSIGN_OR_RETURN(bool got, ReadFrame(*file));
  if (!got) return Unreadable(path, "its video cannot be decoded (no picture came out of the decoder)");
  return probe;
}

absl::StatusOr<VideoFrame> LoadImageBackground(const std::string& path, int width, int height,
                                               BackgroundFit fit) {
  LC_ASSIGN_OR_RETURN(auto file, OpenVideoFile(path));
  LC_ASSIGN_OR_RETURN(bool got, ReadFrame(*file));
  if (!got) return Unreadable(path, "the picture cannot be decoded (no picture came out of the decoder)");
  FrameScaler scaler(width, height, fit, FrameScaler::Quality::kExact);
  VideoFrame frame;
  LC_RETURN_IF_ERROR(scaler.Scale(*file->frame, path, frame));
  return frame;
}

// --- VideoBackground ---------------------------------------------------------

absl::StatusOr<std::unique_ptr<VideoBackground>> VideoBackground::Open(const std::string& path, int width,
                                                                       int height, BackgroundFit fit,
                                                                       int queue_frames) {
  if (width <= 0 || height <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("video background size ", width, "x", height, " must be positive"));
  }
  LC_ASSIGN_OR_RETURN(MediaProbe probe, ProbeBackgroundFile(path));
  if (probe.frame_count < 2) {
    return Unreadable(path, "holds a single picture: use it as an image background");
  }
  return std::unique_ptr<VideoBackground>(
      new VideoBackground(path, width, height, fit, std::max(1, queue_frames), std::move(probe)));
}

VideoBackground::VideoBackground(std::string path, int width, int height, BackgroundFit fit, int queue_frames,
                                 MediaProbe probe)
    : path_(std::move(path)), width_(width), height_(height), fit_(fit),
      queue_frames_(static_cast<size_t>(queue_frames)), probe_(std::move(probe)),
      decoder_([this] { DecodeLoop(); }) {}

VideoBackground::~VideoBackground() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  decoder_.join();
}

int VideoBackground::FrameIndexAt(MediaTime t) const {
  const int64_t loop_us = probe_.duration.micros();
  const int64_t in_loop = std::max<int64_t>(0, t.micros()) % loop_us;
  const auto next = std::upper_bound(probe_.frame_times.begin(), probe_.frame_times.end(), MediaTime::Micros(in_loop));
  return std::max(0, static_cast<int>(next - probe_.frame_times.begin()) - 1);
}

int64_t VideoBackground::SequenceAt(MediaTime t) const {
  const int64_t loop = std::max<int64_t>(0, t.micros()) / probe_.duration.micros();
  return loop * probe_.frame_count + FrameIndexAt(t);
}

int64_t VideoBackground::frames_decoded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return frames_decoded_;
}

int VideoBackground::restarts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return restarts_;
}

absl::StatusOr<const VideoFrame*> VideoBackground::FrameAt(MediaTime t) {
  const int64_t target = SequenceAt(t);
  if (target == current_sequence_) return &current_;
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t newest = std::max(current_sequence_, queue_.empty() ? int64_t{-1} : queue_.back().sequence);
  // Backwards, or more than a loop ahead of anything decoded: start the decoder
  // again at the wanted loop rather than decode every frame in between.
  if (target < current_sequence_ || target >= std::max<int64_t>(newest, 0) + probe_.frame_count) {
    start_loop_ = target / probe_.frame_count;
    ++restart_generation_;
    ++restarts_;
    queue_.clear();
    current_sequence_ = -1;
    changed_.notify_all();
  }
  for (;;) {
    bool took = false;
    while (!queue_.empty() && queue_.front().sequence <= target) {
      std::swap(current_, queue_.front().frame);
      current_sequence_ = queue_.front().sequence;
      if (queue_.front().frame.width == width_ && spare_.size() < queue_frames_) {
        spare_.push_back(std::move(queue_.front().frame));  // the previous frame's buffer, to refill
      }
      queue_.pop_front();
      took = true;
    }
    if (took) changed_.notify_all();  // room in the queue
    if (current_sequence_ == target) break;
    if (!queue_.empty()) {
      // The decoder gave no picture for the wanted frame (a damaged packet):
      // the newest earlier one stays, or, after a restart, the next one.
      if (current_sequence_ < 0) {
        std::swap(current_, queue_.front().frame);
        current_sequence_ = queue_.front().sequence;
        queue_.pop_front();
        changed_.notify_all();
      }
      break;
    }
    if (!error_.ok()) return error_;
    changed_.wait(lock);
  }
  return &current_;
}

void VideoBackground::DecodeLoop() {
  int64_t loop = 0, generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    loop = start_loop_;
    generation = restart_generation_;
  }
  for (;;) {
    absl::Status status = DecodePass(loop);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    if (!status.ok()) {
      error_ = std::move(status);
      changed_.notify_all();
      return;
    }
    if (restart_generation_ != generation) {
      loop = start_loop_;
      generation = restart_generation_;
    } else {
      ++loop;
    }
  }
}

absl::Status VideoBackground::DecodePass(int64_t loop) {
  int64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::OkStatus();
    generation = restart_generation_;
  }
  // Reopened for every loop: the most robust way back to frame 0 for any format
  // (a seek lands on a keyframe near the start, not always on the first frame).
  LC_ASSIGN_OR_RETURN(auto file, OpenVideoFile(path_));
  FrameScaler scaler(width_, height_, fit_, FrameScaler::Quality::kFast);
  const AVRational time_base = file->stream->time_base;
  int64_t first_pts = AV_NOPTS_VALUE;
  int next_index = 0;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool got, ReadFrame(*file));
    if (!got) return absl::OkStatus();
    // Which frame of the loop this is: by its timestamp where it has one (the
    // scan's timestamps are the truth), else by its order.
    int index = next_index;
    const int64_t ts = file->frame->best_effort_timestamp;
    if (ts != AV_NOPTS_VALUE) {
      if (first_pts == AV_NOPTS_VALUE) first_pts = ts;
      const MediaTime at = ToMediaTime(ts - first_pts, time_base) + MediaTime::Micros(500);
      const auto next = std::upper_bound(probe_.frame_times.begin(), probe_.frame_times.end(), at);
      index = std::max(next_index, static_cast<int>(next - probe_.frame_times.begin()) - 1);
    }
    if (index >= probe_.frame_count) return absl::OkStatus();
    next_index = index + 1;

    VideoFrame frame;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] {
        return stopping_ || restart_generation_ != generation || queue_.size() < queue_frames_;
      });
      if (stopping_ || restart_generation_ != generation) return absl::OkStatus();
      if (!spare_.empty()) {
        frame = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    LC_RETURN_IF_ERROR(scaler.Scale(*file->frame, path_, frame));
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || restart_generation_ != generation) return absl::OkStatus();
    queue_.push_back({loop * probe_.frame_count + index, std::move(frame)});
    ++frames_decoded_;
    changed_.notify_all();
  }
}

}  // namespace lingcast::compose
