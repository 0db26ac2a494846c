#include "app/follow_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/asr_command.h"
#include "app/whisper_recognizer.h"
#include "asr/pocketsphinx_engine.h"
#include "audio/audio_decoder.h"
#include "core/status.h"
#include "media/language.h"
#include "mt/speech_follower.h"
#include "nlohmann/json.hpp"
#include "text/normalize_en.h"
#include "text/script.h"

namespace lingcast {
namespace {

constexpr MediaTime kReadChunk = MediaTime::Millis(100);
constexpr size_t kContextLines = 3;

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Follower decisions in, records out: decisions are held until their
// utterance ends, so a record can carry everything the recognizer heard.
class Follower {
 public:
  Follower(TranslationStack& fallback, Language from, Language to,
           const std::function<void(const FollowRecord&)>& on_record, FollowSummary& summary)
      : fallback_(fallback), from_(from), to_(to), on_record_(on_record), summary_(summary) {}

  void Handle(FollowEvent event) {
    switch (event.type) {
      case FollowEvent::Type::kSpeechStart:
        speech_start_ = event.utterance_start;
        pending_.clear();
        partials_.clear();
        return;
      case FollowEvent::Type::kPartial:
        partials_.emplace_back(event.decided_at, std::move(event.text));
        return;
      case FollowEvent::Type::kDecision:
        pending_.push_back(std::move(event.decision));
        return;
      case FollowEvent::Type::kUtteranceEnd: {
        ++summary_.utterances;
        std::vector<FollowRecord> records;
        for (FollowDecision& decision : pending_) {
          records.push_back(Record(std::move(decision), event.text, event.utterance_end));
        }
        pending_.clear();
        for (const FollowRecord& record : records) {
          on_record_(record);
          summary_.records.push_back(record);
        }
        return;
      }
    }
  }

 private:
  FollowRecord Record(FollowDecision decision, const std::string& final_text, MediaTime end) {
    FollowRecord record;
    record.utterance_start = speech_start_;
    record.utterance_end = std::max(end, speech_start_);
    record.partials = partials_;
    // One decision for the utterance: the whole final text is what it heard.
    record.source_text = pending_.size() == 1 ? final_text : decision.heard;
    if (!decision.off_script) {
      ++summary_.committed_lines;
      record.translation = decision.translation;
      record.engine = record.translation.empty() ? "" : "script";
    } else {
      ++summary_.off_script;
      TranslationRequest request;
      request.source = record.source_text;
      request.from = from_;
      request.to = to_;
      request.context.assign(context_.begin(), context_.end());
      request.glossary = fallback_.glossary.get();
      absl::StatusOr<Translation> translated = fallback_.chain->Translate(request);
      if (translated.ok()) {
        record.translation = translated->text;
        record.engine = translated->engine;
      }
    }
    if (!record.translation.empty()) {
      context_.push_back({record.source_text, record.translation});
      if (context_.size() > kContextLines) context_.erase(context_.begin());
    }
    record.decision = std::move(decision);
    return record;
  }

