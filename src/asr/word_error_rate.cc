#include "asr/word_error_rate.h"

#include <algorithm>

#include "asr/script_lm.h"

namespace lingcast {

double WordErrors::rate() const {
  if (reference_words == 0) return errors();
  return static_cast<double>(errors()) / reference_words;
}

WordErrors& WordErrors::operator+=(const WordErrors& other) {
  substitutions += other.substitutions;
  deletions += other.deletions;
  insertions += other.insertions;
  reference_words += other.reference_words;
  return *this;
}

WordErrors CountWordErrors(const std::vector<std::string>& ref, const std::vector<std::string>& hyp) {
  // Levenshtein alignment over words; each cell keeps the edit counts of its best
  // path so the kinds of error can be reported, ties broken towards substitutions.
  const size_t n = ref.size(), m = hyp.size();
  std::vector<std::vector<WordErrors>> cell(n + 1, std::vector<WordErrors>(m + 1));
  for (size_t i = 1; i <= n; ++i) cell[i][0].deletions = static_cast<int>(i);
  for (size_t j = 1; j <= m; ++j) cell[0][j].insertions = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      WordErrors diagonal = cell[i - 1][j - 1];
      if (ref[i - 1] != hyp[j - 1]) ++diagonal.substitutions;
      WordErrors deletion = cell[i - 1][j];
      ++deletion.deletions;
      WordErrors insertion = cell[i][j - 1];
      ++insertion.insertions;
      WordErrors best = diagonal;
      if (deletion.errors() < best.errors()) best = deletion;
      if (insertion.errors() < best.errors()) best = insertion;
      cell[i][j] = best;
    }
  }
  WordErrors result = cell[n][m];
  result.reference_words = static_cast<int>(n);
  return result;
}

WordErrors CountWordErrors(std::string_view reference, std::string_view hypothesis) {
  return CountWordErrors(AsrWordsOf(reference), AsrWordsOf(hypothesis));
}

}  // namespace lingcast
