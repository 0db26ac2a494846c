#include "app/translate_command.h"

#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "app/engine_registry.h"
#include "core/status.h"
#include "nlohmann/json.hpp"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr size_t kContextLines = 3;

}  // namespace

absl::StatusOr<TranslateSummary> RunTranslateCommand(const TranslateCommandOptions& options, std::istream& in,
                                                     std::ostream& out, Clock& clock, Logger& logger) {
  if (options.translation.from == options.translation.to) {
    return absl::InvalidArgumentError("--from and --to are the same language");
  }
  // translate's --device is Marian's own; live and follow share theirs with the
  // recognizer and the voice, so only here does it need a neural translator.
  if (options.translation.marian_device.given() &&
      !AnyNeuralEngine(EngineRole::kTranslator, options.translation.engines)) {
    return absl::InvalidArgumentError("--device and --dtype apply to the marian engine only: add marian to --engine");
  }
  LC_ASSIGN_OR_RETURN(TranslationStack stack, BuildTranslationStack(options.translation, clock, logger));
  TranslateSummary summary;
  std::deque<TranslatedLine> context;
  std::string line;
  while (std::getline(in, line)) {
    ++summary.lines;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (const int64_t bad = FindInvalidUtf8(line); bad >= 0) {
      return absl::InvalidArgumentError(absl::StrCat("invalid UTF-8 on input line ", summary.lines, ", column ",
                                                     LineColumnAt(line, bad).column,
                                                     "; lingcast translate reads UTF-8 text"));
    }
    TranslationRequest request;
    request.source = line;
    request.from = options.translation.from;
    request.to = options.translation.to;
    request.context.assign(context.begin(), context.end());
    request.glossary = stack.glossary.get();
    absl::StatusOr<Translation> result = absl::NotFoundError("empty line");
    const bool empty = line.find_first_not_of(" \t") == std::string::npos;
    if (!empty) result = stack.chain->Translate(request);
    if (result.ok()) {
      ++summary.translated;
      context.push_back({line, result->text});
      if (context.size() > kContextLines) context.pop_front();
    } else if (!empty) {
      ++summary.untranslated;
      if (!absl::IsNotFound(result.status())) {
        logger.Warn("translate", "no translation", {{"line", std::to_string(summary.lines)},
                                                   {"error", std::string(result.status().message())}});
      }
    }
    if (options.json) {
      nlohmann::json record = {{"line", summary.lines}, {"source", line}};
      if (result.ok()) {
        record["target"] = result->text;
        record["engine"] = result->engine;
        record["score"] = result->score;
        record["confidence"] = result->confidence;
        record["origin"] = result->origin;
        record["glossary_fixed"] = result->glossary_fixed;
        if (!result->glossary_missing.empty()) record["glossary_missing"] = result->glossary_missing;
      } else {
        record["target"] = nullptr;
        record["engine"] = nullptr;
        record["score"] = 0;
        record["confidence"] = 0;
        if (!empty) record["error"] = std::string(result.status().message());
      }
      out << record.dump() << '\n';
    } else {
      out << (result.ok() ? result->text : std::string()) << '\n';
    }
    out.flush();
  }
  if (in.bad()) return absl::DataLossError("could not read stdin");
  if (summary.untranslated > 0) {
    logger.Warn("translate", "some lines had no translation (an empty line was written for each)",
                {{"lines", std::to_string(summary.untranslated)}});
  }
  return summary;
}

namespace {

struct TranslateFlags {
  TranslateCommandOptions options;
  std::string from = "zh", to = "en";
  std::vector<std::string> engines = {"tm"};
};

int RunFromFlags(TranslateFlags& flags, Logger& logger) {
  absl::StatusOr<Language> from = ParseLanguage(flags.from);
  if (!from.ok()) return ReportCommandStatus(from.status());
  absl::StatusOr<Language> to = ParseLanguage(flags.to);
  if (!to.ok()) return ReportCommandStatus(to.status());
  absl::StatusOr<std::vector<std::string>> engines = ParseEngines(flags.engines, kUsedByTranslate);
  if (!engines.ok()) return ReportCommandStatus(engines.status());
  TranslateCommandOptions& translate_options = flags.options;
  translate_options.translation.from = *from;
  translate_options.translation.to = *to;
  translate_options.translation.engines = *engines;
  SystemClock clock;
  return ReportCommandStatus(RunTranslateCommand(translate_options, std::cin, std::cout, clock, logger).status());
}

}  // namespace

Command AddTranslateCommand(CLI::App& app) {
  CLI::App* translate_cmd = app.add_subcommand(
      "translate", "Translate lines on stdin to stdout (translation memory, glossary, LLM server)");
  auto flags = std::make_shared<TranslateFlags>();
  TranslateCommandOptions& translate_options = flags->options;
  std::string& translate_from = flags->from;
  std::string& translate_to = flags->to;
  std::vector<std::string>& translate_engines = flags->engines;
  translate_cmd->add_option("--from", translate_from, "Language of the input lines: zh or en")->capture_default_str();
  translate_cmd->add_option("--to", translate_to, "Language of the translations: en or zh")->capture_default_str();
  translate_cmd->add_option("--tm", translate_options.translation.memory_paths,
                            "Translation memory: a bilingual script, or a .tsv/.csv of SOURCE,TARGET pairs "
                            "(repeatable)");
  translate_cmd->add_option("--glossary", translate_options.translation.glossary_path,
                            "Terms every translation must use: CHINESE<TAB>ENGLISH per line");
  translate_cmd->add_option("--corrections", translate_options.translation.corrections_path,
                            "Corrections file applied on top of the memory and glossary");
  translate_cmd->add_option("--engine", translate_engines, "Engines in order of preference: tm, llm, marian")
      ->capture_default_str();
  translate_cmd->add_option("--model", translate_options.translation.marian_model_dir,
                            "Marian (OPUS-MT) checkpoint directory for --engine marian (docs/models.md)");
  translate_cmd->add_option("--quantize", translate_options.translation.marian_quantize,
                            "marian: none, or int8 (linear weights as int8 with per-row scales; docs/models.md)")
      ->capture_default_str();
  translate_cmd->add_option("--device", translate_options.translation.marian_device.device, kDeviceFlagHelp)
      ->capture_default_str();
  translate_cmd->add_option("--dtype", translate_options.translation.marian_device.dtype, kDtypeFlagHelp)
      ->capture_default_str();
  translate_cmd->add_option("--threshold", translate_options.translation.threshold,
                            "Fuzzy match score (0-1] the memory needs")
      ->capture_default_str();
  translate_cmd->add_option("--llm-endpoint", translate_options.translation.llm.endpoint,
                            "OpenAI-compatible server, e.g. http://127.0.0.1:8080 (default: $LINGCAST_LLM_ENDPOINT)");
  translate_cmd->add_option("--llm-model", translate_options.translation.llm.model,
                            "Model name sent to the server (default: $LINGCAST_LLM_MODEL)");
  translate_cmd->add_flag("--json", translate_options.json,
                          "One JSON object per line: source, target, engine, score, confidence");
  return {translate_cmd, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
