#include "app/live_options.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/engine_registry.h"
#include "app/translation_setup.h"
#include "app/whisper_recognizer.h"
#include "audio/audio_decoder.h"
#include "core/status.h"
#include "media/video_format.h"

namespace lingcast {

absl::StatusOr<LiveClock> ParseLiveClock(const std::string& text) {
  if (text == "realtime") return LiveClock::kRealtime;
  if (text == "simulated") return LiveClock::kSimulated;
  return absl::InvalidArgumentError(
      absl::StrCat("--clock: unknown clock \"", text, "\" (expected realtime or simulated)"));
}

absl::Status ValidateInputConfig(const InputConfig& input) {
  if (input.path.empty()) {
    return absl::InvalidArgumentError("no input: give --in FILE (played at real time) or --in - (raw PCM on stdin)");
  }
  if (input.source_timeout < MediaTime::Millis(100)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--source-timeout %.2f s is too short (at least 0.1 s)", input.source_timeout.seconds()));
  }
  return absl::OkStatus();
}

PartialCadence LivePartialCadence(const RecognitionConfig& recognition, bool scores_openings) {
  PartialCadence cadence;
  if (recognition.partial_interval_ms > 0) {
    cadence.follower = MediaTime::Millis(recognition.partial_interval_ms);
    cadence.whisper_cpu_ms = cadence.whisper_gpu_ms = recognition.partial_interval_ms;
  } else if (scores_openings) {
    cadence.follower = MediaTime::Millis(150);
    cadence.whisper_gpu_ms = 150;
  }
  return cadence;
}

absl::StatusOr<RecognizerChoice> ValidateRecognitionConfig(const RecognitionConfig& recognition, Language source,
                                                           bool follows_script) {
  LC_ASSIGN_OR_RETURN(RecognizerChoice choice, ResolveRecognizer(kUsedByLive, recognition.engine, recognition.model_dir,
                                                                 source, "--source", follows_script));
  LC_RETURN_IF_ERROR(ParseZhScriptFlag(recognition.zh_script).status());
  if (recognition.partial_interval_ms != 0 &&
      (recognition.partial_interval_ms < 100 || recognition.partial_interval_ms > 5000)) {
    return absl::InvalidArgumentError(absl::StrCat("--asr-partial-ms ", recognition.partial_interval_ms,
                                                   " is outside 100..5000 (0: the recognizer's own cadence)"));
  }
  return choice;
}

absl::Status ValidateTranslationConfig(const TranslationConfig& translation) {
  LC_RETURN_IF_ERROR(CheckMarianModelFlag(translation.engines, translation.marian_model_dir));
  if (translation.control_in_process && !translation.control_path.empty()) {
    return absl::InvalidArgumentError("--control: this session takes its corrections from the API");
  }
  return absl::OkStatus();
}

absl::Status ValidateVoiceConfig(const VoiceConfig& voice) {
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kVoice, voice.engine, kUsedByLive, "--tts"));
  const EngineInfo& engine = *FindEngine(EngineRole::kVoice, voice.engine, kUsedByLive);
  if (engine.needs_model_dir && voice.model_dir.empty()) {
    return absl::InvalidArgumentError("--tts vits needs a checkpoint directory: give --tts-model DIR (docs/models.md)");
  }
  if (!engine.needs_model_dir && !voice.model_dir.empty()) {
    return absl::InvalidArgumentError("--tts-model is a VITS checkpoint: give it with --tts vits");
  }
  if (engine.needs_model_dir && (!voice.voice_zh.empty() || !voice.voice_en.empty())) {
    return absl::InvalidArgumentError("--voice-zh / --voice-en choose espeak-ng voices; a vits checkpoint has one voice");
  }
  if (voice.rate < 0.5 || voice.rate > 2.0) {
    return absl::InvalidArgumentError(absl::StrFormat("--rate %.2f is outside 0.5..2", voice.rate));
  }
  return absl::OkStatus();
}

absl::Status ValidateLookConfig(const LookConfig& look) {
  if (absl::Status fps = CheckLiveFps(look.fps); !fps.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--fps ", look.fps, " ", fps.message()));
  }
  if (look.renderer != "auto" && look.renderer != "cpu" && look.renderer != "cuda") {
    return absl::InvalidArgumentError(absl::StrCat("--renderer ", look.renderer, ": must be auto, cpu or cuda"));
  }
  return absl::OkStatus();
}