  TranslationStack& fallback_;
  const Language from_, to_;
  const std::function<void(const FollowRecord&)>& on_record_;
  FollowSummary& summary_;
  MediaTime speech_start_;
  std::vector<FollowDecision> pending_;
  std::vector<std::pair<MediaTime, std::string>> partials_;
  std::vector<TranslatedLine> context_;
};

}  // namespace

std::vector<FollowerLine> FollowerLinesFromScript(const Script& script, Language heard) {
  std::vector<FollowerLine> lines;
  for (const ScriptItem& item : script.items) {
    const ScriptLine* line = std::get_if<ScriptLine>(&item);
    if (line == nullptr) continue;
    const TextSegment* source = nullptr;
    const TextSegment* target = nullptr;
    for (const TextSegment& segment : line->segments) {
      if (segment.language == heard && source == nullptr) source = &segment;
      if (segment.language != heard && target == nullptr) target = &segment;
    }
    if (source == nullptr) continue;
    FollowerLine follower_line;
    follower_line.line_number = line->line_number;
    follower_line.source = source->text;
    if (heard == Language::kEn) follower_line.spoken = NormalizeEnglish(source->text).text;
    if (target != nullptr) follower_line.translation = target->text;
    lines.push_back(std::move(follower_line));
  }
  return lines;
}

absl::StatusOr<FollowSummary> RunFollow(const FollowCommandOptions& options, const AudioSource& read,
                                        const std::function<void(const FollowRecord&)>& on_record, Logger& logger) {
  if (options.script_path.empty()) return absl::InvalidArgumentError("follow needs a script: give --script FILE");
  LC_ASSIGN_OR_RETURN(const Script script, ParseScriptFile(options.script_path));
  LC_RETURN_IF_ERROR(CheckMarianModelFlag(options.fallback_engines, options.marian_model_dir));
  LC_ASSIGN_OR_RETURN(const Language heard, ParseLanguage(options.language));
  LC_ASSIGN_OR_RETURN(const ZhScript zh_script, ParseZhScriptFlag(options.zh_script));
  LC_ASSIGN_OR_RETURN(const RecognizerChoice recognizer,
                      ResolveRecognizer(kUsedByFollow, options.asr_engine, options.asr_model_dir, heard, "--lang",
                                        /*follows_script=*/true));
  logger.Info("follow", "recognizer", {{"engine", recognizer.engine}, {"why", recognizer.reason}});
  if (options.neural.given() && !AnyNeuralEngine(EngineRole::kRecognizer, {recognizer.engine}) &&
      !AnyNeuralEngine(EngineRole::kTranslator, options.fallback_engines)) {
    return absl::InvalidArgumentError(
        "--device and --dtype place the neural engines: use them with --asr whisper or --engine marian");
  }
  RecognizerSettings settings;
  WhisperPluginRequest& request = settings.whisper;
  request.model_dir = recognizer.model_dir;
  request.int8_on_cpu = true;  // as live: int8 streams faster on the CPU, same words
  request.language = std::string(LanguageCode(heard));
  request.device = options.neural.device;
  request.dtype = options.neural.dtype;
  request.logger = &logger;
  settings.zh_script = zh_script;
  PocketsphinxOptions& engine_options = settings.pocketsphinx;
  engine_options.script_path = options.script_path;
  engine_options.script_weight = options.script_weight;
  engine_options.decoder_flags = options.decoder_flags;
  engine_options.script_vocabulary = options.script_vocabulary;
  engine_options.alternatives_beam = options.alternatives_beam;
  engine_options.dither = options.dither;
  engine_options.debug_log = options.debug_log;
  engine_options.logger = &logger;
  LC_ASSIGN_OR_RETURN(const std::shared_ptr<AsrModel> model, MakeRecognizer(recognizer.engine, settings));
  const Language target = heard == Language::kEn ? Language::kZh : Language::kEn;
  std::vector<FollowerLine> lines = FollowerLinesFromScript(script, heard);
  if (lines.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(options.script_path, " has no line in ",
                                                   std::string(LanguageCode(heard)), " to follow"));
  }

  TranslationOptions fallback_options;
  fallback_options.from = heard;
  fallback_options.to = target;
  fallback_options.memory_paths = {options.script_path};
  fallback_options.engines = options.fallback_engines;
  fallback_options.llm = options.llm;
  fallback_options.marian_model_dir = options.marian_model_dir;
  fallback_options.marian_device = options.neural;
  SystemClock clock;
  LC_ASSIGN_OR_RETURN(TranslationStack fallback, BuildTranslationStack(fallback_options, clock, logger));

