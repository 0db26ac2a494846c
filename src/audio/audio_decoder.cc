#include "audio/audio_decoder.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "audio/av_util.h"
#include "core/status.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/samplefmt.h>
}

namespace lingcast {
namespace {

// A demuxer or decoder that keeps failing without reaching the end (an I/O error
// that persists) would otherwise loop forever; this many failures in a row stop it.
constexpr int kMaxConsecutiveReadErrors = 64;

// Checks what the path is before libavformat does, so the common mistakes get a
// message that says what is wrong rather than "Invalid data found".
absl::Status CheckPath(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot stat: ", ec.message()));
  if (status.type() == std::filesystem::file_type::directory) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not an audio file"));
  }
  if (status.type() == std::filesystem::file_type::regular &&
      std::filesystem::file_size(path, ec) == 0 && !ec) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": empty file (0 bytes), no audio"));
  }
  return absl::OkStatus();
}

// Appends the frame's samples, averaged over channels, as float in [-1, 1].
template <typename T, typename ToFloat>
void AppendMono(const AVFrame& frame, int channels, bool planar, ToFloat to_float,
                std::vector<float>& out) {
  const int n = frame.nb_samples;
  const size_t base = out.size();
  out.resize(base + static_cast<size_t>(n));
  float* dst = out.data() + base;
  const float scale = 1.0f / static_cast<float>(channels);
  if (planar) {
    for (int i = 0; i < n; ++i) dst[i] = 0.0f;
    for (int c = 0; c < channels; ++c) {
      const T* src = reinterpret_cast<const T*>(frame.extended_data[c]);
      for (int i = 0; i < n; ++i) dst[i] += to_float(src[i]);
    }
  } else {
    const T* src = reinterpret_cast<const T*>(frame.extended_data[0]);
    for (int i = 0; i < n; ++i) {
      float sum = 0.0f;
      for (int c = 0; c < channels; ++c) sum += to_float(src[static_cast<size_t>(i) * channels + c]);
      dst[i] = sum;
    }
  }
  if (channels > 1) {
    for (int i = 0; i < n; ++i) dst[i] *= scale;
  }
  for (int i = 0; i < n; ++i) dst[i] = std::clamp(dst[i], -1.0f, 1.0f);
}

absl::Status AppendFrameAsMono(const AVFrame& frame, std::vector<float>& out) {
  const int channels = frame.ch_layout.nb_channels;
  if (channels < 1) return absl::InternalError("decoded frame has no channels");
  const auto format = static_cast<AVSampleFormat>(frame.format);
  const bool planar = av_sample_fmt_is_planar(format) != 0;
  switch (av_get_packed_sample_fmt(format)) {
    case AV_SAMPLE_FMT_U8:
      AppendMono<uint8_t>(frame, channels, planar,
                          [](uint8_t s) { return (static_cast<float>(s) - 128.0f) / 128.0f; }, out);
      return absl::OkStatus();
    case AV_SAMPLE_FMT_S16:
      AppendMono<int16_t>(frame, channels, planar,
                          [](int16_t s) { return static_cast<float>(s) / 32768.0f; }, out);
      return absl::OkStatus();
    case AV_SAMPLE_FMT_S32:
      AppendMono<int32_t>(frame, channels, planar,
                          [](int32_t s) { return static_cast<float>(s / 2147483648.0); }, out);
      return absl::OkStatus();
    case AV_SAMPLE_FMT_S64:
      AppendMono<int64_t>(frame, channels, planar,
                          [](int64_t s) { return static_cast<float>(s / 9223372036854775808.0); }, out);
      return absl::OkStatus();
    case AV_SAMPLE_FMT_FLT:
      AppendMono<float>(frame, channels, planar, [](float s) { return s == s ? s : 0.0f; }, out);
      return absl::OkStatus();
    case AV_SAMPLE_FMT_DBL:
      AppendMono<double>(frame, channels, planar,
                         [](double s) { return s == s ? static_cast<float>(s) : 0.0f; }, out);
      return absl::OkStatus();
    default:
      break;
  }
  const char* name = av_get_sample_fmt_name(format);
  return absl::InternalError(absl::StrCat("unsupported decoded sample format ", name ? name : "?"));
}

std::optional<MediaTime> DeclaredDuration(const AVFormatContext& format, const AVStream& stream) {
  if (stream.duration != AV_NOPTS_VALUE && stream.duration > 0) {
    return MediaTime::Micros(av_rescale_q(stream.duration, stream.time_base, AVRational{1, 1'000'000}));
  }
  if (format.duration != AV_NOPTS_VALUE && format.duration > 0) {
    return MediaTime::Micros(av_rescale(format.duration, 1'000'000, AV_TIME_BASE));
  }
  return std::nullopt;
}

}  // namespace

struct AudioFileReader::State {
  AudioSourceInfo info;
  DecodeReport report;
  int output_rate = 0;
  ResampleQuality quality = ResampleQuality::kHigh;

  InputFormatContextPtr format;
  CodecContextPtr codec;
  PacketPtr packet;
  FramePtr frame;
  int stream_index = -1;
  // Whether the declared duration is exact enough to call a shorter file truncated
  // (an estimate from the bit rate is not).
  bool duration_is_exact = false;

  std::optional<Resampler> resampler;
  std::vector<float> mono;   // one decoded frame, downmixed
  std::vector<float> ready;  // resampled output, from ready_offset on not yet returned
  size_t ready_offset = 0;

  int64_t decoded_source_samples = 0;
  int64_t delivered_samples = 0;
  bool demux_ended = false;
  bool finished = false;  // decoder drained and resampler flushed

  size_t ready_count() const { return ready.size() - ready_offset; }

  // Network sources: every blocking libavformat call must finish by the deadline.
  std::optional<MediaTime> network_timeout;
  std::atomic<int64_t> deadline_ns{0};
  void ArmDeadline() {
    if (!network_timeout) return;
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    deadline_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() +
                      network_timeout->micros() * 1000);
  }
  static int Interrupted(void* opaque) {
    const auto* self = static_cast<const State*>(opaque);
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    return std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() > self->deadline_ns.load() ? 1 : 0;
  }

  absl::Status ConsumeFrame() {
    mono.clear();
    LC_RETURN_IF_ERROR(AppendFrameAsMono(*frame, mono));
    decoded_source_samples += frame->nb_samples;
    if (!resampler || resampler->input_rate() != frame->sample_rate) {
      // The rate can change mid-stream (chained Ogg, some broadcasts): drain the
      // old filter, then start one for the new rate.
      if (resampler) LC_RETURN_IF_ERROR(resampler->Flush(ready));
      LC_ASSIGN_OR_RETURN(Resampler created,
                          Resampler::Create(frame->sample_rate, output_rate, quality));
      resampler.emplace(std::move(created));
    }
    return resampler->Push(mono, ready);
  }

  // Decodes until some output is ready or the stream is finished.
  absl::Status DecodeMore() {
    int read_errors = 0;
    int decode_errors = 0;
    while (!finished) {
      int ret = avcodec_receive_frame(codec.get(), frame.get());
      if (ret >= 0) {
        absl::Status consumed = ConsumeFrame();
        av_frame_unref(frame.get());
        LC_RETURN_IF_ERROR(consumed);
        if (ready_count() > 0) return absl::OkStatus();
        continue;
      }
      if (ret == AVERROR_EOF) {
        if (resampler) LC_RETURN_IF_ERROR(resampler->Flush(ready));
        finished = true;
        Finish();
        return absl::OkStatus();
      }
      if (ret != AVERROR(EAGAIN)) {
        ++report.corrupt_packets;  // the decoder rejected what it was given; go on
        if (++decode_errors >= kMaxConsecutiveReadErrors) {
          return absl::InvalidArgumentError(absl::StrCat(info.path, ": the ", info.codec,
                                                         " decoder keeps failing (",
                                                         AvErrorText(ret), ")"));
        }
        continue;
      }
      decode_errors = 0;
      // The decoder wants input.
      if (demux_ended) {
        // Draining was already requested; EAGAIN here would loop forever.
        finished = true;
        if (resampler) LC_RETURN_IF_ERROR(resampler->Flush(ready));
        Finish();
        return absl::OkStatus();
      }
      ArmDeadline();
      ret = av_read_frame(format.get(), packet.get());
      if (ret == AVERROR_EXIT && network_timeout) {
        return absl::DeadlineExceededError(
            absl::StrFormat("%s: no data for %.1f s", info.path, network_timeout->seconds()));
      }
      if (ret < 0) {
        if (ret != AVERROR_EOF) {
          ++report.corrupt_packets;
          if (++read_errors < kMaxConsecutiveReadErrors && !avio_feof(format->pb)) continue;
        }
        demux_ended = true;
        avcodec_send_packet(codec.get(), nullptr);  // enter draining mode
        continue;
      }
      read_errors = 0;
      if (packet->stream_index == stream_index) {
        // libavformat flags a packet it could not read in full: the file ends
        // mid-packet (a truncated WAV ends this way; its header's size is ignored).
        if (packet->flags & AV_PKT_FLAG_CORRUPT) report.truncated = true;
        ret = avcodec_send_packet(codec.get(), packet.get());
        if (ret < 0 && ret != AVERROR(EAGAIN)) ++report.corrupt_packets;
      }
      av_packet_unref(packet.get());
    }
    return absl::OkStatus();
  }

  void Finish() {
    // FLAC's STREAMINFO (and WAV's header, when libavformat trusts it) declares the
    // length exactly, so coming up short means the file was cut.
    if (!info.duration || !duration_is_exact || info.sample_rate <= 0) return;
    const MediaTime decoded = MediaTime::FromSamples(decoded_source_samples, info.sample_rate);
    const MediaTime tolerance =
        std::max(MediaTime::Millis(50), MediaTime::Micros(info.duration->micros() / 100));
    if (decoded + tolerance < *info.duration) report.truncated = true;
  }
};