absl::Status ValidateOutputsConfig(const OutputsConfig& outputs) {
  if (outputs.destinations.empty()) {
    return absl::InvalidArgumentError("no output: give --out FILE.mp4, hls:DIR, rtmp://... or srt://... (repeatable)");
  }
  if (outputs.crf < 0 || outputs.crf > 51) {
    return absl::InvalidArgumentError(absl::StrCat("--crf ", outputs.crf, " is outside 0..51"));
  }
  if (outputs.bitrate_kbps < 100 || outputs.bitrate_kbps > 100'000) {
    return absl::InvalidArgumentError(absl::StrCat("--bitrate ", outputs.bitrate_kbps, " is outside 100..100000 kbit/s"));
  }
  if (outputs.encoder_threads < 0 || outputs.encoder_threads > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat("--encoder-threads ", outputs.encoder_threads, " is outside 0..64 (0: automatic)"));
  }
  if (outputs.segment_minutes < 0 || outputs.segment_minutes > kMaxSegmentMinutes) {
    return absl::InvalidArgumentError(absl::StrCat("--segment-minutes ", outputs.segment_minutes, " is outside 1..",
                                                   kMaxSegmentMinutes, " (0: one MP4 file)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateTimingConfig(const TimingConfig& timing) {
  if (timing.max_lag < MediaTime::Millis(500) || timing.max_lag > MediaTime::Seconds(120)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max-lag %.1f s is outside 0.5..120 s", timing.max_lag.seconds()));
  }
  if (timing.max_speedup < 1.0 || timing.max_speedup > 2.0) {
    return absl::InvalidArgumentError(absl::StrFormat("--max-speedup %.2f is outside 1..2", timing.max_speedup));
  }
  return absl::OkStatus();
}

absl::Status ValidateWatchdogConfig(const WatchdogConfig& config) {
  if (!config.enabled) return absl::OkStatus();
  if (absl::Status s = CheckPressureLimits(config.limits); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--watch-lag/--watch-memory: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status ValidateLiveOptions(const LiveOptions& options) {
  LC_RETURN_IF_ERROR(ValidateInputConfig(options.input));
  LC_RETURN_IF_ERROR(ValidateWatchdogConfig(options.watchdog));
  LC_RETURN_IF_ERROR(ValidateOutputsConfig(options.outputs));
  if (options.source == options.target) {
    return absl::InvalidArgumentError(absl::StrCat("--source and --target are both ",
                                                   std::string(LanguageCode(options.source)),
                                                   ": live interprets between zh and en"));
  }
  LC_RETURN_IF_ERROR(ValidateTranslationConfig(options.translation));
  LC_RETURN_IF_ERROR(ValidateVoiceConfig(options.voice));
  LC_ASSIGN_OR_RETURN(const RecognizerChoice asr,
                      ValidateRecognitionConfig(options.recognition, options.source,
                                                /*follows_script=*/!options.translation.script_path.empty()));
  // What the parts must agree on.
  const bool any_neural = AnyNeuralEngine(EngineRole::kRecognizer, {asr.engine}) ||
                          AnyNeuralEngine(EngineRole::kVoice, {options.voice.engine}) ||
                          AnyNeuralEngine(EngineRole::kTranslator, options.translation.engines);
  if (options.neural.given() && !any_neural) {
    return absl::InvalidArgumentError(
        "--device and --dtype place the neural engines: use them with --asr whisper, --engine marian or --tts vits");
  }
  if (options.look.picture_in_picture &&
      (options.input.path == "-" || AudioFileReader::IsUrl(options.input.path))) {
    return absl::InvalidArgumentError(
        "--pip shows the video of a media file given as --in; stdin and network sources are audio only here");
  }
  if (options.translation.control_path == "-" && options.input.path == "-") {
    return absl::InvalidArgumentError(
        "--control - reads stdin, which --in - uses for the host's audio: give --control a file or FIFO");
  }
  LC_RETURN_IF_ERROR(ValidateLookConfig(options.look));
  return ValidateTimingConfig(options.timing);
}

}  // namespace lingcast
