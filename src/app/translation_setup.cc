#include "app/translation_setup.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "mt/tm_translator.h"
#include "text/script.h"
#include "app/engine_registry.h"
#include "app/neural_plugin.h"
#include "app/neural_plugin_engines.h"

namespace lingcast {
namespace {

bool IsPairFile(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return lower.size() >= s.size() && lower.compare(lower.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".tsv") || ends_with(".csv");
}

void LogWarnings(const std::vector<std::string>& warnings, Logger& logger) {
  constexpr size_t kShown = 10;  // a 100,000-line memory must not flood the terminal
  for (size_t i = 0; i < warnings.size() && i < kShown; ++i) logger.Warn("mt", warnings[i]);
  if (warnings.size() > kShown) {
    logger.Warn("mt", "more load warnings not shown", {{"count", std::to_string(warnings.size() - kShown)}});
  }
}


}  // namespace

absl::StatusOr<std::vector<std::string>> ParseEngines(const std::vector<std::string>& specs, EngineUse use) {
  std::vector<std::string> engines;
  for (const std::string& spec : specs) {
    for (absl::string_view piece : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
      std::string name(absl::StripAsciiWhitespace(piece));
      LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kTranslator, name, use, "translation engine"));
      if (std::find(engines.begin(), engines.end(), name) != engines.end()) {
        return absl::InvalidArgumentError(absl::StrCat("translation engine \"", name, "\" is listed twice"));
      }
      engines.push_back(std::move(name));
    }
  }
  if (engines.empty()) return absl::InvalidArgumentError("no translation engine given (use tm, llm or tm,llm)");
  return engines;
}

absl::Status CheckMarianModelFlag(const std::vector<std::string>& engines, const std::string& model_dir) {
  const bool marian = std::find(engines.begin(), engines.end(), "marian") != engines.end();  // --marian-model's own engine
  if (marian && model_dir.empty()) {
    return absl::InvalidArgumentError("--engine marian needs a checkpoint directory: give --marian-model DIR (docs/models.md)");
  }
  if (!marian && !model_dir.empty()) {
    return absl::InvalidArgumentError("--marian-model is for the marian engine: add marian to --engine");
  }
  return absl::OkStatus();
}

absl::StatusOr<TranslationStack> BuildTranslationStack(const TranslationOptions& options, Clock& clock,
                                                       Logger& logger) {
  if (options.threshold <= 0 || options.threshold > 1) {
    return absl::InvalidArgumentError(absl::StrCat("--threshold must be in (0, 1], not ", options.threshold));
  }
  if (options.marian_quantize != "none" && options.marian_quantize != "int8") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown --quantize \"", options.marian_quantize, "\" (use none or int8)"));
  }
  const bool neural = AnyNeuralEngine(EngineRole::kTranslator, options.engines);
  if (options.marian_quantize != "none" && !neural) {
    return absl::InvalidArgumentError("--quantize applies to the marian engine only: add marian to --engine");
  }
  TranslationStack stack;
  // Mandarin heard in Traditional characters still finds the script's Simplified
  // lines (and the other way round).
  std::shared_ptr<const ZhScriptConverter> to_simplified = options.to_simplified;
  if (to_simplified == nullptr && options.from == Language::kZh) {
    LC_ASSIGN_OR_RETURN(MatchSpelling spelling, MatchSpelling::Load(Language::kZh));
    to_simplified = spelling.to_simplified();
  }
  stack.memory = std::make_unique<TranslationMemory>(std::move(to_simplified));
  TmLoadReport report;
  for (const std::string& path : options.memory_paths) {
    if (IsPairFile(path)) {
      LC_RETURN_IF_ERROR(stack.memory->LoadFile(path, options.from, options.to, report));
    } else {
      LC_ASSIGN_OR_RETURN(Script script, ParseScriptFile(path));
      stack.memory->AddScript(script, report);
    }
  }
  LogWarnings(report.warnings, logger);
  if (!options.glossary_path.empty()) {
    std::vector<std::string> warnings;
    LC_ASSIGN_OR_RETURN(Glossary glossary, Glossary::LoadFile(options.glossary_path, &warnings));
    LogWarnings(warnings, logger);
    stack.glossary = std::make_unique<Glossary>(std::move(glossary));
  }
  if (!options.corrections_path.empty()) {
    LC_ASSIGN_OR_RETURN(CorrectionLog log, CorrectionLog::Open(options.corrections_path));
    log.ApplyTo(*stack.memory, stack.glossary.get());
    stack.corrections = std::move(log);
  }
  std::vector<std::unique_ptr<Translator>> engines;
  for (const std::string& name : options.engines) {
    if (FindEngine(EngineRole::kTranslator, name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown translation engine \"", name, "\""));
    }
    LC_ASSIGN_OR_RETURN(std::unique_ptr<Translator> engine, MakeTranslator(name, options, stack, clock, logger));
    engines.push_back(std::move(engine));
  }
  stack.chain = std::make_unique<TranslatorChain>(std::move(engines), clock);
  logger.Info("mt", "translation ready",
              {{"memory_entries", std::to_string(stack.memory->size())},
               {"glossary_terms", std::to_string(stack.glossary ? stack.glossary->size() : 0)},
               {"engines", stack.chain->name()}});
  return stack;
}

