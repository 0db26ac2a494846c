#include "app/render_options.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compose/lower_third.h"
#include "compose/media_background.h"
#include "compose/subtitle_renderer.h"
#include "output/output_spec.h"

namespace lingcast {
namespace {

// The smallest frame that still fits an avatar and a readable subtitle.
constexpr int kMinWidth = 160;
constexpr int kMinHeight = 90;
constexpr int kMaxWidth = 7680;
constexpr int kMaxHeight = 4320;
constexpr int kMinFps = 1;
constexpr int kMaxFps = 240;
// 100 days: past 2^31 ms (24.8 days), the longest timestamps worth testing.
constexpr double kMaxStartOffsetSeconds = 100.0 * 24 * 3600;

bool ParseInt(std::string_view s, int* out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

absl::Status ParseSize(const std::string& text, int* width, int* height) {
  const size_t x = text.find_first_of("xX");
  int w = 0, h = 0;
  if (x == std::string::npos || !ParseInt(std::string_view(text).substr(0, x), &w) ||
      !ParseInt(std::string_view(text).substr(x + 1), &h)) {
    return absl::InvalidArgumentError(absl::StrCat("--size ", text, ": expected WIDTHxHEIGHT, e.g. 1280x720"));
  }
  if (w < kMinWidth || h < kMinHeight || w > kMaxWidth || h > kMaxHeight) {
    return absl::InvalidArgumentError(absl::StrCat("--size ", text, ": must be between ", kMinWidth, "x", kMinHeight,
                                                   " and ", kMaxWidth, "x", kMaxHeight));
  }
  if (w % 2 || h % 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--size ", text, ": width and height must be even (H.264 4:2:0 video)"));
  }
  *width = w;
  *height = h;
  return absl::OkStatus();
}

absl::StatusOr<SpeakMode> ParseSpeakMode(const std::string& text) {
  if (text == "zh") return SpeakMode::kZh;
  if (text == "en") return SpeakMode::kEn;
  if (text == "both") return SpeakMode::kBoth;
  if (text == "first") return SpeakMode::kFirst;
  return absl::InvalidArgumentError(absl::StrCat("--speak ", text, ": expected zh, en, both or first"));
}

absl::StatusOr<SubtitleMode> ParseSubtitleMode(const std::string& text) {
  if (text == "burn") return SubtitleMode::kBurn;
  if (text == "srt") return SubtitleMode::kSrt;
  if (text == "none") return SubtitleMode::kNone;
  return absl::InvalidArgumentError(absl::StrCat("--subtitles ", text, ": expected burn, srt or none"));
}

std::vector<std::string> AllOutputs(const RenderOptions& options) {
  std::vector<std::string> outputs;
  if (!options.output_path.empty()) outputs.push_back(options.output_path);
  outputs.insert(outputs.end(), options.outputs.begin(), options.outputs.end());
  return outputs;
}

absl::Status ValidateRenderOptions(const RenderOptions& o) {
  if (o.fps < kMinFps || o.fps > kMaxFps) {
    return absl::InvalidArgumentError(
        absl::StrCat("--fps ", o.fps, ": must be between ", kMinFps, " and ", kMaxFps));
  }
  if (o.rate < 0.25 || o.rate > 4.0) {
    return absl::InvalidArgumentError(absl::StrCat("--rate ", o.rate, ": must be between 0.25 and 4"));
  }
  if (o.crf < 0 || o.crf > 51) {
    return absl::InvalidArgumentError(absl::StrCat("--crf ", o.crf, ": must be between 0 and 51"));
  }
  if (o.encoder_threads < 0 || o.encoder_threads > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--encoder-threads ", o.encoder_threads, ": must be between 0 (automatic) and 64"));
  }
  if (o.output_path.empty() && o.outputs.empty()) {
    return absl::InvalidArgumentError("no output: give -o OUT.mp4 or --out (FILE.mp4, hls:DIR, rtmp://…, srt://…)");
  }
  for (const std::string& out : AllOutputs(o)) {
    if (auto spec = ParseOutputSpec(out); !spec.ok()) return spec.status();
  }
  if (!std::isfinite(o.start_offset_s) || o.start_offset_s < 0 || o.start_offset_s > kMaxStartOffsetSeconds) {
    return absl::InvalidArgumentError(absl::StrCat("--start-offset ", o.start_offset_s,
                                                   ": must be between 0 and ", kMaxStartOffsetSeconds, " seconds"));
  }
  if (auto fit = compose::ParseBackgroundFit(o.background_fit); !fit.ok()) return fit.status();
  if (auto look = compose::ParseSubtitleLook(o.subtitle_style); !look.ok()) return look.status();
  if (!o.title.empty()) {
    if (auto title = compose::ParseLowerThird(o.title, MediaTime::Zero(), MediaTime::Seconds(1)); !title.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--title: ", title.status().message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast
