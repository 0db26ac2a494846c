// TranslationMemory: translations a person already wrote (a bilingual script, a TSV
// or CSV of pairs, corrections made during a show), found again by exact or fuzzy
// match of the source line.
//
// Matching works on MatchTokens (characters for Chinese, words for English), so
// case, width, punctuation and spacing never stop a match, of the lines in one
// spelling per language (MatchSpelling, mt/match_text.h): numbers written as
// digits or as words ("$89" / "eighty nine dollars", 328元 / 三百二十八元) match,
// and with a Traditional -> Simplified converter so do 喜歡 and 喜欢. The score
// of a fuzzy match is 1 - token edit distance / the longer line's token count.
//
// Lookup cost does not grow with the memory: a hash of the match key finds exact
// matches, and an inverted index of token pairs (bigrams) picks a few fuzzy
// candidates whose edit distance is then computed, banded by the threshold. With a
// threshold of 0.7 or more no match of three or more tokens is missed: such a match
// shares at least one token pair with the query. Shorter lines match exactly only.
//
// Thread-safe: lookups take a reader lock, so corrections can land mid-show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "core/sync.h"
#include "media/language.h"
#include "mt/match_text.h"
#include "text/script.h"
#include "text/zh_script.h"

namespace lingcast {

struct TmEntry {
  std::string source;
  std::string target;
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::string origin;  // "FILE:LINE" (or "correction") for messages
};

struct TmMatch {
  TmEntry entry;
  double score = 0;  // 1 for an exact match (same match key)
  bool exact = false;
};

// What a load did, for the caller to report. Warnings are one line each, naming
// FILE:LINE.
struct TmLoadReport {
  int added = 0;
  int duplicates = 0;    // same source, same translation: ignored
  int conflicts = 0;     // same source, another translation: the first one is kept
  int untranslated = 0;  // script lines without a translation
  std::vector<std::string> warnings;
};

inline constexpr double kDefaultTmThreshold = 0.7;

class TranslationMemory {
 public:
  enum class AddResult { kAdded, kDuplicate, kConflict };

  // `to_simplified`, when given, folds Traditional characters to Simplified on
  // both sides of a match (entries and lookups); null: characters as written.
  explicit TranslationMemory(std::shared_ptr<const ZhScriptConverter> to_simplified = nullptr);
  TranslationMemory(const TranslationMemory&) = delete;
  TranslationMemory& operator=(const TranslationMemory&) = delete;

  // Adds a pair unless its source is already there: the first translation of a
  // source wins, so the result does not depend on anything but the order of
  // input. `existing_origin`, when given, receives the origin of the pair that was
  // already there.
  AddResult Add(TmEntry entry, std::string* existing_origin = nullptr);
  // A correction: replaces the translation of `entry.source` (or adds it).
  void Put(TmEntry entry);

  // Every line of `script` with a translation, in both directions (the host may
  // speak either side).
  void AddScript(const Script& script, TmLoadReport& report);

  // A file of pairs, one per line: SOURCE<TAB>TARGET (.tsv and anything else) or
  // SOURCE,TARGET with "quoted" fields (.csv). Empty lines and lines starting with
  // '#' are skipped. A line without a translation, or with invalid UTF-8, is
  // InvalidArgument "FILE:LINE: ..." and nothing of the file is added.
  absl::Status LoadFile(const std::string& path, Language from, Language to, TmLoadReport& report);

  // The best match of `source` from `from` to `to` scoring at least `min_score`.
  std::optional<TmMatch> Lookup(std::string_view source, Language from, Language to,
                                double min_score = kDefaultTmThreshold) const;
  // Up to `max_results` matches scoring at least `min_score`, best first.
  std::vector<TmMatch> Search(std::string_view source, Language from, Language to, double min_score,
                              size_t max_results) const;

  size_t size() const;

  // How lines in `language` are spelled before they are matched.
  const MatchSpelling& spelling(Language language) const {
    return language == Language::kZh ? zh_spelling_ : en_spelling_;
  }

 private:
  struct Direction {
    std::vector<TmEntry> entries;
    // What a fuzzy lookup reads of each of thousands of candidates, packed apart
    // from the pairs' strings: entry i's tokens are tokens[token_start[i] ..
    // token_start[i + 1]), and it has unique_grams[i] distinct token pairs (the
    // count filter's bound).
    std::vector<uint32_t> tokens;
    std::vector<uint32_t> token_start{0};
    std::vector<int> unique_grams;
    absl::flat_hash_map<std::string, uint32_t> by_key;            // match key -> entry
    absl::flat_hash_map<uint64_t, std::vector<uint32_t>> by_gram;  // token pair -> entries (ascending)
  };

  static int DirectionIndex(Language from, Language to);
  std::vector<uint32_t> InternTokens(const std::vector<std::string>& tokens)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<uint32_t> LookupTokens(const std::vector<std::string>& tokens) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Adds the fuzzy matches scoring at least `min_score` to `matches` (which may
  // hold the exact match already), keeping the best `max_results`.
  void FuzzySearch(const Direction& direction, const std::vector<uint32_t>& query, uint32_t exact_index,
                   double min_score, size_t max_results, std::vector<TmMatch>& matches) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  AddResult AddLocked(TmEntry entry, bool replace, std::string* existing_origin)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const MatchSpelling zh_spelling_, en_spelling_;  // set once: read without the lock
  mutable SharedMutex mu_;
  // Index 0: zh->en, 1: en->zh, 2: zh->zh, 3: en->en.
  Direction directions_[4] ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, uint32_t> token_ids_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
