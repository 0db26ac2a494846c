#include "text/language_detect.h"

#include <optional>

#include "text/utf8.h"

namespace lingcast {

Language DetectLanguage(std::string_view text, Language fallback) {
  int han_votes = 0;
  int latin_votes = 0;
  std::optional<Language> first_strong;
  for (const TextRun& run : SplitRuns(text)) {
    if (run.kind == CharClass::kHan) {
      han_votes += static_cast<int>(DecodeUtf8(text.substr(run.offset, run.length)).size());
      if (!first_strong) first_strong = Language::kZh;
    } else if (run.kind == CharClass::kLatin) {
      ++latin_votes;
      if (!first_strong) first_strong = Language::kEn;
    }
  }
  if (han_votes > latin_votes) return Language::kZh;
  if (latin_votes > han_votes) return Language::kEn;
  return first_strong.value_or(fallback);
}

bool HasLanguageEvidence(std::string_view text) {
  for (const TextRun& run : SplitRuns(text)) {
    if (run.kind != CharClass::kOther) return true;
  }
  return false;
}

}  // namespace lingcast
