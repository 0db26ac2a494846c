#include "app/render_options.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "app/engine_registry.h"
#include "app/render_job.h"
#include "app/signals.h"
#include "compose/lower_third.h"
#include "compose/media_background.h"
#include "compose/subtitle_renderer.h"
#include "core/status.h"
#include "media/video_format.h"
#include "output/output_spec.h"

namespace lingcast {
namespace {

// The smallest frame that still fits an avatar and a readable subtitle.
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
  // The rules the live `video` command checks too (media/video_format.h).
  if (absl::Status size = CheckFrameSize(w, h); !size.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--size ", text, ": ", size.message()));
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
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kVoice, o.tts_engine, kUsedByRender, "--tts"));
  if (o.crf < 0 || o.crf > 51) {
    return absl::InvalidArgumentError(absl::StrCat("--crf ", o.crf, ": must be between 0 and 51"));
  }
  if (o.encoder_threads < 0 || o.encoder_threads > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--encoder-threads ", o.encoder_threads, ": must be between 0 (automatic) and 64"));
  }
  if (o.renderer != "auto" && o.renderer != "cpu" && o.renderer != "cuda") {
    return absl::InvalidArgumentError(absl::StrCat("--renderer ", o.renderer, ": must be auto, cpu or cuda"));
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

namespace {

// The render flags as typed: the ones that are not RenderOptions fields yet are
// checked and converted when the command runs.
struct RenderFlags {
  RenderOptions render;
  std::string size = "1280x720", speak = "first", subtitles = "burn";
};

int RunFromFlags(RenderFlags& flags, Logger& logger) {
  RenderOptions& render = flags.render;
  absl::Status parsed = ParseSize(flags.size, &render.width, &render.height);
  if (!parsed.ok()) return ReportCommandStatus(parsed);
  absl::StatusOr<SpeakMode> speak_mode = ParseSpeakMode(flags.speak);
  if (!speak_mode.ok()) return ReportCommandStatus(speak_mode.status());
  render.speak = *speak_mode;
  absl::StatusOr<SubtitleMode> subtitle_mode = ParseSubtitleMode(flags.subtitles);
  if (!subtitle_mode.ok()) return ReportCommandStatus(subtitle_mode.status());
  render.subtitles = *subtitle_mode;

  // Before any thread exists: every later thread (encoder threads included)
  // inherits the blocked signals, which the watcher turns into a clean stop.
  // Only the commands with work to stop cleanly (render, tts, live) do this;
  // the others keep the default SIGINT/SIGTERM behaviour.
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(render, logger, signals);
  if (!summary.ok()) return ReportCommandStatus(summary.status());
  if (render.json) {
    std::cout << RenderSummaryJson(*summary) << std::endl;
  } else if (!render.quiet) {
    std::fprintf(stderr, "%s\n", RenderSummaryLine(*summary).c_str());
  }
  return 0;
}

}  // namespace

Command AddRenderCommand(CLI::App& app) {
  auto flags = std::make_shared<RenderFlags>();
  RenderOptions& render = flags->render;
  std::string& size = flags->size;
  std::string& speak = flags->speak;
  std::string& subtitles = flags->subtitles;
  CLI::App* render_cmd = app.add_subcommand("render", "Render a bilingual script to an MP4 video");
  render_cmd->add_option("script", render.script_path, "Script file (docs/script-format.md)")->required();
  render_cmd->add_option("-o,--output", render.output_path, "Output MP4 path (written atomically)");
  render_cmd->add_option("--out", render.outputs,
                         "Output, repeatable: FILE.mp4, hls:DIR, rtmp://HOST/APP/KEY or srt://HOST:PORT "
                         "(docs/outputs.md)");
  render_cmd->add_flag("--realtime", render.realtime, "Pace the output at real time, as a live source would");
  render_cmd->add_option("--start-offset", render.start_offset_s,
                         "Seconds where the live/HLS timeline starts (tests long-running timestamps)")
      ->capture_default_str();
  render_cmd->add_option("--size", size, "Frame size WIDTHxHEIGHT")->capture_default_str();
  render_cmd->add_option("--fps", render.fps, "Frames per second (1-240)")->capture_default_str();
  render_cmd->add_option("--voice-zh", render.voice_zh, "espeak-ng voice for Mandarin (default cmn-latn-pinyin)");
  render_cmd->add_option("--voice-en", render.voice_en, "espeak-ng voice for English (default en-us)");
  render_cmd->add_option("--tts", render.tts_engine,
                         "The avatar's voice: auto (the installed neural voices, espeak-ng for the rest) or espeak")
      ->capture_default_str();
  render_cmd->add_option("--device", render.neural.device, kDeviceFlagHelp)->capture_default_str();
  render_cmd->add_option("--dtype", render.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  render_cmd->add_option("--rate", render.rate, "Relative speaking rate (0.25-4)")->capture_default_str();
  render_cmd->add_option("--speak", speak, "Which segment is spoken: first, zh, en or both")->capture_default_str();
  render_cmd->add_option("--subtitles", subtitles, "burn (into the video), srt (sidecar OUT.srt) or none")
      ->capture_default_str();
  render_cmd->add_option("--preset", render.preset, "x264 preset")->capture_default_str();
  render_cmd->add_option("--crf", render.crf, "x264 constant quality, 0-51 (lower is better)")->capture_default_str();
  render_cmd->add_option("--encoder-threads", render.encoder_threads, "x264 threads (0: automatic)")
      ->capture_default_str();
  render_cmd->add_option("--renderer", render.renderer,
                         "What draws the frames: auto (cuda when this build has it and a GPU is found), cpu or cuda")
      ->capture_default_str();
  render_cmd->add_option("--seed", render.seed, "Seed for blinks and idle motion")->capture_default_str();
  render_cmd->add_option("--avatar", render.avatar_path, "Avatar rig JSON (docs/avatar-format.md); default: built-in");
  render_cmd->add_flag("-q,--quiet", render.quiet, "No progress bar, no summary line");
  render_cmd->add_flag("--json", render.json, "Print a JSON summary on stdout");
  render_cmd->add_option("--background", render.background, "studio, a colour #RRGGBB, or an image or video file")
      ->capture_default_str();
  render_cmd->add_option("--background-fit", render.background_fit, "Image/video fit: cover, contain or stretch")
      ->capture_default_str();
  render_cmd->add_option("--subtitle-style", render.subtitle_style, "Subtitle look: outline, box or shadow")
      ->capture_default_str();
  render_cmd->add_flag("--highlight-words", render.highlight_words, "Colour each word of the spoken line as it is said");
  render_cmd->add_option("--title", render.title, "Lower-third title \"NAME|SUBTITLE\", shown for the first 6 s");
  return {render_cmd, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
