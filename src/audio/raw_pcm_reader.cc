#include "audio/raw_pcm_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {
namespace {

constexpr int kMaxChannels = 64;

int BytesPerSample(PcmFormat format) { return format == PcmFormat::kS16LE ? 2 : 4; }

// Little-endian decoding from bytes, so the reader is right on any host.
float S16At(const unsigned char* p) {
  const auto value = static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
  return static_cast<float>(value) / 32768.0f;
}

float F32At(const unsigned char* p) {
  const uint32_t bits = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                        (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

absl::StatusOr<PcmFormat> ParsePcmFormat(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "s16le") return PcmFormat::kS16LE;
  if (lower == "f32le") return PcmFormat::kF32LE;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown raw PCM format '", name, "' (expected s16le or f32le)"));
}

const char* PcmFormatName(PcmFormat format) {
  return format == PcmFormat::kS16LE ? "s16le" : "f32le";
}

absl::StatusOr<RawPcmReader> RawPcmReader::Create(std::istream& in, const RawPcmConfig& config,
                                                  std::string name) {
  if (config.channels < 1 || config.channels > kMaxChannels) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": raw PCM channel count ", config.channels,
                                                   " is outside 1..", kMaxChannels));
  }
  if (config.sample_rate < 1 || config.sample_rate > 1'000'000) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": raw PCM sample rate ", config.sample_rate,
                                                   " Hz is outside 1..1000000"));
  }
  auto resampler = Resampler::Create(config.sample_rate, config.output_rate, config.quality);
  if (!resampler.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": ", resampler.status().message()));
  }
  return RawPcmReader(in, config, std::move(name), std::move(resampler).value());
}

RawPcmReader::RawPcmReader(std::istream& in, const RawPcmConfig& config, std::string name,
                           Resampler resampler)
    : in_(&in), config_(config), name_(std::move(name)), resampler_(std::move(resampler)) {}

absl::StatusOr<bool> RawPcmReader::Read(AudioBuffer& chunk, MediaTime max_chunk) {
  chunk.sample_rate = config_.output_rate;
  chunk.channels = 1;
  chunk.samples.clear();
  const size_t want = static_cast<size_t>(std::max<int64_t>(1, max_chunk.ToSamples(config_.output_rate)));
  const size_t frame_bytes = static_cast<size_t>(BytesPerSample(config_.format)) * config_.channels;
  // Input frames per read: as many as make `want` output frames (at least one).
  const size_t input_frames = std::max<size_t>(
      1, static_cast<size_t>(max_chunk.ToSamples(config_.sample_rate)));

  while (ready_.size() < want && !input_ended_) {
    const size_t kept = bytes_.size();  // a partial frame left from the last read
    bytes_.resize(kept + input_frames * frame_bytes);
    in_->read(bytes_.data() + kept, static_cast<std::streamsize>(input_frames * frame_bytes));
    const size_t got = kept + static_cast<size_t>(in_->gcount());
    if (in_->bad()) {
      return absl::DataLossError(absl::StrCat(name_, ": read error on the raw PCM stream"));
    }
    const size_t frames = got / frame_bytes;
    const auto* bytes = reinterpret_cast<const unsigned char*>(bytes_.data());
    mono_.resize(frames);
    const float scale = 1.0f / static_cast<float>(config_.channels);
    for (size_t f = 0; f < frames; ++f) {
      float sum = 0.0f;
      for (int c = 0; c < config_.channels; ++c) {
        const unsigned char* p = bytes + f * frame_bytes + static_cast<size_t>(c) * BytesPerSample(config_.format);
        float value;
        if (config_.format == PcmFormat::kS16LE) {
          value = S16At(p);
        } else {
          value = F32At(p);
          if (!std::isfinite(value)) {
            ++nonfinite_samples_;
            value = 0.0f;
          }
          value = std::clamp(value, -1.0f, 1.0f);
        }
        sum += value;
      }
      mono_[f] = config_.channels > 1 ? sum * scale : sum;
    }
    LC_RETURN_IF_ERROR(resampler_.Push(mono_, ready_));
    bytes_.erase(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(frames * frame_bytes));
    bytes_.resize(got - frames * frame_bytes);
    if (in_->eof() || in_->fail()) {
      input_ended_ = true;
      dropped_trailing_bytes_ = static_cast<int64_t>(bytes_.size());
      bytes_.clear();
      LC_RETURN_IF_ERROR(resampler_.Flush(ready_));
    }
  }
  const size_t n = std::min(want, ready_.size());
  if (n == 0) return false;
  chunk.samples.assign(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(n));
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(n));
  delivered_samples_ += static_cast<int64_t>(n);
  return true;
}

MediaTime RawPcmReader::position() const {
  return MediaTime::FromSamples(delivered_samples_, config_.output_rate);
}

}  // namespace lingcast
