#include "app/live_flags.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "app/neural_plugin.h"
#include "app/render_options.h"
#include "app/translation_setup.h"
#include "core/status.h"

namespace lingcast {

namespace {

// One binder per concern (live_options.h), each the only binding of its config.
void AddInputFlags(CLI::App& c, InputConfig& input, LiveFlags& flags) {
  c.add_option("--in", input.path,
               "Host audio: a media file played at real time, a URL (rtmp://, srt://, ...), or - for s16le 16 kHz mono "
               "on stdin")
      ->required();
  c.add_option("--source-timeout", flags.source_timeout_s, "Seconds a URL source may take to answer, or stall")
      ->capture_default_str();
  c.add_flag("--passthrough", input.passthrough, "Mix the host's voice under the avatar's (ducked while it speaks)");
}

void AddOutputsFlags(CLI::App& c, OutputsConfig& outputs) {
  c.add_option("--out", outputs.destinations, "Output (repeatable): FILE.mp4, hls:DIR, rtmp://..., srt://...")
      ->required();
  c.add_option("--preset", outputs.preset, "x264 preset")->capture_default_str();
  c.add_option("--crf", outputs.crf, "x264 quality for file outputs (0-51)")->capture_default_str();
  c.add_option("--bitrate", outputs.bitrate_kbps, "Video bitrate for network outputs, kbit/s")->capture_default_str();
  c.add_option("--encoder-threads", outputs.encoder_threads, "x264 threads (0: automatic, from the cores)")
      ->capture_default_str();
  c.add_option("--segment-minutes", outputs.segment_minutes,
               "MP4 rotation: write each MP4 --out as complete files FILE-0001.mp4, FILE-0002.mp4, ... cut at the "
               "first keyframe after every N minutes, each playable as soon as it closes (0: one file)")
      ->capture_default_str();
}

void AddRecognitionFlags(CLI::App& c, RecognitionConfig& recognition) {
  c.add_option("--asr", recognition.engine,
               "Recognizer: auto (Whisper base when installed, else pocketsphinx), whisper (en and zh; --asr-model "
               "or the installed base), or pocketsphinx (embedded, English)")
      ->capture_default_str();
  c.add_option("--asr-model", recognition.model_dir,
               "Whisper checkpoint directory (default: the installed Whisper base; docs/models.md)");
  c.add_option("--zh-script", recognition.zh_script,
               "Mandarin from --asr whisper in simplified or traditional characters (either matches the script)")
      ->capture_default_str();
  c.add_option("--asr-partial-ms", recognition.partial_interval_ms,
               "How often the open utterance is heard again, 100..5000 ms (0: the recognizer's own: 250 ms, Whisper "
               "500 ms on the CPU and 250 ms on a GPU, 150 ms there when opening scores follow the script)")
      ->capture_default_str();
  c.add_flag("--no-opening-scores{false}", recognition.score_openings,
             "With --script: commit lines from the words heard only, not from Whisper's score of the expected line's "
             "opening (docs/live.md)");
}

void AddTranslationFlags(CLI::App& c, TranslationConfig& translation, LiveFlags& flags) {
  c.add_option("--script", translation.script_path, "Script the host follows: its lines commit their own translation");
  c.add_option("--tm", translation.memory_paths, "More translation memory (.tsv/.csv pairs or bilingual scripts)");
  c.add_option("--glossary", translation.glossary_path, "Glossary (CHINESE<TAB>ENGLISH terms)");
  c.add_option("--engine", flags.engines, "Fallback translators for off-script speech: tm, llm, marian, none")
      ->capture_default_str();
  c.add_flag("--no-provisional", flags.no_provisional,
             "No provisional captions of off-script speech while it is spoken (docs/live.md)");
  c.add_option("--llm-endpoint", translation.llm.endpoint, "OpenAI-compatible server for --engine llm");
  c.add_option("--llm-model", translation.llm.model, "Model name for --engine llm");
  c.add_option("--marian-model", translation.marian_model_dir,
               "Marian (OPUS-MT) checkpoint directory for --engine marian (docs/models.md)");
  c.add_option("--control", translation.control_path,
               "Operator corrections while live, from a file or FIFO, or - for stdin: line N = TEXT, "
               "term SOURCE = TEXT, tm SOURCE = TEXT");
  c.add_option("--corrections", translation.corrections_path,
               "Corrections file: applied at the start, and every --control correction is kept there");
}

void AddLookFlags(CLI::App& c, LookConfig& look, LiveFlags& flags) {
  c.add_option("--size", flags.size, "Frame size WIDTHxHEIGHT")->capture_default_str();
  c.add_option("--fps", look.fps, "Frames per second")->capture_default_str();
  c.add_option("--avatar", look.avatar_path,
               "Avatar rig (JSON, docs/avatar-format.md); default: the built-in presenter");
  c.add_option("--background", look.background, "studio, a colour #RRGGBB, or an image or video file")
      ->capture_default_str();
  c.add_option("--background-fit", look.background_fit, "cover, contain or stretch")->capture_default_str();
  c.add_option("--subtitle-style", look.subtitle_style, "outline, box or shadow")->capture_default_str();
  c.add_option("--title", look.title, "Lower-third title \"NAME|SUBTITLE\" for the first seconds");
  c.add_flag("--pip", look.picture_in_picture, "Show the source's video in a corner (--in: a media file with video)");
  c.add_option("--seed", look.seed, "Seed for blinks and idle motion")->capture_default_str();
  c.add_option("--renderer", look.renderer,
               "What draws the frames: auto (cuda when this build has it and a GPU is found; cpu with --pip), cpu or "
               "cuda")
      ->capture_default_str();
}

void AddVoiceFlags(CLI::App& c, VoiceConfig& voice) {
  c.add_option("--voice-zh", voice.voice_zh, "espeak-ng voice for Mandarin (default cmn-latn-pinyin)");
  c.add_option("--voice-en", voice.voice_en, "espeak-ng voice for English (default en-us)");
  c.add_option("--tts", voice.engine,
               "The avatar's voice: auto (the installed neural voices, espeak-ng for the rest), espeak, or vits (a "
               "VITS / MMS-TTS / Piper checkpoint, --tts-model)")
      ->capture_default_str();
  c.add_option("--tts-model", voice.model_dir, "VITS checkpoint directory for --tts vits (docs/models.md)");
  c.add_option("--rate", voice.rate, "The avatar's speaking rate (0.5-2)")->capture_default_str();
}

void AddTimingFlags(CLI::App& c, TimingConfig& timing, LiveFlags& flags) {
  c.add_option("--lag-policy", flags.lag_policy, "When lines queue up: speedup, shorten or skip")
      ->capture_default_str();
  c.add_option("--max-lag", flags.max_lag_s,
               "Seconds the avatar may fall behind; staler lines become subtitles only")
      ->capture_default_str();
  c.add_option("--max-speedup", timing.max_speedup, "Fastest rate the speedup policy uses (x the normal rate)")
      ->capture_default_str();
  c.add_option("--clock", flags.clock, "realtime, or simulated: as fast as the CPU allows, identical results")
      ->capture_default_str();
}

void AddWatchdogFlags(CLI::App& c, LiveFlags& flags) {
  c.add_option("--watchdog", flags.watchdog,
               "on: under pressure give up provisional captions, then video size, then the neural voice "
               "(docs/reliability.md); off")
      ->capture_default_str();
  c.add_option("--watch-lag", flags.watch_lag, "Seconds of lag HIGH,LOW: a rung down above HIGH, back below LOW; off")
      ->capture_default_str();
  c.add_option("--watch-memory", flags.watch_memory, "Resident memory in MB HIGH,LOW (as --watch-lag); off")
      ->capture_default_str();
  c.add_option("--watch-gpu-memory", flags.watch_gpu_memory,
               "GPU memory in use in MB HIGH,LOW (as --watch-lag; the whole device's, where there is a CUDA GPU); off")
      ->capture_default_str();
}


}  // namespace

void AddLiveFlags(CLI::App& c, LiveFlags& flags) {
  LiveOptions& options = flags.options;
  AddInputFlags(c, options.input, flags);
  AddOutputsFlags(c, options.outputs);
  c.add_option("--source", flags.source, "Language the host speaks")->capture_default_str();
  c.add_option("--target", flags.target, "Language the avatar speaks")->capture_default_str();
  AddRecognitionFlags(c, options.recognition);
  AddTranslationFlags(c, options.translation, flags);
  AddLookFlags(c, options.look, flags);
  AddVoiceFlags(c, options.voice);
  c.add_option("--device", options.neural.device, kDeviceFlagHelp)->capture_default_str();
  c.add_option("--dtype", options.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  AddTimingFlags(c, options.timing, flags);
  AddWatchdogFlags(c, flags);
  c.add_option("--report", options.report_path, "Write the latency report (JSON) here");
  c.add_flag("--quiet", options.quiet, "No status line");
  c.add_flag("--json", options.json, "Print the report as JSON on stdout");
}

namespace {

// Seconds typed for `flag` as a MediaTime. Converting a double that is not
// finite or beyond what int64 microseconds hold is undefined behaviour, so it
// is refused here, before ValidateLiveOptions checks each flag's own range.
absl::StatusOr<MediaTime> FlagSeconds(const char* flag, double seconds) {
  constexpr double kMostSeconds = 1e12;  // 31,700 years; int64 microseconds hold 9.2e12 s
  if (!std::isfinite(seconds) || std::abs(seconds) > kMostSeconds) {
    return absl::InvalidArgumentError(absl::StrFormat("%s %g s is not a time lingcast can count", flag, seconds));
  }
  return MediaTime::Seconds(seconds);
}

}  // namespace

absl::Status ParseWatchMarks(const char* flag, const std::string& text, double* high, double* low) {
  if (text == "off") {
    *high = *low = 0;
    return absl::OkStatus();
  }
  const std::vector<std::string> parts = absl::StrSplit(text, ',');
  double h = 0, l = 0;
  if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &h) || !absl::SimpleAtod(parts[1], &l) || !std::isfinite(h) ||
      !std::isfinite(l) || h <= 0 || l < 0 || l >= h || h > 1e9) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s \"%s\": expected HIGH,LOW (two numbers, HIGH above LOW) or off", flag, text));
  }
  *high = h;
  *low = l;
  return absl::OkStatus();
}