  SpeechFollowerOptions follower_options;
  follower_options.recognizer.vad = options.vad;
  follower_options.recognizer.partial_interval = options.partial_interval;
  follower_options.follower = options.follower;
  follower_options.score_openings = options.score_openings;
  // Lines and what is heard in one spelling (mt/match_text.h), as the memory has them.
  follower_options.spelling = fallback.memory->spelling(heard);
  LC_ASSIGN_OR_RETURN(SpeechFollower hearing, SpeechFollower::Create(*model, std::move(lines), follower_options));
  FollowSummary summary;
  Follower follower(fallback, heard, target, on_record, summary);
  AudioBuffer chunk;
  bool more = true;
  while (more) {
    LC_ASSIGN_OR_RETURN(more, read(chunk));
    const auto start = std::chrono::steady_clock::now();
    LC_ASSIGN_OR_RETURN(std::vector<FollowEvent> events, more ? hearing.Push(chunk) : hearing.Flush());
    const bool hypothesis = std::any_of(events.begin(), events.end(), [](const FollowEvent& e) {
      return e.type == FollowEvent::Type::kPartial || e.type == FollowEvent::Type::kUtteranceEnd;
    });
    for (FollowEvent& event : events) follower.Handle(std::move(event));
    // The cost of a hypothesis: reading it from the recognizer, following it
    // and translating off-script speech.
    if (hypothesis) summary.hypothesis_ms.push_back(MillisSince(start));
  }
  summary.acoustic_check_ms = hearing.acoustic_check_cpu_ms();
  summary.opening_score_ms = hearing.opening_score_cpu_ms();
  summary.opening_commits = hearing.opening_commits();
  return summary;
}

absl::StatusOr<FollowSummary> RunFollowCommand(const FollowCommandOptions& options, std::ostream& out,
                                               Logger& logger) {
  if (options.input.empty()) return absl::InvalidArgumentError("no input: give an audio or video file");
  // The input first: a bad file fails before a model loads.
  LC_ASSIGN_OR_RETURN(AudioFileReader file, AudioFileReader::Open(options.input, kAsrSampleRate));
  auto read = [&file](AudioBuffer& chunk) { return file.Read(chunk, kReadChunk); };
  auto print = [&](const FollowRecord& record) {
    out << (options.json ? FollowRecordJson(record) : FollowRecordLine(record)) << '\n';
    out.flush();
  };
  LC_ASSIGN_OR_RETURN(FollowSummary summary, RunFollow(options, read, print, logger));
  const DecodeReport& report = file.report();
  if (report.corrupt_packets > 0 || report.truncated) {
    logger.Warn("follow", "the input is damaged: followed what could be decoded", {{"input", options.input}});
  }
  return summary;
}

std::string FollowRecordJson(const FollowRecord& record) {
  const FollowDecision& d = record.decision;
  nlohmann::json json;
  json["line"] = d.off_script ? nlohmann::json(nullptr) : nlohmann::json(d.line_number);
  json["off_script"] = d.off_script;
  json["confidence"] = d.confidence;
  json["commit_time_ms"] = d.commit_time.millis();
  json["commit_point"] = d.commit_point ? nlohmann::json(*d.commit_point) : nlohmann::json(nullptr);
  json["at_endpoint"] = d.at_endpoint;
  // Set when the recognizer's score of the line's opening committed it (ScriptFollower::OnOpeningScores).
  json["opening_logp"] = d.opening_logp ? nlohmann::json(*d.opening_logp) : nlohmann::json(nullptr);
  json["source_text"] = record.source_text;
  json["translation"] = record.translation;
  json["engine"] = record.engine.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.engine);
  json["utterance_start_ms"] = record.utterance_start.millis();
  json["utterance_end_ms"] = record.utterance_end.millis();
  // What the recognizer heard as the utterance went on: why a line was decided when it was.
  json["partials"] = nlohmann::json::array();
  for (const auto& [at, text] : record.partials) json["partials"].push_back({{"at_ms", at.millis()}, {"text", text}});
  return json.dump();
}

std::string FollowRecordLine(const FollowRecord& record) {
  const FollowDecision& d = record.decision;
  std::string line;
  if (d.off_script) {
    line = absl::StrFormat("off script        at %s               %s", FormatAsrTime(d.commit_time),
                           record.source_text);
  } else {
    line = absl::StrFormat("line %-4d conf %.2f at %s (%3.0f%% heard) %s", d.line_number, d.confidence,
                           FormatAsrTime(d.commit_time), d.commit_point.value_or(1.0) * 100, record.source_text);
  }
  if (!record.translation.empty()) absl::StrAppend(&line, " => ", record.translation);
  return line;
}

