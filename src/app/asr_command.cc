#include "app/asr_command.h"

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/whisper_recognizer.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/audio_decoder.h"
#include "audio/raw_pcm_reader.h"
#include "core/status.h"
#include "media/language.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

constexpr MediaTime kReadChunk = MediaTime::Millis(100);

// Feeds the VAD's utterances to one recognizer session and prints what it hears.
class AsrPrinter {
 public:
  AsrPrinter(const AsrCommandOptions& options, std::unique_ptr<AsrSession> session, std::ostream& out)
      : options_(options), session_(std::move(session)), out_(out) {}

  absl::Status Handle(const VadEvent& event) {
    switch (event.type) {
      case VadEvent::Type::kSpeechStart:
        speech_start_ = event.time;
        audio_since_partial_ = MediaTime::Zero();
        last_partial_text_.clear();
        return absl::OkStatus();
      case VadEvent::Type::kSpeechAudio: {
        LC_RETURN_IF_ERROR(session_->AcceptAudio(event.audio, event.audio_start));
        if (!options_.partials) return absl::OkStatus();
        audio_since_partial_ += event.audio.duration();
        if (audio_since_partial_ < options_.partial_interval) return absl::OkStatus();
        audio_since_partial_ = MediaTime::Zero();
        std::optional<AsrHypothesis> partial = session_->Partial();
        if (!partial || partial->text == last_partial_text_) return absl::OkStatus();
        last_partial_text_ = partial->text;
        partial->start = speech_start_;
        Print(*partial);
        return absl::OkStatus();
      }
      case VadEvent::Type::kSpeechEnd: {
        LC_ASSIGN_OR_RETURN(AsrHypothesis final, session_->Finish());
        if (final.text.empty()) return absl::OkStatus();
        final.start = speech_start_;
        // The VAD's end is the end of the last voiced frame; a word the recognizer
        // heard running on into the hangover still belongs inside the final.
        final.end = std::max(event.time, speech_start_);
        if (!final.words.empty()) final.end = std::max(final.end, final.words.back().end);
        Print(final);
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

 private:
  void Print(const AsrHypothesis& hyp) {
    const char* type = hyp.final ? "final" : "partial";
    if (!options_.json) {
      out_ << "[" << FormatAsrTime(hyp.start) << "-" << FormatAsrTime(hyp.end) << "] " << type << ": " << hyp.text
           << std::endl;
      return;
    }
    nlohmann::json line = {{"type", type},
                           {"text", hyp.text},
                           {"start_ms", hyp.start.millis()},
                           {"end_ms", hyp.end.millis()},
                           {"language", std::string(LanguageCode(hyp.language))}};
    if (!hyp.final) line["stable_chars"] = hyp.stable_prefix_chars;  // text[0, n) will not change
    if (hyp.final) {
      nlohmann::json words = nlohmann::json::array();
      for (const AsrWord& word : hyp.words) {
        words.push_back({{"word", word.text},
                         {"start_ms", word.start.millis()},
                         {"end_ms", word.end.millis()},
                         {"confidence", std::round(word.confidence * 1000) / 1000}});
      }
      line["words"] = std::move(words);
    }
    out_ << line.dump() << std::endl;
  }

  const AsrCommandOptions& options_;
  std::unique_ptr<AsrSession> session_;
  std::ostream& out_;
  MediaTime speech_start_;
  MediaTime audio_since_partial_;
  std::string last_partial_text_;
};

// What each recognizer takes from the command's options: --engine whisper a
// checkpoint on libtorch, from the neural plug-in (app/neural_plugin.h,
// app/neural_plugin_engines.h); pocketsphinx its embedded model.
absl::StatusOr<RecognizerSettings> AsrRecognizerSettings(const AsrCommandOptions& options,
                                                         const RecognizerChoice& recognizer, Logger& logger) {
  RecognizerSettings settings;
  WhisperPluginRequest& request = settings.whisper;
  request.model_dir = recognizer.model_dir;
  request.language = options.language == "auto" ? "" : options.language;
  request.translate = options.task == "translate";
  request.quantize = options.quantize;
  request.device = options.neural.device;
  request.dtype = options.neural.dtype;
  request.logger = &logger;  // --log-level debug: each partial decode's time
  LC_ASSIGN_OR_RETURN(settings.zh_script, ParseZhScriptFlag(options.zh_script));
  PocketsphinxOptions& engine_options = settings.pocketsphinx;
  engine_options.language = Language::kEn;  // ResolveRecognizer took pocketsphinx for English only
  engine_options.script_path = options.script_path;
  engine_options.debug_log = options.debug_log;
  engine_options.logger = &logger;
  return settings;
}

}  // namespace

std::string FormatAsrTime(MediaTime time) {
  const int64_t centis = std::max<int64_t>(0, time.micros()) / 10'000;
  const int64_t hours = centis / 360'000, minutes = centis / 6000 % 60, seconds = centis / 100 % 60;
  if (hours > 0) return absl::StrFormat("%d:%02d:%02d.%02d", hours, minutes, seconds, centis % 100);
  return absl::StrFormat("%02d:%02d.%02d", minutes, seconds, centis % 100);
}

absl::Status RunAsrCommand(const AsrCommandOptions& options, std::istream& stdin_stream, std::ostream& out,
                           Logger& logger) {
  std::optional<Language> language;  // nullopt: detected per utterance (whisper)
  if (options.language != "auto") {
    LC_ASSIGN_OR_RETURN(language, ParseLanguage(options.language));
  }
  LC_RETURN_IF_ERROR(ParseZhScriptFlag(options.zh_script).status());
  LC_ASSIGN_OR_RETURN(const RecognizerChoice recognizer,
                      ResolveRecognizer(kUsedByAsrCommand, options.engine, options.model_dir, language, "--lang",
                                        /*follows_script=*/!options.script_path.empty()));
  logger.Info("asr", "recognizer", {{"engine", recognizer.engine}, {"why", recognizer.reason}});
  const bool whisper = FindEngine(EngineRole::kRecognizer, recognizer.engine)->neural;
  if (whisper && options.task != "transcribe" && options.task != "translate") {
    return absl::InvalidArgumentError(absl::StrCat("unknown --task \"", options.task, "\" (use transcribe or translate)"));
  }
  if (options.quantize != "none" && options.quantize != "int8") {
    return absl::InvalidArgumentError(absl::StrCat("unknown --quantize \"", options.quantize, "\" (use none or int8)"));
  }
  if (!whisper && options.quantize != "none") {
    return absl::InvalidArgumentError("--quantize applies to --engine whisper only (pocketsphinx has no neural weights)");
  }
  if (!whisper && options.neural.given()) {
    return absl::InvalidArgumentError("--device and --dtype apply to --engine whisper only (pocketsphinx runs on the CPU)");
  }
  if (options.input.empty()) return absl::InvalidArgumentError("no input: give a media file, or - for raw PCM on stdin");

  // The input first: a bad file fails before a model loads.
  std::optional<AudioFileReader> file;
  std::optional<RawPcmReader> raw;
  std::function<absl::StatusOr<bool>(AudioBuffer&)> read;
  if (options.input == "-") {
    LC_ASSIGN_OR_RETURN(raw, RawPcmReader::Create(stdin_stream, RawPcmConfig{}, "-"));
    read = [&raw](AudioBuffer& chunk) { return raw->Read(chunk, kReadChunk); };
  } else {
    LC_ASSIGN_OR_RETURN(file, AudioFileReader::Open(options.input, kAsrSampleRate));
    read = [&file](AudioBuffer& chunk) { return file->Read(chunk, kReadChunk); };
  }

  LC_ASSIGN_OR_RETURN(const RecognizerSettings settings, AsrRecognizerSettings(options, recognizer, logger));
  LC_ASSIGN_OR_RETURN(const std::shared_ptr<AsrModel> model, MakeRecognizer(recognizer.engine, settings));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<AsrSession> session, model->NewSession());
  LC_ASSIGN_OR_RETURN(VoiceActivityDetector vad, VoiceActivityDetector::Create(options.vad));
  AsrPrinter printer(options, std::move(session), out);

  AudioBuffer chunk;
  while (true) {
    LC_ASSIGN_OR_RETURN(const bool more, read(chunk));
    if (!more) break;
    LC_ASSIGN_OR_RETURN(std::vector<VadEvent> events, vad.Push(chunk));
    for (const VadEvent& event : events) LC_RETURN_IF_ERROR(printer.Handle(event));
  }
  for (const VadEvent& event : vad.Flush()) LC_RETURN_IF_ERROR(printer.Handle(event));

  if (file) {
    const DecodeReport& report = file->report();
    if (report.corrupt_packets > 0 || report.truncated) {
      logger.Warn("asr", "the input is damaged: recognized what could be decoded",
                  {{"input", options.input},
                   {"corrupt_packets", absl::StrCat(report.corrupt_packets)},
                   {"truncated", report.truncated ? "true" : "false"}});
    }
  }
  if (raw && raw->dropped_trailing_bytes() > 0) {
    logger.Warn("asr", "stdin ended inside a sample; the partial sample was dropped",
                {{"bytes", absl::StrCat(raw->dropped_trailing_bytes())}});
  }
  return absl::OkStatus();
}

Command AddAsrCommand(CLI::App& app) {
  CLI::App* asr_cmd = app.add_subcommand(
      "asr", "Recognize speech (partial and final hypotheses with times) in a media file or raw PCM on stdin");
  auto flags = std::make_shared<AsrCommandOptions>();
  AsrCommandOptions& asr_options = *flags;
  asr_cmd->add_option("input", asr_options.input, "Media file, or - for raw s16le 16 kHz mono on stdin")->required();
  asr_cmd->add_option("--lang,--language", asr_options.language,
                      "Language spoken: en, zh (whisper only), or auto (whisper: detected per utterance)")
      ->capture_default_str();
  asr_cmd->add_option("--engine,--asr", asr_options.engine,
                      "auto (Whisper base when installed, else pocketsphinx), whisper (en, zh, auto; --model or the "
                      "installed base), or pocketsphinx (embedded, English)")
      ->capture_default_str();
  asr_cmd->add_option("--model,--asr-model", asr_options.model_dir,
                      "Whisper checkpoint directory (default: the installed Whisper base; docs/models.md)");
  asr_cmd->add_option("--task", asr_options.task, "whisper: transcribe, or translate (English text)")->capture_default_str();
  asr_cmd->add_option("--quantize", asr_options.quantize,
                      "whisper: none, or int8 (linear weights as int8 with per-row scales; docs/models.md)")
      ->capture_default_str();
  asr_cmd->add_option("--device", asr_options.neural.device, kDeviceFlagHelp)->capture_default_str();
  asr_cmd->add_option("--dtype", asr_options.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  asr_cmd->add_option("--script", asr_options.script_path, "Script (docs/script-format.md) the speaker follows");
  asr_cmd->add_flag("--json", asr_options.json, "One JSON object per line (type, text, start_ms, end_ms, words)");
  asr_cmd->add_flag("--partials,!--no-partials", asr_options.partials,
                    "Print partial hypotheses while speech goes on (--no-partials: finals only, each utterance "
                    "decoded once, for an offline transcript)")
      ->capture_default_str();
  asr_cmd->add_option("--zh-script", asr_options.zh_script,
                      "whisper: Mandarin in simplified or traditional characters")
      ->capture_default_str();
  return {asr_cmd, [flags](Logger& logger) {
            flags->debug_log = logger.Enabled(LogLevel::kDebug);
            return ReportCommandStatus(RunAsrCommand(*flags, std::cin, std::cout, logger));
          }};
}

}  // namespace lingcast
