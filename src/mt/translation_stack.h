// TranslationStack: what the translate stage (mt/translate_stage.h) and the
// translate and follow commands translate with -- the translation memory, the
// glossary, the user's corrections and the engine chain. Built from the
// commands' options by src/app (app/translation_setup.h: BuildTranslationStack).
#pragma once

#include <memory>
#include <optional>

#include "mt/corrections.h"
#include "mt/glossary.h"
#include "mt/translation_memory.h"
#include "mt/translator_chain.h"

namespace lingcast {

struct TranslationStack {
  std::unique_ptr<TranslationMemory> memory;
  std::unique_ptr<Glossary> glossary;  // null without --glossary
  std::optional<CorrectionLog> corrections;
  std::unique_ptr<TranslatorChain> chain;
};

}  // namespace lingcast
