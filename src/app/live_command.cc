#include "app/live_command.h"

#include <cstdio>
#include <iostream>

#include "absl/strings/str_format.h"
#include "app/live_job.h"
#include "app/progress.h"
#include "app/render_options.h"
#include "app/signals.h"
#include "app/translation_setup.h"
#include "core/status.h"

namespace lingcast {

void LiveCommand::Register(CLI::App& app) {
  command_ = app.add_subcommand("live", "Interpret a host live: the avatar speaks the translation (docs/live.md)");
  CLI::App& c = *command_;
  c.add_option("--in", options_.input,
               "Host audio: a media file played at real time, a URL (rtmp://, srt://, ...), or - for s16le 16 kHz mono "
               "on stdin")
      ->required();
  c.add_option("--source-timeout", source_timeout_s_, "Seconds a URL source may take to answer, or stall")
      ->capture_default_str();
  c.add_option("--out", options_.outputs, "Output (repeatable): FILE.mp4, hls:DIR, rtmp://..., srt://...")->required();
  c.add_option("--source", source_, "Language the host speaks")->capture_default_str();
  c.add_option("--target", target_, "Language the avatar speaks")->capture_default_str();
  c.add_option("--script", options_.script_path, "Script the host follows: its lines commit their own translation");
  c.add_option("--tm", options_.memory_paths, "More translation memory (.tsv/.csv pairs or bilingual scripts)");
  c.add_option("--glossary", options_.glossary_path, "Glossary (CHINESE<TAB>ENGLISH terms)");
  c.add_option("--engine", engines_, "Fallback translators for off-script speech: tm, llm, none")->capture_default_str();
  c.add_option("--llm-endpoint", options_.llm.endpoint, "OpenAI-compatible server for --engine llm");
  c.add_option("--llm-model", options_.llm.model, "Model name for --engine llm");
  c.add_option("--control", options_.control_path,
               "Operator corrections while live, from a file or FIFO, or - for stdin: line N = TEXT, "
               "term SOURCE = TEXT, tm SOURCE = TEXT");
  c.add_option("--corrections", options_.corrections_path,
               "Corrections file: applied at the start, and every --control correction is kept there");
  c.add_option("--size", size_, "Frame size WIDTHxHEIGHT")->capture_default_str();
  c.add_option("--fps", options_.fps, "Frames per second")->capture_default_str();
  c.add_option("--avatar", options_.avatar_path, "Avatar rig (JSON, docs/avatar-format.md); default: the built-in presenter");
  c.add_option("--background", options_.background, "studio, a colour #RRGGBB, or an image or video file")
      ->capture_default_str();
  c.add_option("--background-fit", options_.background_fit, "cover, contain or stretch")->capture_default_str();
  c.add_option("--subtitle-style", options_.subtitle_style, "outline, box or shadow")->capture_default_str();
  c.add_option("--title", options_.title, "Lower-third title \"NAME|SUBTITLE\" for the first seconds");
  c.add_option("--voice-zh", options_.voice_zh, "espeak-ng voice for Mandarin (default cmn-latn-pinyin)");
  c.add_option("--voice-en", options_.voice_en, "espeak-ng voice for English (default en-us)");
  c.add_option("--rate", options_.rate, "The avatar's speaking rate (0.5-2)")->capture_default_str();
  c.add_option("--lag-policy", lag_policy_, "When lines queue up: speedup, shorten or skip")->capture_default_str();
  c.add_option("--max-lag", max_lag_s_, "Seconds the avatar may fall behind; staler lines become subtitles only")
      ->capture_default_str();
  c.add_option("--max-speedup", options_.max_speedup, "Fastest rate the speedup policy uses (x the normal rate)")
      ->capture_default_str();
  c.add_flag("--pip", options_.picture_in_picture, "Show the source's video in a corner (--in: a media file with video)");
  c.add_flag("--passthrough", options_.passthrough, "Mix the host's voice under the avatar's (ducked while it speaks)");
  c.add_option("--clock", clock_, "realtime, or simulated: as fast as the CPU allows, identical results")
      ->capture_default_str();
  c.add_option("--report", options_.report_path, "Write the latency report (JSON) here");
  c.add_option("--preset", options_.preset, "x264 preset")->capture_default_str();
  c.add_option("--crf", options_.crf, "x264 quality for file outputs (0-51)")->capture_default_str();
  c.add_option("--bitrate", options_.bitrate_kbps, "Video bitrate for network outputs, kbit/s")->capture_default_str();
  c.add_option("--seed", options_.seed, "Seed for blinks and idle motion")->capture_default_str();
  c.add_flag("--quiet", options_.quiet, "No status line");
  c.add_flag("--json", options_.json, "Print the report as JSON on stdout");
}

int LiveCommand::Run(Logger& logger) {
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "lingcast: error: %s\n", std::string(status.message()).c_str());
    return ExitCodeFor(status);
  };
  absl::StatusOr<Language> source = ParseLanguage(source_);
  if (!source.ok()) return fail(source.status());
  absl::StatusOr<Language> target = ParseLanguage(target_);
  if (!target.ok()) return fail(target.status());
  options_.source = *source;
  options_.target = *target;
  if (absl::Status parsed = ParseSize(size_, &options_.width, &options_.height); !parsed.ok()) return fail(parsed);
  absl::StatusOr<LagPolicy> policy = ParseLagPolicy(lag_policy_);
  if (!policy.ok()) return fail(policy.status());
  options_.lag_policy = *policy;
  absl::StatusOr<LiveClock> clock = ParseLiveClock(clock_);
  if (!clock.ok()) return fail(clock.status());
  options_.clock = *clock;
  options_.max_lag = MediaTime::Seconds(max_lag_s_);
  options_.source_timeout = MediaTime::Seconds(source_timeout_s_);
  if (engines_.size() == 1 && engines_[0] == "none") {
    options_.engines.clear();
  } else {
    absl::StatusOr<std::vector<std::string>> engines = ParseEngines(engines_);
    if (!engines.ok()) return fail(engines.status());
    options_.engines = *engines;
  }

  // Before any thread exists, so every thread inherits the blocked signals.
  SignalWatcher signals;
  std::FILE* status = !options_.quiet && !options_.json && StderrIsTerminal() ? stderr : nullptr;
  absl::StatusOr<nlohmann::json> report = RunLive(options_, logger, signals, std::cin, status);
  if (!report.ok()) return fail(report.status());
  const nlohmann::json& s = (*report)["summary"];
  if (options_.json) {
    std::cout << report->dump() << std::endl;
  } else if (!options_.quiet) {
    std::fprintf(stderr,
                 "live: %lld lines (%lld spoken, %lld skipped, %lld subtitles only); compute latency p50 %.0f ms "
                 "p95 %.0f ms; end offset p50 %.0f ms; drops audio %lld video %lld; peak RSS %.0f MB\n",
                 static_cast<long long>(s["lines"].get<int64_t>()), static_cast<long long>(s["spoken"].get<int64_t>()),
                 static_cast<long long>(s["skipped"].get<int64_t>()),
                 static_cast<long long>(s["subtitles_only"].get<int64_t>()),
                 s["compute_latency_ms"]["p50"].get<double>(), s["compute_latency_ms"]["p95"].get<double>(),
                 s["end_offset_ms"]["p50"].get<double>(), static_cast<long long>(s["audio_drops"].get<int64_t>()),
                 static_cast<long long>(s["video_drops"].get<int64_t>()), s["peak_rss_mb"].get<double>());
  }
  return 0;
}

}  // namespace lingcast
