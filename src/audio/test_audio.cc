#include "audio/test_audio.h"

#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "absl/strings/str_cat.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
}

namespace lingcast::testing {
namespace {

void PutLe(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

int64_t ToInt(float sample, int bits) {
  const double max = std::ldexp(1.0, bits - 1);
  const double scaled = std::round(static_cast<double>(sample) * max);
  return static_cast<int64_t>(std::clamp(scaled, -max, max - 1));
}

absl::Status AvFail(int ret, const std::string& what) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(ret, text, sizeof(text));
  return absl::InternalError(absl::StrCat(what, ": ", text));
}

struct OutputDeleter {
  void operator()(AVFormatContext* ctx) const {
    if (ctx->pb) avio_closep(&ctx->pb);
    avformat_free_context(ctx);
  }
};
struct CodecDeleter {
  void operator()(AVCodecContext* ctx) const { avcodec_free_context(&ctx); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};

// One encoder and its stream in the output file.
struct Track {
  std::unique_ptr<AVCodecContext, CodecDeleter> codec;
  AVStream* stream = nullptr;
};

absl::Status Drain(AVFormatContext* out, Track& track, AVFrame* frame) {
  int ret = avcodec_send_frame(track.codec.get(), frame);
  if (ret < 0) return AvFail(ret, "avcodec_send_frame");
  std::unique_ptr<AVPacket, PacketDeleter> packet(av_packet_alloc());
  while ((ret = avcodec_receive_packet(track.codec.get(), packet.get())) >= 0) {
    av_packet_rescale_ts(packet.get(), track.codec->time_base, track.stream->time_base);
    packet->stream_index = track.stream->index;
    ret = av_interleaved_write_frame(out, packet.get());
    if (ret < 0) return AvFail(ret, "av_interleaved_write_frame");
  }
  if (ret != AVERROR(EAGAIN) && ret != AVERROR_EOF) return AvFail(ret, "avcodec_receive_packet");
  return absl::OkStatus();
}

void FillSamples(AVFrame* frame, AVSampleFormat format, int channels, const float* src, int n) {
  const bool planar = av_sample_fmt_is_planar(format);
  const AVSampleFormat packed = av_get_packed_sample_fmt(format);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < channels; ++c) {
      const float v = src[static_cast<size_t>(i) * channels + c];
      uint8_t* base = planar ? frame->extended_data[c] : frame->extended_data[0];
      const size_t index = planar ? static_cast<size_t>(i) : static_cast<size_t>(i) * channels + c;
      switch (packed) {
        case AV_SAMPLE_FMT_S16: reinterpret_cast<int16_t*>(base)[index] = static_cast<int16_t>(ToInt(v, 16)); break;
        case AV_SAMPLE_FMT_S32: reinterpret_cast<int32_t*>(base)[index] = static_cast<int32_t>(ToInt(v, 32)); break;
        case AV_SAMPLE_FMT_FLT: reinterpret_cast<float*>(base)[index] = v; break;
        case AV_SAMPLE_FMT_DBL: reinterpret_cast<double*>(base)[index] = v; break;
        default: break;
      }
    }
  }
}

}  // namespace

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "lingcast-audio-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<float> Sine(double frequency, double amplitude, int sample_rate, int64_t frames) {
  std::vector<float> out(static_cast<size_t>(frames));
  for (int64_t i = 0; i < frames; ++i) {
    out[static_cast<size_t>(i)] = static_cast<float>(
        amplitude * std::sin(2.0 * std::numbers::pi * frequency * static_cast<double>(i) / sample_rate));
  }
  return out;
}

std::vector<float> Interleave(const std::vector<std::vector<float>>& channels) {
  std::vector<float> out;
  if (channels.empty()) return out;
  const size_t n = channels[0].size();
  out.reserve(n * channels.size());
  for (size_t i = 0; i < n; ++i) {
    for (const auto& channel : channels) out.push_back(channel[i]);
  }
  return out;
}