bool AudioFileReader::IsUrl(const std::string& path) {
  const size_t scheme_end = path.find("://");
  return scheme_end != std::string::npos && scheme_end > 0 &&
         std::all_of(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(scheme_end),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.'; });
}

absl::StatusOr<AudioFileReader> AudioFileReader::Open(const std::string& path, int sample_rate,
                                                      ResampleQuality quality) {
  LC_RETURN_IF_ERROR(CheckPath(path));
  return OpenSource(path, sample_rate, quality, std::nullopt);
}

absl::StatusOr<AudioFileReader> AudioFileReader::OpenUrl(const std::string& url, int sample_rate, MediaTime timeout) {
  if (!IsUrl(url)) return absl::InvalidArgumentError(absl::StrCat(url, ": not a URL (scheme://...)"));
  if (timeout <= MediaTime::Zero()) {
    return absl::InvalidArgumentError(absl::StrCat(url, ": the network timeout must be positive"));
  }
  return OpenSource(url, sample_rate, ResampleQuality::kHigh, timeout);
}

absl::StatusOr<AudioFileReader> AudioFileReader::OpenSource(const std::string& path, int sample_rate,
                                                            ResampleQuality quality,
                                                            std::optional<MediaTime> network_timeout) {
  if (sample_rate < 1 || sample_rate > 1'000'000) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": output sample rate ", sample_rate, " Hz is outside 1..1000000"));
  }
  auto state = std::make_unique<State>();
  state->info.path = path;
  state->output_rate = sample_rate;
  state->quality = quality;
  state->network_timeout = network_timeout;

  AVFormatContext* raw_format = avformat_alloc_context();
  if (raw_format == nullptr) return absl::ResourceExhaustedError("out of memory for a demuxer");
  if (network_timeout) {
    // libavformat polls this while it connects and reads; past the deadline the
    // blocking call returns AVERROR_EXIT.
    raw_format->interrupt_callback.callback = &State::Interrupted;
    raw_format->interrupt_callback.opaque = state.get();
    state->ArmDeadline();
  }
  int ret = avformat_open_input(&raw_format, path.c_str(), nullptr, nullptr);
  if (ret < 0 && network_timeout) {
    if (ret == AVERROR_EXIT) {
      return absl::DeadlineExceededError(
          absl::StrFormat("%s: no answer within %.1f s", path, network_timeout->seconds()));
    }
    return absl::UnavailableError(absl::StrCat(path, ": cannot connect (", AvErrorText(ret), ")"));
  }
  if (ret < 0) {
    if (ret == AVERROR(ENOENT)) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    if (ret == AVERROR(EACCES) || ret == AVERROR(EPERM)) {
      return absl::PermissionDeniedError(absl::StrCat(path, ": permission denied"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not an audio or video file that can be read (", AvErrorText(ret), ")"));
  }
  state->format.reset(raw_format);
  ret = avformat_find_stream_info(raw_format, nullptr);
  if (ret == AVERROR_EXIT && network_timeout) {
    return absl::DeadlineExceededError(
        absl::StrFormat("%s: connected, but no stream arrived within %.1f s", path, network_timeout->seconds()));
  }
  if (ret < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot read the stream layout (", AvErrorText(ret), ")"));
  }
  state->info.container = raw_format->iformat->name;

  const AVCodec* decoder = nullptr;
  ret = av_find_best_stream(raw_format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
  if (ret == AVERROR_STREAM_NOT_FOUND) {
    std::vector<std::string> kinds;
    for (unsigned i = 0; i < raw_format->nb_streams; ++i) {
      const char* kind = av_get_media_type_string(raw_format->streams[i]->codecpar->codec_type);
      kinds.push_back(kind ? kind : "unknown");
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": no audio stream (", state->info.container, " with ",
        kinds.empty() ? std::string("no streams") : absl::StrJoin(kinds, ", "), ")"));
  }
  if (ret == AVERROR_DECODER_NOT_FOUND || (ret >= 0 && decoder == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no decoder for its audio codec"));
  }
  if (ret < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot select an audio stream (", AvErrorText(ret), ")"));
  }
  state->stream_index = ret;
  AVStream* stream = raw_format->streams[ret];
  for (unsigned i = 0; i < raw_format->nb_streams; ++i) {
    // Not demuxing the video of a video file saves most of the work.
    if (static_cast<int>(i) != ret) raw_format->streams[i]->discard = AVDISCARD_ALL;
  }

  state->codec.reset(avcodec_alloc_context3(decoder));
  if (!state->codec) return absl::ResourceExhaustedError("out of memory for an audio decoder");
  ret = avcodec_parameters_to_context(state->codec.get(), stream->codecpar);
  if (ret < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": bad audio codec parameters (", AvErrorText(ret), ")"));
  }
  state->codec->pkt_timebase = stream->time_base;
  ret = avcodec_open2(state->codec.get(), decoder, nullptr);
  if (ret < 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot open the ", decoder->name,
                                                   " decoder (", AvErrorText(ret), ")"));
  }
  state->packet.reset(av_packet_alloc());
  state->frame.reset(av_frame_alloc());
  if (!state->packet || !state->frame) return absl::ResourceExhaustedError("out of memory");

  state->info.codec = decoder->name;
  const char* format_name = av_get_sample_fmt_name(state->codec->sample_fmt);
  state->info.sample_format = format_name ? format_name : "";
  state->info.sample_rate = state->codec->sample_rate;
  state->info.channels = state->codec->ch_layout.nb_channels;
  state->info.duration = DeclaredDuration(*raw_format, *stream);
  state->duration_is_exact = raw_format->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE;
  if (state->info.sample_rate <= 0 || state->info.channels <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": audio stream has no sample rate or channels"));
  }
  return AudioFileReader(std::move(state));
}

