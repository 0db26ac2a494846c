// Hanzi -> pinyin with tone digits, from lingcast's own lexicon (zh_lexicon.tsv,
// generated at build time by tools/build_lexicon.py from pypinyin-dict's data).
//
// Reading choice: each run of Han characters is segmented (dynamic programming over
// the phrase table) into the fewest words, and among those into the likeliest: the
// least total cost, a word's cost being 10 * ln(total / count) from jieba's word
// counts (孩子|长|了 beats 孩|子长|了). Phrase words take the phrase's reading; single
// characters take their reading as a word alone (most common first in the lexicon).
// Then context rules (pinyin_rules.h) choose where words do not decide: 得 dei3
// before a verb, measure words after numerals, 长 chang2 after 很, reduplicated verbs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"

namespace lingcast {

// The lexicon file's name, for FindDataFile().
inline constexpr std::string_view kZhLexiconFileName = "zh_lexicon.tsv";

// One Han character's reading, e.g. "hang2" ("v" stands for ü: "lv4").
struct PinyinSyllable {
  int text_offset = 0;  // byte offset of the character in the converted text
  int text_length = 0;  // bytes
  std::string pinyin;   // letters + tone digit 1-5 (5 = neutral); empty if unknown
};

// A segmented word: one or more consecutive Han characters.
struct PinyinWord {
  int text_offset = 0;
  int text_length = 0;
  bool from_phrase = false;  // true when the phrase table decided the reading
  std::string rule;          // the context rule that changed a reading ("" if none)
  std::vector<PinyinSyllable> syllables;
};

class PinyinConverter {
 public:
  // Loads the lexicon file at `path`; NotFound / InvalidArgument ("PATH:LINE: ...").
  static absl::StatusOr<PinyinConverter> Load(const std::string& path);
  // Loads the lexicon found by FindDataFile(kZhLexiconFileName).
  static absl::StatusOr<PinyinConverter> LoadDefault();
  // Parses lexicon text; `source_name` names it in errors.
  static absl::StatusOr<PinyinConverter> FromText(std::string_view text, std::string_view source_name);

  // Words covering every Han character of `text` (non-Han text is skipped).
  std::vector<PinyinWord> Segment(std::string_view text) const;
  // One syllable per Han character of `text`, in order.
  std::vector<PinyinSyllable> Convert(std::string_view text) const;
  // Convenience: the syllables of Convert() joined by spaces ("yin2 hang2").
  std::string ToPinyinString(std::string_view text) const;

  // The phrase table's reading of `phrase` (one syllable per character), or empty.
  std::vector<std::string> PhraseReading(std::u32string_view phrase) const;

  // All readings of `c`, most common first; empty if the lexicon does not know it.
  std::vector<std::string> Readings(char32_t c) const;
  // The most common reading of `c`; empty if the lexicon does not know it.
  const std::string& PrimaryReading(char32_t c) const;

  size_t character_count() const { return characters_.size(); }
  size_t phrase_count() const { return phrases_.size(); }

 private:
  PinyinConverter() = default;
  // Segments one run of Han characters into word lengths (in characters).
  std::vector<int> SegmentRun(const std::u32string& run) const;

  // Compact storage (the lexicon has ~40k characters and ~100k phrases): each
  // distinct syllable is stored once and readings are runs of syllable ids in a pool.
  // Cost of a word the lexicon gives no count for (a count of 1 in jieba's ~6e7).
  static constexpr uint16_t kDefaultWordCost = 180;
  struct ReadingSpan {
    uint32_t offset = 0;
    uint16_t count = 0;
    uint16_t cost = kDefaultWordCost;  // as a single-character word
  };
  struct PhraseEntry {
    uint32_t offset = 0;  // pool offset; one syllable id per character
    uint16_t cost = kDefaultWordCost;
  };
  uint16_t SyllableId(std::string_view syllable);
  const std::string& SyllableAt(uint32_t pool_index) const { return syllables_[pool_[pool_index]]; }

  std::vector<std::string> syllables_;
  std::unordered_map<std::string, uint16_t> syllable_ids_;
  std::vector<uint16_t> pool_;
  std::unordered_map<char32_t, ReadingSpan> characters_;
  std::unordered_map<std::u32string, PhraseEntry> phrases_;
  int max_phrase_length_ = 1;
};

}  // namespace lingcast
