// Word error rate: (substitutions + deletions + insertions) / reference words,
// over the recognizer's words (asr/script_lm.h's AsrWordsOf normalizes both
// sides: case, punctuation, numbers).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lingcast {

struct WordErrors {
  int substitutions = 0;
  int deletions = 0;
  int insertions = 0;
  int reference_words = 0;

  int errors() const { return substitutions + deletions + insertions; }
  // errors / reference words; 0 for an empty reference with an empty hypothesis,
  // 1 per inserted word when the reference is empty.
  double rate() const;
  WordErrors& operator+=(const WordErrors& other);
};

WordErrors CountWordErrors(const std::vector<std::string>& reference, const std::vector<std::string>& hypothesis);
WordErrors CountWordErrors(std::string_view reference, std::string_view hypothesis);

}  // namespace lingcast
