#include "output/encoder_options.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace lingcast {

absl::Status ValidateVideoOptions(const VideoEncoderOptions& o) {
  const std::string size = absl::StrFormat("--size %dx%d", o.width, o.height);
  if (o.width < kMinVideoDimension || o.height < kMinVideoDimension || o.width > kMaxVideoWidth ||
      o.height > kMaxVideoHeight) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: size must be between %dx%d and %dx%d", size, kMinVideoDimension, kMinVideoDimension,
        kMaxVideoWidth, kMaxVideoHeight));
  }
  if (o.width % 2 != 0 || o.height % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: width and height must be even for H.264 4:2:0", size));
  }
  if (o.fps_num <= 0 || o.fps_den <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--fps %d/%d: frame rate must be positive (1 to %g)", o.fps_num, o.fps_den,
        kMaxFramesPerSecond));
  }
  const double fps = static_cast<double>(o.fps_num) / o.fps_den;
  if (fps < 1 || fps > kMaxFramesPerSecond) {
    const std::string shown =
        o.fps_den == 1 ? absl::StrFormat("%d", o.fps_num) : absl::StrFormat("%d/%d", o.fps_num, o.fps_den);
    return absl::InvalidArgumentError(
        absl::StrFormat("--fps %s: frame rate must be between 1 and %g", shown, kMaxFramesPerSecond));
  }
  if (o.bitrate < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("video bitrate %d: must be positive, or 0 for constant quality (CRF)", o.bitrate));
  }
  if (o.bitrate == 0 && (o.crf < 0 || o.crf > 51)) {
    return absl::InvalidArgumentError(absl::StrFormat("--crf %d: must be between 0 and 51", o.crf));
  }
  if (!(o.keyframe_interval_s > 0) || o.keyframe_interval_s > 60) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "keyframe interval %g s: must be more than 0 and at most 60 seconds", o.keyframe_interval_s));
  }
  if (o.preset.empty()) {
    return absl::InvalidArgumentError("x264 preset is empty: use one of ultrafast ... veryslow");
  }
  if (o.threads < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("encoder threads %d: must be 0 (automatic) or more", o.threads));
  }
  return absl::OkStatus();
}

absl::Status ValidateAudioOptions(const AudioEncoderOptions& o) {
  if (o.input_sample_rate < 8000 || o.input_sample_rate > 192000) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "audio input sample rate %d Hz: must be between 8000 and 192000", o.input_sample_rate));
  }
  if (o.input_channels < 1 || o.input_channels > 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("audio input channels %d: must be 1 or 2", o.input_channels));
  }
  // The rates AAC's sampling-frequency table can signal; 44.1 and 48 kHz are what players expect.
  constexpr int kAacRates[] = {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000};
  if (std::find(std::begin(kAacRates), std::end(kAacRates), o.output_sample_rate) == std::end(kAacRates)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "audio output sample rate %d Hz: AAC needs a standard rate such as 44100 or 48000",
        o.output_sample_rate));
  }
  if (o.output_channels < 1 || o.output_channels > 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("audio output channels %d: must be 1 (mono) or 2 (stereo)", o.output_channels));
  }
  if (o.bitrate < 16000 || o.bitrate > 512000) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "audio bitrate %d bit/s: must be between 16000 and 512000", o.bitrate));
  }
  return absl::OkStatus();
}

int64_t FrameCountFor(MediaTime duration, const VideoEncoderOptions& o) {
  if (duration <= MediaTime::Zero()) return 0;
  // ceil(us * num / (den * 1e6)) in integers: exact for any frame rate.
  const int64_t numerator = duration.micros() * o.fps_num;
  const int64_t denominator = int64_t{o.fps_den} * 1'000'000;
  return (numerator + denominator - 1) / denominator;
}

int KeyframeIntervalFrames(const VideoEncoderOptions& o) {
  const double fps = static_cast<double>(o.fps_num) / o.fps_den;
  return std::max(1, static_cast<int>(std::lround(o.keyframe_interval_s * fps)));
}

}  // namespace lingcast
