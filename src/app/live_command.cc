#include "app/live_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "app/live_job.h"
#include "app/live_options.h"
#include "app/progress.h"
#include "app/render_options.h"
#include "app/signals.h"
#include "app/translation_setup.h"
#include "core/status.h"

namespace lingcast {
namespace {

// The live flags as typed: the ones that are not LiveOptions fields yet are
// checked and converted when the command runs.
struct LiveFlags {
  LiveOptions options;
  std::string source = "en", target = "zh", size = "1280x720", lag_policy = "speedup", clock = "realtime";
  double max_lag_s = 4;
  double source_timeout_s = 10;
  std::vector<std::string> engines = {"tm"};
  bool no_provisional = false;
};

int RunFromFlags(LiveFlags& flags, Logger& logger) {
  LiveOptions& options = flags.options;
  auto fail = [](const absl::Status& status) {
    std::fprintf(stderr, "lingcast: error: %s\n", std::string(status.message()).c_str());
    return ExitCodeFor(status);
  };
  absl::StatusOr<Language> source = ParseLanguage(flags.source);
  if (!source.ok()) return fail(source.status());
  absl::StatusOr<Language> target = ParseLanguage(flags.target);
  if (!target.ok()) return fail(target.status());
  options.source = *source;
  options.target = *target;
  if (absl::Status parsed = ParseSize(flags.size, &options.width, &options.height); !parsed.ok()) return fail(parsed);
  absl::StatusOr<LagPolicy> policy = ParseLagPolicy(flags.lag_policy);
  if (!policy.ok()) return fail(policy.status());
  options.lag_policy = *policy;
  absl::StatusOr<LiveClock> clock = ParseLiveClock(flags.clock);
  if (!clock.ok()) return fail(clock.status());
  options.clock = *clock;
  options.max_lag = MediaTime::Seconds(flags.max_lag_s);
  options.source_timeout = MediaTime::Seconds(flags.source_timeout_s);
  options.provisional_captions = !flags.no_provisional;
  if (flags.engines.size() == 1 && flags.engines[0] == "none") {
    options.engines.clear();
  } else {
    absl::StatusOr<std::vector<std::string>> engines = ParseEngines(flags.engines);
    if (!engines.ok()) return fail(engines.status());
    options.engines = *engines;
  }

  // Before any thread exists, so every thread inherits the blocked signals.
  SignalWatcher signals;
  std::FILE* status = !options.quiet && !options.json && StderrIsTerminal() ? stderr : nullptr;
  absl::StatusOr<nlohmann::json> report = RunLive(options, logger, signals, std::cin, status);
  if (!report.ok()) return fail(report.status());
  const nlohmann::json& s = (*report)["summary"];
  if (options.json) {
    std::cout << report->dump() << std::endl;
  } else if (!options.quiet) {
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

}  // namespace

Command AddLiveCommand(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("live", "Interpret a host live: the avatar speaks the translation (docs/live.md)");
  CLI::App& c = *command;
  auto flags = std::make_shared<LiveFlags>();
  LiveOptions& options = flags->options;
  c.add_option("--in", options.input,
               "Host audio: a media file played at real time, a URL (rtmp://, srt://, ...), or - for s16le 16 kHz mono "
               "on stdin")
      ->required();
  c.add_option("--source-timeout", flags->source_timeout_s, "Seconds a URL source may take to answer, or stall")
      ->capture_default_str();
  c.add_option("--out", options.outputs, "Output (repeatable): FILE.mp4, hls:DIR, rtmp://..., srt://...")->required();
  c.add_option("--source", flags->source, "Language the host speaks")->capture_default_str();
  c.add_option("--target", flags->target, "Language the avatar speaks")->capture_default_str();
  c.add_option("--asr", options.asr_engine,
               "Recognizer: auto (Whisper base when installed, else pocketsphinx), whisper (en and zh; --asr-model "
               "or the installed base), or pocketsphinx (embedded, English)")
      ->capture_default_str();
  c.add_option("--asr-model", options.asr_model_dir, "Whisper checkpoint directory (default: the installed Whisper base; docs/models.md)");
  c.add_option("--zh-script", options.zh_script,
               "Mandarin from --asr whisper in simplified or traditional characters (either matches the script)")
      ->capture_default_str();
  c.add_option("--script", options.script_path, "Script the host follows: its lines commit their own translation");
  c.add_option("--tm", options.memory_paths, "More translation memory (.tsv/.csv pairs or bilingual scripts)");
  c.add_option("--glossary", options.glossary_path, "Glossary (CHINESE<TAB>ENGLISH terms)");
  c.add_option("--engine", flags->engines, "Fallback translators for off-script speech: tm, llm, marian, none")
      ->capture_default_str();
  c.add_flag("--no-provisional", flags->no_provisional,
             "No provisional captions of off-script speech while it is spoken (docs/live.md)");
  c.add_option("--llm-endpoint", options.llm.endpoint, "OpenAI-compatible server for --engine llm");
  c.add_option("--llm-model", options.llm.model, "Model name for --engine llm");
  c.add_option("--marian-model", options.marian_model_dir,
               "Marian (OPUS-MT) checkpoint directory for --engine marian (docs/models.md)");
  c.add_option("--control", options.control_path,
               "Operator corrections while live, from a file or FIFO, or - for stdin: line N = TEXT, "
               "term SOURCE = TEXT, tm SOURCE = TEXT");
  c.add_option("--corrections", options.corrections_path,
               "Corrections file: applied at the start, and every --control correction is kept there");
  c.add_option("--size", flags->size, "Frame size WIDTHxHEIGHT")->capture_default_str();
  c.add_option("--fps", options.fps, "Frames per second")->capture_default_str();
  c.add_option("--avatar", options.avatar_path, "Avatar rig (JSON, docs/avatar-format.md); default: the built-in presenter");
  c.add_option("--background", options.background, "studio, a colour #RRGGBB, or an image or video file")
      ->capture_default_str();
  c.add_option("--background-fit", options.background_fit, "cover, contain or stretch")->capture_default_str();
  c.add_option("--subtitle-style", options.subtitle_style, "outline, box or shadow")->capture_default_str();
  c.add_option("--title", options.title, "Lower-third title \"NAME|SUBTITLE\" for the first seconds");
  c.add_option("--voice-zh", options.voice_zh, "espeak-ng voice for Mandarin (default cmn-latn-pinyin)");
  c.add_option("--voice-en", options.voice_en, "espeak-ng voice for English (default en-us)");
  c.add_option("--tts", options.tts_engine,
               "The avatar's voice: auto (the installed neural voices, espeak-ng for the rest), espeak, or vits (a VITS / MMS-TTS / Piper checkpoint, --tts-model)")
      ->capture_default_str();
  c.add_option("--tts-model", options.tts_model_dir, "VITS checkpoint directory for --tts vits (docs/models.md)");
  c.add_option("--device", options.neural.device, kDeviceFlagHelp)->capture_default_str();
  c.add_option("--dtype", options.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  c.add_option("--rate", options.rate, "The avatar's speaking rate (0.5-2)")->capture_default_str();
  c.add_option("--lag-policy", flags->lag_policy, "When lines queue up: speedup, shorten or skip")
      ->capture_default_str();
  c.add_option("--max-lag", flags->max_lag_s,
               "Seconds the avatar may fall behind; staler lines become subtitles only")
      ->capture_default_str();
  c.add_option("--max-speedup", options.max_speedup, "Fastest rate the speedup policy uses (x the normal rate)")
      ->capture_default_str();
  c.add_flag("--pip", options.picture_in_picture, "Show the source's video in a corner (--in: a media file with video)");
  c.add_flag("--passthrough", options.passthrough, "Mix the host's voice under the avatar's (ducked while it speaks)");
  c.add_option("--clock", flags->clock, "realtime, or simulated: as fast as the CPU allows, identical results")
      ->capture_default_str();
  c.add_option("--report", options.report_path, "Write the latency report (JSON) here");
  c.add_option("--preset", options.preset, "x264 preset")->capture_default_str();
  c.add_option("--crf", options.crf, "x264 quality for file outputs (0-51)")->capture_default_str();
  c.add_option("--bitrate", options.bitrate_kbps, "Video bitrate for network outputs, kbit/s")->capture_default_str();
  c.add_option("--seed", options.seed, "Seed for blinks and idle motion")->capture_default_str();
  c.add_flag("--quiet", options.quiet, "No status line");
  c.add_flag("--json", options.json, "Print the report as JSON on stdout");
  return {command, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