absl::StatusOr<LiveOptions> LiveOptionsFromFlags(const LiveFlags& flags) {
  LiveOptions options = flags.options;
  LC_ASSIGN_OR_RETURN(options.source, ParseLanguage(flags.source));
  LC_ASSIGN_OR_RETURN(options.target, ParseLanguage(flags.target));
  LC_RETURN_IF_ERROR(ParseSize(flags.size, &options.look.width, &options.look.height));
  LC_ASSIGN_OR_RETURN(options.timing.lag_policy, ParseLagPolicy(flags.lag_policy));
  LC_ASSIGN_OR_RETURN(options.timing.clock, ParseLiveClock(flags.clock));
  LC_ASSIGN_OR_RETURN(options.timing.max_lag, FlagSeconds("--max-lag", flags.max_lag_s));
  LC_ASSIGN_OR_RETURN(options.input.source_timeout, FlagSeconds("--source-timeout", flags.source_timeout_s));
  options.translation.provisional_captions = !flags.no_provisional;
  if (flags.watchdog != "on" && flags.watchdog != "off") {
    return absl::InvalidArgumentError(absl::StrCat("--watchdog \"", flags.watchdog, "\": expected on or off"));
  }
  options.watchdog.enabled = flags.watchdog == "on";
  double lag_high = 0, lag_low = 0;
  LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-lag", flags.watch_lag, &lag_high, &lag_low));
  options.watchdog.limits.lag_high = MediaTime::Seconds(lag_high);
  options.watchdog.limits.lag_low = MediaTime::Seconds(lag_low);
  LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-memory", flags.watch_memory, &options.watchdog.limits.rss_high_mb,
                                &options.watchdog.limits.rss_low_mb));
  LC_RETURN_IF_ERROR(ParseWatchMarks("--watch-gpu-memory", flags.watch_gpu_memory,
                                     &options.watchdog.limits.gpu_high_mb, &options.watchdog.limits.gpu_low_mb));
  if (flags.engines.size() == 1 && flags.engines[0] == "none") {
    options.translation.engines.clear();
  } else {
    LC_ASSIGN_OR_RETURN(options.translation.engines, ParseEngines(flags.engines, kUsedByLive));
  }
  LC_RETURN_IF_ERROR(ValidateLiveOptions(options));
  return options;
}

