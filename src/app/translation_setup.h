// The translation layer as the commands configure it: a translation memory from
// scripts and pair files, a glossary, the user's corrections, and the engine
// chain (tm, llm, marian: made by the engine registry) in the order given. Shared by `translate`, `follow` and `live`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "app/engine_cache.h"
#include "app/engine_registry.h"
#include "app/neural_plugin.h"
#include "core/clock.h"
#include "core/logger.h"
#include "media/language.h"
#include "mt/corrections.h"
#include "mt/glossary.h"
#include "mt/llm_translator.h"
#include "mt/translation_memory.h"
#include "mt/translation_stack.h"
#include "mt/translator_chain.h"
#include "text/zh_script.h"

namespace lingcast {

struct TranslationOptions {
  Language from = Language::kZh;
  Language to = Language::kEn;
  // Files for the memory: .tsv / .csv pair files (SOURCE, TARGET in from -> to),
  // anything else is read as a bilingual script (both directions).
  std::vector<std::string> memory_paths;
  std::string glossary_path;     // CHINESE<TAB>ENGLISH terms; empty: none
  std::string corrections_path;  // corrections to apply (and to append to); empty: none
  std::vector<std::string> engines = {"tm"};  // tried in this order: tm, llm, marian
  double threshold = kDefaultTmThreshold;     // fuzzy match score the memory needs
  LlmConfig llm;                              // endpoint/model/key (environment fills the gaps)
  std::string marian_model_dir;               // --model: Marian checkpoint for the marian engine (docs/models.md)
  std::string marian_quantize = "none";       // --quantize: "int8" stores the marian engine's linear weights as int8
  NeuralDeviceFlags marian_device;            // --device, --dtype of the marian engine
  // Traditional -> Simplified for the memory's matching (MatchSpelling), shared
  // with whoever else loaded it; null: loaded here when `from` is zh.
  std::shared_ptr<const ZhScriptConverter> to_simplified;
  // Where the marian engine's model is kept for every job that asks for the
  // same one (the server's sessions); null: loaded for this job alone.
  EngineCache* shared_engines = nullptr;
};

// Parses "tm,llm" (or repeated options) into engine names; InvalidArgument for an
// engine `use` (the command asking) does not offer, or a repeated one.
absl::StatusOr<std::vector<std::string>> ParseEngines(const std::vector<std::string>& specs, EngineUse use);

// live and follow take the marian engine's checkpoint as --marian-model: it is
// needed with marian among `engines`, and meaningless without. One clear line.
absl::Status CheckMarianModelFlag(const std::vector<std::string>& engines, const std::string& model_dir);

// Loads everything; every problem is one line naming the file (and line). Load
// warnings (duplicate lines, untranslated script lines) go to `logger`.
absl::StatusOr<TranslationStack> BuildTranslationStack(const TranslationOptions& options, Clock& clock,
                                                       Logger& logger);

// The translators' factories in the engine registry (app/engine_registry.h):
// tm looks in `stack`'s memory, llm asks an OpenAI-compatible server, marian
// runs a checkpoint in the neural plug-in.
absl::StatusOr<std::unique_ptr<Translator>> MakeMemoryTranslator(const TranslationOptions& options,
                                                                 const TranslationStack& stack, Clock& clock,
                                                                 Logger& logger);
absl::StatusOr<std::unique_ptr<Translator>> MakeLlmTranslator(const TranslationOptions& options,
                                                              const TranslationStack& stack, Clock& clock,
                                                              Logger& logger);
absl::StatusOr<std::unique_ptr<Translator>> MakeMarianTranslator(const TranslationOptions& options,
                                                                 const TranslationStack& stack, Clock& clock,
                                                                 Logger& logger);

}  // namespace lingcast
