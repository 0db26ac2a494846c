// The translation memory as a translator: an exact or fuzzy match above the
// threshold is the answer; anything else is NotFound, for the next engine.
#pragma once

#include "mt/translation_memory.h"
#include "mt/translator.h"

namespace lingcast {

class TmTranslator final : public Translator {
 public:
  // `memory` must outlive the translator (it is shared with corrections).
  explicit TmTranslator(const TranslationMemory& memory, double threshold = kDefaultTmThreshold)
      : memory_(memory), threshold_(threshold) {}

  std::string name() const override { return "tm"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override;

 private:
  const TranslationMemory& memory_;
  const double threshold_;
};

}  // namespace lingcast