absl::StatusOr<std::unique_ptr<Translator>> MakeMemoryTranslator(const TranslationOptions& options,
                                                                 const TranslationStack& stack, Clock& /*clock*/,
                                                                 Logger& /*logger*/) {
  if (options.memory_paths.empty() && !stack.corrections) {
    return absl::InvalidArgumentError("the tm engine needs a translation memory: give --tm FILE (a script or a TSV/CSV of pairs)");
  }
  return std::unique_ptr<Translator>(std::make_unique<TmTranslator>(*stack.memory, options.threshold));
}

absl::StatusOr<std::unique_ptr<Translator>> MakeLlmTranslator(const TranslationOptions& options,
                                                              const TranslationStack& /*stack*/, Clock& clock,
                                                              Logger& /*logger*/) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<LlmTranslator> llm, LlmTranslator::Create(LlmConfigFromEnvironment(options.llm), clock));
  return std::unique_ptr<Translator>(std::move(llm));
}

namespace {

// One job's handle on a translator kept in an EngineCache.
class SharedTranslatorHandle : public Translator {
 public:
  explicit SharedTranslatorHandle(std::shared_ptr<Translator> shared) : shared_(std::move(shared)) {}
  std::string name() const override { return shared_->name(); }
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override {
    return shared_->Translate(request, stop, on_partial);
  }

 private:
  std::shared_ptr<Translator> shared_;
};

}  // namespace

// The marian engine: a Marian (OPUS-MT) checkpoint on libtorch, from the plug-in
// (app/neural_plugin_engines.h); one copy per process when `shared_engines` is given.
absl::StatusOr<std::unique_ptr<Translator>> MakeMarianTranslator(const TranslationOptions& options,
                                                                 const TranslationStack& /*stack*/, Clock& /*clock*/,
                                                                 Logger& logger) {
  if (options.marian_model_dir.empty()) {
    return absl::InvalidArgumentError("the marian engine needs a checkpoint directory: give --model DIR (docs/models.md)");
  }
  auto load = [&]() -> absl::StatusOr<std::unique_ptr<Translator>> {
    LC_ASSIGN_OR_RETURN(NeuralPlugin plugin, NeuralPlugin::Open("marian"));
    MarianPluginRequest request;
    request.model_dir = options.marian_model_dir;
    request.from = options.from;
    request.to = options.to;
    request.quantize = options.marian_quantize;
    request.device = options.marian_device.device;
    request.dtype = options.marian_device.dtype;
    std::string placed_on;
    request.placed_on = &placed_on;
    LC_ASSIGN_OR_RETURN(std::unique_ptr<PluginTranslator> translator, PluginTranslator::Create(plugin, request));
    logger.Info("mt", "marian loaded", {{"model", options.marian_model_dir}, {"device", placed_on}});
    return std::unique_ptr<Translator>(std::move(translator));
  };
  if (options.shared_engines == nullptr) return load();
  // The plug-in's MarianTranslator translates from several threads at once.
  const std::string key = options.marian_model_dir + "|" + std::string(LanguageCode(options.from)) + "|" +
                          std::string(LanguageCode(options.to)) + "|" + options.marian_quantize + "|" +
                          options.marian_device.device + "|" + options.marian_device.dtype;
  LC_ASSIGN_OR_RETURN(std::shared_ptr<Translator> shared,
                      options.shared_engines->SharedTranslator(key, [&]() -> absl::StatusOr<std::shared_ptr<Translator>> {
                        LC_ASSIGN_OR_RETURN(std::unique_ptr<Translator> loaded, load());
                        return std::shared_ptr<Translator>(std::move(loaded));
                      }));
  return std::unique_ptr<Translator>(std::make_unique<SharedTranslatorHandle>(std::move(shared)));
}

}  // namespace lingcast