std::string WavBytes(WavEncoding encoding, int sample_rate, int channels,
                     std::span<const float> interleaved) {
  int bits = 16;
  switch (encoding) {
    case WavEncoding::kU8: bits = 8; break;
    case WavEncoding::kS16: bits = 16; break;
    case WavEncoding::kS24: bits = 24; break;
    case WavEncoding::kS32: bits = 32; break;
    case WavEncoding::kF32: bits = 32; break;
  }
  const int bytes_per_sample = bits / 8;
  std::string data;
  data.reserve(interleaved.size() * static_cast<size_t>(bytes_per_sample));
  for (float v : interleaved) {
    switch (encoding) {
      case WavEncoding::kU8: PutLe(data, static_cast<uint64_t>(ToInt(v, 8) + 128), 1); break;
      case WavEncoding::kF32: {
        uint32_t bits32;
        std::memcpy(&bits32, &v, 4);
        PutLe(data, bits32, 4);
        break;
      }
      default: PutLe(data, static_cast<uint64_t>(ToInt(v, bits)), bytes_per_sample); break;
    }
  }
  return RawWavBytes(encoding == WavEncoding::kF32 ? 3 : 1, sample_rate, channels, bits, data);  // IEEE float : PCM
}

std::string RawWavBytes(int format_tag, int sample_rate, int channels, int bits_per_sample, std::string_view data) {
  const int bytes_per_sample = bits_per_sample / 8;
  std::string out = "RIFF";
  PutLe(out, 36 + data.size(), 4);
  out += "WAVEfmt ";
  PutLe(out, 16, 4);
  PutLe(out, static_cast<uint64_t>(format_tag), 2);
  PutLe(out, static_cast<uint64_t>(channels), 2);
  PutLe(out, static_cast<uint64_t>(sample_rate), 4);
  PutLe(out, static_cast<uint64_t>(sample_rate) * channels * bytes_per_sample, 4);
  PutLe(out, static_cast<uint64_t>(channels * bytes_per_sample), 2);
  PutLe(out, static_cast<uint64_t>(bits_per_sample), 2);
  out += "data";
  PutLe(out, data.size(), 4);
  return out.append(data);
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status EncodeFile(const std::string& path, const std::string& encoder_name, int sample_rate,
                        int channels, std::span<const float> interleaved, bool with_video) {
  AVFormatContext* raw = nullptr;
  int ret = avformat_alloc_output_context2(&raw, nullptr, nullptr, path.c_str());
  if (ret < 0 || raw == nullptr) return AvFail(ret, "avformat_alloc_output_context2 " + path);
  std::unique_ptr<AVFormatContext, OutputDeleter> out(raw);

  Track audio;
  if (channels > 0) {
    const AVCodec* encoder = avcodec_find_encoder_by_name(encoder_name.c_str());
    if (encoder == nullptr) {
      return absl::UnavailableError(absl::StrCat("this libavcodec has no ", encoder_name, " encoder"));
    }
    audio.codec.reset(avcodec_alloc_context3(encoder));
    audio.codec->sample_rate = sample_rate;
    av_channel_layout_default(&audio.codec->ch_layout, channels);
    audio.codec->sample_fmt = encoder->sample_fmts ? encoder->sample_fmts[0] : AV_SAMPLE_FMT_FLTP;
    audio.codec->time_base = AVRational{1, sample_rate};
    audio.codec->bit_rate = 128000;
    audio.codec->strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL;
    if (out->oformat->flags & AVFMT_GLOBALHEADER) audio.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = avcodec_open2(audio.codec.get(), encoder, nullptr);
    if (ret < 0) return AvFail(ret, "open encoder " + encoder_name);
    audio.stream = avformat_new_stream(out.get(), nullptr);
    avcodec_parameters_from_context(audio.stream->codecpar, audio.codec.get());
    audio.stream->time_base = audio.codec->time_base;
  }
  Track video;
  if (with_video) {
    const AVCodec* encoder = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (encoder == nullptr) return absl::UnavailableError("this libavcodec has no mpeg4 encoder");
    video.codec.reset(avcodec_alloc_context3(encoder));
    video.codec->width = 64;
    video.codec->height = 64;
    video.codec->pix_fmt = AV_PIX_FMT_YUV420P;
    video.codec->time_base = AVRational{1, 10};
    if (out->oformat->flags & AVFMT_GLOBALHEADER) video.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ret = avcodec_open2(video.codec.get(), encoder, nullptr);
    if (ret < 0) return AvFail(ret, "open mpeg4 encoder");
    video.stream = avformat_new_stream(out.get(), nullptr);
    avcodec_parameters_from_context(video.stream->codecpar, video.codec.get());
    video.stream->time_base = video.codec->time_base;
  }

  ret = avio_open(&out->pb, path.c_str(), AVIO_FLAG_WRITE);
  if (ret < 0) return AvFail(ret, "avio_open " + path);
  ret = avformat_write_header(out.get(), nullptr);
  if (ret < 0) return AvFail(ret, "avformat_write_header");

  std::unique_ptr<AVFrame, FrameDeleter> frame(av_frame_alloc());
  if (with_video) {
    // One second of frames, or as long as the audio.
    const int64_t frames = std::max<int64_t>(
        10, channels > 0 ? static_cast<int64_t>(interleaved.size()) / channels * 10 / sample_rate : 10);
    for (int64_t i = 0; i < frames; ++i) {
      av_frame_unref(frame.get());
      frame->format = AV_PIX_FMT_YUV420P;
      frame->width = 64;
      frame->height = 64;
      av_frame_get_buffer(frame.get(), 0);
      for (int p = 0; p < 3; ++p) {
        const int h = p == 0 ? 64 : 32;
        std::memset(frame->data[p], static_cast<int>(60 + i % 100), static_cast<size_t>(frame->linesize[p]) * h);
      }
      frame->pts = i;
      if (absl::Status s = Drain(out.get(), video, frame.get()); !s.ok()) return s;
    }
    if (absl::Status s = Drain(out.get(), video, nullptr); !s.ok()) return s;
  }
  if (channels > 0) {
    const int frame_size = audio.codec->frame_size > 0 ? audio.codec->frame_size : 1024;
    const int64_t total = static_cast<int64_t>(interleaved.size()) / channels;
    for (int64_t start = 0; start < total; start += frame_size) {
      const int n = static_cast<int>(std::min<int64_t>(frame_size, total - start));
      av_frame_unref(frame.get());
      frame->format = audio.codec->sample_fmt;
      frame->sample_rate = sample_rate;
      frame->nb_samples = n;
      av_channel_layout_copy(&frame->ch_layout, &audio.codec->ch_layout);
      ret = av_frame_get_buffer(frame.get(), 0);
      if (ret < 0) return AvFail(ret, "av_frame_get_buffer");
      FillSamples(frame.get(), audio.codec->sample_fmt, channels,
                  interleaved.data() + static_cast<size_t>(start) * channels, n);
      frame->pts = start;
      if (absl::Status s = Drain(out.get(), audio, frame.get()); !s.ok()) return s;
    }
    if (absl::Status s = Drain(out.get(), audio, nullptr); !s.ok()) return s;
  }
  ret = av_write_trailer(out.get());
  if (ret < 0) return AvFail(ret, "av_write_trailer");
  return absl::OkStatus();
}

double ToneFrequency(std::span<const float> samples, int sample_rate) {
  double first = -1.0;
  double last = -1.0;
  int64_t crossings = 0;
  for (size_t i = 1; i < samples.size(); ++i) {
    if (samples[i - 1] < 0.0f && samples[i] >= 0.0f) {
      const double fraction = -samples[i - 1] / static_cast<double>(samples[i] - samples[i - 1]);
      const double t = static_cast<double>(i - 1) + fraction;
      if (first < 0) first = t;
      last = t;
      ++crossings;
    }
  }
  if (crossings < 2) return 0.0;
  return static_cast<double>(crossings - 1) * sample_rate / (last - first);
}

double Rms(std::span<const float> samples) {
  if (samples.empty()) return 0.0;
  double sum = 0.0;
  for (float s : samples) sum += static_cast<double>(s) * s;
  return std::sqrt(sum / static_cast<double>(samples.size()));
}

std::string SpeechFile(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech" / name;
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? path.lexically_normal().string() : std::string();
}

}  // namespace lingcast::testing