namespace {

absl::Status BadSetting(const std::string& key, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("setting \"", key, "\": ", why));
}

// One JSON scalar as the text a command line would carry. A command line
// cannot carry a NUL byte, and JSON can ("\u0000"): a path cut short at one
// by the system would name another file than the one confined and checked.
absl::StatusOr<std::string> ScalarText(const std::string& key, const nlohmann::json& value) {
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    if (text.find('\0') != std::string::npos) return BadSetting(key, "a NUL byte (\\u0000) cannot be in a setting");
    return text;
  }
  if (value.is_number_integer() || value.is_number_unsigned() || value.is_number_float()) return value.dump();
  return BadSetting(key, "expected a string or a number");
}

}  // namespace

absl::StatusOr<std::vector<std::string>> SettingsToArguments(const CLI::App& command, const nlohmann::json& settings,
                                                             const std::set<std::string>& refused) {
  if (!settings.is_object()) {
    return absl::InvalidArgumentError("the settings must be a JSON object keyed by live's option names");
  }
  std::vector<std::string> arguments;
  for (const auto& [key, value] : settings.items()) {
    const std::string flag = "--" + absl::StrReplaceAll(key, {{"_", "-"}});
    const CLI::Option* option = key.find('-') == std::string::npos ? command.get_option_no_throw(flag) : nullptr;
    if (option == nullptr || flag == "--help") return BadSetting(key, "no such setting (see docs/serve.md)");
    if (refused.count(key) != 0) return BadSetting(key, "not taken here (see docs/serve.md)");
    const int most = option->get_items_expected_max();
    if (most == 0) {  // a flag
      if (!value.is_boolean()) return BadSetting(key, "expected true or false");
      if (value.get<bool>()) arguments.push_back(flag);
      continue;
    }
    if (value.is_array()) {
      if (most <= 1) return BadSetting(key, "takes one value, not a list");
      for (const nlohmann::json& item : value) {
        LC_ASSIGN_OR_RETURN(std::string text, ScalarText(key, item));
        arguments.push_back(flag);
        arguments.push_back(std::move(text));
      }
      continue;
    }
    LC_ASSIGN_OR_RETURN(std::string text, ScalarText(key, value));
    arguments.push_back(flag);
    arguments.push_back(std::move(text));
  }
  return arguments;
}

absl::StatusOr<LiveOptions> LiveOptionsFromSettings(const nlohmann::json& settings,
                                                    const std::set<std::string>& refused) {
  CLI::App command("live settings", "live");
  LiveFlags flags;
  AddLiveFlags(command, flags);
  LC_ASSIGN_OR_RETURN(std::vector<std::string> arguments, SettingsToArguments(command, settings, refused));
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
  try {
    command.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(error.what());
  }
  return LiveOptionsFromFlags(flags);
}

}  // namespace lingcast
