// Translator: one segment of speech in one language, its translation out.
//
// Engines (translation memory, an LLM server, Marian on libtorch) sit behind
// this interface; TranslatorChain tries them in order. A request carries the
// context an engine may use (the last lines and their translations, the glossary),
// can be cancelled through a std::stop_token, and may report partial output as it
// streams (an LLM's tokens), so a live pipeline can start subtitles early.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "media/language.h"

namespace lingcast {

class Glossary;

struct TranslatedLine {
  std::string source;
  std::string target;
};

struct TranslationRequest {
  std::string source;  // UTF-8, one segment (a line or a clause)
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::vector<TranslatedLine> context;  // recent lines, oldest first
  const Glossary* glossary = nullptr;   // terms the output must respect (may be null)
};

struct Translation {
  std::string text;
  std::string engine;      // "tm", "llm", ...
  double confidence = 0;   // the engine's own estimate, 0-1
  double score = 0;        // TM match score (1 = exact); 0 for generative engines
  std::string origin;      // where a TM translation came from ("FILE:LINE")
  int glossary_fixed = 0;  // terms the glossary respelled or translated
  std::vector<std::string> glossary_missing;
};

// Called with the translation so far (the whole text, not a delta).
using PartialTranslation = std::function<void(std::string_view text_so_far)>;

class Translator {
 public:
  virtual ~Translator();
  virtual std::string name() const = 0;
  // NotFound when the engine has nothing for this segment (a TM miss), so the next
  // engine is asked; Unavailable/DeadlineExceeded when the engine failed (server
  // down, timed out); Cancelled when `stop` was requested.
  virtual absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                                const PartialTranslation& on_partial = {}) = 0;
};

}  // namespace lingcast