AudioFileReader::AudioFileReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
AudioFileReader::AudioFileReader(AudioFileReader&&) noexcept = default;
AudioFileReader& AudioFileReader::operator=(AudioFileReader&&) noexcept = default;
AudioFileReader::~AudioFileReader() = default;

absl::StatusOr<bool> AudioFileReader::Read(AudioBuffer& chunk, MediaTime max_chunk) {
  State& s = *state_;
  chunk.sample_rate = s.output_rate;
  chunk.channels = 1;
  chunk.samples.clear();
  const size_t want =
      static_cast<size_t>(std::max<int64_t>(1, max_chunk.ToSamples(s.output_rate)));
  while (s.ready_count() < want && !s.finished) LC_RETURN_IF_ERROR(s.DecodeMore());

  const size_t n = std::min(want, s.ready_count());
  if (n == 0) {
    if (s.delivered_samples == 0 && s.report.corrupt_packets > 0) {
      return absl::InvalidArgumentError(absl::StrCat(s.info.path, ": no decodable audio (",
                                                     s.report.corrupt_packets, " corrupt ",
                                                     s.info.codec, " packets)"));
    }
    return false;
  }
  const auto begin = s.ready.begin() + static_cast<std::ptrdiff_t>(s.ready_offset);
  chunk.samples.assign(begin, begin + static_cast<std::ptrdiff_t>(n));
  s.ready_offset += n;
  s.delivered_samples += static_cast<int64_t>(n);
  if (s.ready_offset * 2 >= s.ready.size()) {  // keep the queue from growing
    s.ready.erase(s.ready.begin(), s.ready.begin() + static_cast<std::ptrdiff_t>(s.ready_offset));
    s.ready_offset = 0;
  }
  return true;
}

const AudioSourceInfo& AudioFileReader::info() const { return state_->info; }
const DecodeReport& AudioFileReader::report() const { return state_->report; }
int AudioFileReader::sample_rate() const { return state_->output_rate; }
MediaTime AudioFileReader::position() const {
  return MediaTime::FromSamples(state_->delivered_samples, state_->output_rate);
}

absl::StatusOr<AudioBuffer> DecodeAudioFile(const std::string& path, int sample_rate,
                                            DecodeReport* report) {
  LC_ASSIGN_OR_RETURN(AudioFileReader reader, AudioFileReader::Open(path, sample_rate));
  AudioBuffer all;
  all.sample_rate = sample_rate;
  all.channels = 1;
  if (reader.info().duration) {
    all.samples.reserve(static_cast<size_t>(reader.info().duration->ToSamples(sample_rate)) + 1024);
  }
  AudioBuffer chunk;
  while (true) {
    LC_ASSIGN_OR_RETURN(bool more, reader.Read(chunk, MediaTime::Seconds(10)));
    if (!more) break;
    all.samples.insert(all.samples.end(), chunk.samples.begin(), chunk.samples.end());
  }
  if (report) *report = reader.report();
  return all;
}

}  // namespace lingcast