namespace {

int RunFromFlags(FollowCommandOptions& follow_options, Logger& logger) {
  absl::StatusOr<std::vector<std::string>> engines = ParseEngines(follow_options.fallback_engines, kUsedByFollow);
  if (!engines.ok()) return ReportCommandStatus(engines.status());
  follow_options.fallback_engines = *engines;
  follow_options.debug_log = logger.Enabled(LogLevel::kDebug);
  absl::StatusOr<FollowSummary> summary = RunFollowCommand(follow_options, std::cout, logger);
  if (!summary.ok()) return ReportCommandStatus(summary.status());
  if (!follow_options.json) {
    std::fprintf(stderr, "follow: %d utterances, %d script lines (%d by an opening score), %d off script\n",
                 summary->utterances, summary->committed_lines, summary->opening_commits, summary->off_script);
    if (!summary->opening_score_ms.empty()) {
      std::vector<double> ms = summary->opening_score_ms;
      std::sort(ms.begin(), ms.end());
      std::fprintf(stderr, "follow: openings scored %zu times, CPU %.0f ms median, %.0f ms at most\n", ms.size(),
                   ms[ms.size() / 2], ms.back());
    }
  }
  return 0;
}

}  // namespace

Command AddFollowCommand(CLI::App& app) {
  CLI::App* follow_cmd = app.add_subcommand(
      "follow", "Which script line is being said, and when its translation could start (VAD, ASR, follower)");
  auto flags = std::make_shared<FollowCommandOptions>();
  FollowCommandOptions& follow_options = *flags;
  follow_cmd->add_option("input", follow_options.input, "Audio or video file of the host speaking")->required();
  follow_cmd->add_option("--script", follow_options.script_path, "Script the host follows (docs/script-format.md)")
      ->required();
  follow_cmd->add_option("--lang,--language", follow_options.language, "Language the host speaks: en, or zh (--asr whisper)")
      ->capture_default_str();
  follow_cmd->add_option("--asr", follow_options.asr_engine,
                         "Recognizer: auto (Whisper base when installed, else pocketsphinx), whisper (en and zh; "
                         "--asr-model or the installed base), or pocketsphinx (embedded, English)")
      ->capture_default_str();
  follow_cmd->add_option("--asr-model", follow_options.asr_model_dir,
                         "Whisper checkpoint directory (default: the installed Whisper base; docs/models.md)");
  follow_cmd->add_option("--engine", follow_options.fallback_engines,
                         "Engines for off-script speech: tm (fuzzy script match), llm, marian (--marian-model), or a list: tm,llm")
      ->capture_default_str();
  follow_cmd->add_option("--llm-endpoint", follow_options.llm.endpoint,
                         "OpenAI-compatible server for --engine llm (default: $LINGCAST_LLM_ENDPOINT)");
  follow_cmd->add_option("--llm-model", follow_options.llm.model, "Model name for --engine llm");
  follow_cmd->add_option("--marian-model", follow_options.marian_model_dir,
                         "Marian (OPUS-MT) checkpoint directory for --engine marian (docs/models.md)");
  follow_cmd->add_option("--device", follow_options.neural.device, kDeviceFlagHelp)->capture_default_str();
  follow_cmd->add_option("--dtype", follow_options.neural.dtype, kDtypeFlagHelp)->capture_default_str();
  follow_cmd->add_option("--zh-script", follow_options.zh_script,
                         "Mandarin from --asr whisper in simplified or traditional characters (either matches the script)")
      ->capture_default_str();
  follow_cmd->add_flag("--no-opening-scores{false}", follow_options.score_openings,
                       "Commit lines from the words heard only, not from Whisper's score of the expected line's opening "
                       "(docs/live.md)");
  follow_cmd->add_flag("--json", follow_options.json,
                       "One JSON object per decision: line, off_script, confidence, commit_time_ms, commit_point, "
                       "source_text, translation, partials (what was heard when)");
  return {follow_cmd, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
