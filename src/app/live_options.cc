#include "app/live_options.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/engine_registry.h"
#include "app/translation_setup.h"
#include "app/whisper_recognizer.h"
#include "audio/audio_decoder.h"
#include "core/status.h"

namespace lingcast {

absl::StatusOr<LiveClock> ParseLiveClock(const std::string& text) {
  if (text == "realtime") return LiveClock::kRealtime;
  if (text == "simulated") return LiveClock::kSimulated;
  return absl::InvalidArgumentError(
      absl::StrCat("--clock: unknown clock \"", text, "\" (expected realtime or simulated)"));
}

absl::Status ValidateLiveOptions(const LiveOptions& options) {
  if (options.input.empty()) {
    return absl::InvalidArgumentError("no input: give --in FILE (played at real time) or --in - (raw PCM on stdin)");
  }
  if (options.outputs.empty()) {
    return absl::InvalidArgumentError("no output: give --out FILE.mp4, hls:DIR, rtmp://... or srt://... (repeatable)");
  }
  if (options.source == options.target) {
    return absl::InvalidArgumentError(absl::StrCat("--source and --target are both ",
                                                   std::string(LanguageCode(options.source)),
                                                   ": live interprets between zh and en"));
  }
  LC_RETURN_IF_ERROR(CheckMarianModelFlag(options.engines, options.marian_model_dir));
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kVoice, options.tts_engine, kUsedByLive, "--tts"));
  if (options.tts_engine == "vits" && options.tts_model_dir.empty()) {
    return absl::InvalidArgumentError("--tts vits needs a checkpoint directory: give --tts-model DIR (docs/models.md)");
  }
  if (options.tts_engine != "vits" && !options.tts_model_dir.empty()) {
    return absl::InvalidArgumentError("--tts-model is a VITS checkpoint: give it with --tts vits");
  }
  if (options.tts_engine == "vits" && (!options.voice_zh.empty() || !options.voice_en.empty())) {
    return absl::InvalidArgumentError("--voice-zh / --voice-en choose espeak-ng voices; a vits checkpoint has one voice");
  }
  LC_ASSIGN_OR_RETURN(const RecognizerChoice asr,
                      ResolveRecognizer(options.asr_engine, options.asr_model_dir, options.source, "--source",
                                        /*follows_script=*/!options.script_path.empty()));
  LC_RETURN_IF_ERROR(ParseZhScriptFlag(options.zh_script).status());
  const bool any_neural = asr.engine == "whisper" || options.tts_engine != "espeak" ||
                          std::find(options.engines.begin(), options.engines.end(), "marian") != options.engines.end();
  if (options.neural.given() && !any_neural) {
    return absl::InvalidArgumentError(
        "--device and --dtype place the neural engines: use them with --asr whisper, --engine marian or --tts vits");
  }
  if (options.picture_in_picture && (options.input == "-" || AudioFileReader::IsUrl(options.input))) {
    return absl::InvalidArgumentError(
        "--pip shows the video of a media file given as --in; stdin and network sources are audio only here");
  }
  if (options.control_in_process && !options.control_path.empty()) {
    return absl::InvalidArgumentError("--control: this session takes its corrections from the API");
  }
  if (options.control_path == "-" && options.input == "-") {
    return absl::InvalidArgumentError(
        "--control - reads stdin, which --in - uses for the host's audio: give --control a file or FIFO");
  }
  if (options.fps < 1 || options.fps > 120) {
    return absl::InvalidArgumentError(absl::StrCat("--fps ", options.fps, " is outside 1..120"));
  }
  if (options.rate < 0.5 || options.rate > 2.0) {
    return absl::InvalidArgumentError(absl::StrFormat("--rate %.2f is outside 0.5..2", options.rate));
  }
  if (options.max_lag < MediaTime::Millis(500) || options.max_lag > MediaTime::Seconds(120)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max-lag %.1f s is outside 0.5..120 s", options.max_lag.seconds()));
  }
  if (options.max_speedup < 1.0 || options.max_speedup > 2.0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--max-speedup %.2f is outside 1..2", options.max_speedup));
  }
  if (options.source_timeout < MediaTime::Millis(100)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--source-timeout %.2f s is too short (at least 0.1 s)", options.source_timeout.seconds()));
  }
  if (options.crf < 0 || options.crf > 51) {
    return absl::InvalidArgumentError(absl::StrCat("--crf ", options.crf, " is outside 0..51"));
  }
  if (options.bitrate_kbps < 100 || options.bitrate_kbps > 100'000) {
    return absl::InvalidArgumentError(absl::StrCat("--bitrate ", options.bitrate_kbps, " is outside 100..100000 kbit/s"));
  }
  return absl::OkStatus();
}

}  // namespace lingcast
