#include "text/tone_sandhi.h"

#include <cstddef>

#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr char32_t kYi = U'一';
constexpr char32_t kBu = U'不';
constexpr char32_t kDi = U'第';

// One Han syllable with what the rules look at.
struct Syllable {
  char32_t character = 0;
  size_t word = 0;            // index into the words
  bool last_in_word = false;  // and its word has two or more syllables
  int group = 0;              // prosodic group: consecutive Han syllables
  std::string lexical;
  std::string surface;
};

bool IsIn(char32_t c, std::u32string_view set) { return set.find(c) != std::u32string_view::npos; }

// Characters that make 一 part of a number when they come before it.
constexpr std::u32string_view kDigitsAndTen = U"零〇一二三四五六七八九十";
// ... when they come after it (一十 is said yi1 shi2 only in counting; 一百 changes).
constexpr std::u32string_view kDigits = U"零〇一二三四五六七八九";
constexpr std::u32string_view kMagnitudes = U"百千万亿";
constexpr std::u32string_view kNumerals = U"零〇一二三四五六七八九十百千万亿";

std::string_view Letters(std::string_view syllable) {
  return ToneOf(syllable) == 0 ? syllable : syllable.substr(0, syllable.size() - 1);
}

std::string WithTone(std::string_view syllable, int tone) {
  std::string out(Letters(syllable));
  out += static_cast<char>('0' + tone);
  return out;
}

// The tone a syllable has when said on its own: its lexical tone, or for a neutral
// syllable the tone of the same letters among the character's readings.
int CitationTone(const Syllable& s, const PinyinConverter& lexicon) {
  const int tone = ToneOf(s.lexical);
  if (tone != 5) return tone;
  const std::string_view letters = Letters(s.lexical);
  for (const std::string& reading : lexicon.Readings(s.character)) {
    const int reading_tone = ToneOf(reading);
    if (reading_tone >= 1 && reading_tone <= 4 && Letters(reading) == letters) return reading_tone;
  }
  return 5;
}

std::vector<Syllable> Flatten(const std::vector<PinyinWord>& words, std::string_view text) {
  std::vector<Syllable> syllables;
  int group = 0;
  int previous_end = -1;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::vector<PinyinSyllable>& word = words[w].syllables;
    for (size_t i = 0; i < word.size(); ++i) {
      const PinyinSyllable& s = word[i];
      if (previous_end >= 0 && s.text_offset != previous_end) ++group;
      previous_end = s.text_offset + s.text_length;
      const std::vector<CodePoint> decoded =
          DecodeUtf8(text.substr(static_cast<size_t>(s.text_offset), static_cast<size_t>(s.text_length)));
      Syllable out;
      out.character = decoded.empty() ? 0 : decoded.front().value;
      out.word = w;
      out.last_in_word = word.size() > 1 && i + 1 == word.size();
      out.group = group;
      out.lexical = s.pinyin;
      out.surface = s.pinyin;
      syllables.push_back(std::move(out));
    }
  }
  return syllables;
}

class SandhiRules {
 public:
  SandhiRules(std::vector<Syllable>& syllables, const PinyinConverter& lexicon)
      : s_(syllables), lexicon_(lexicon) {}

  void ApplyYiAndBu() {
    for (size_t i = 0; i < s_.size(); ++i) {
      if (s_[i].character == kBu && s_[i].lexical == "bu4") s_[i].surface = "bu" + std::to_string(BuTone(i));
      if (s_[i].character == kYi && s_[i].lexical == "yi1") s_[i].surface = "yi" + std::to_string(YiTone(i));
    }
  }

  void ApplyThirdTone() {
    size_t start = 0;
    while (start < s_.size()) {
      if (ToneOf(s_[start].surface) != 3) {
        ++start;
        continue;
      }
      size_t end = start + 1;
      while (end < s_.size() && s_[end].group == s_[start].group && ToneOf(s_[end].surface) == 3) ++end;
      ChangeRun(start, end);
      start = end;
    }
  }

 private:
  const Syllable* Previous(size_t i) const {
    return i > 0 && s_[i - 1].group == s_[i].group ? &s_[i - 1] : nullptr;
  }
  const Syllable* Next(size_t i) const {
    return i + 1 < s_.size() && s_[i + 1].group == s_[i].group ? &s_[i + 1] : nullptr;
  }
  bool BetweenIdentical(size_t i) const {
    const Syllable* previous = Previous(i);
    const Syllable* next = Next(i);
    return previous != nullptr && next != nullptr && previous->character == next->character;
  }

  int BuTone(size_t i) const {
    if (BetweenIdentical(i)) return 5;
    const Syllable* next = Next(i);
    if (next != nullptr && CitationTone(*next, lexicon_) == 4) return 2;
    return 4;
  }

  int YiTone(size_t i) const {
    if (BetweenIdentical(i)) return 5;
    const Syllable* previous = Previous(i);
    const Syllable* next = Next(i);
    if (previous != nullptr && previous->character == kDi) return 1;
    if (s_[i].last_in_word) return 1;
    if (previous != nullptr && IsIn(previous->character, kDigitsAndTen)) return 1;
    if (next != nullptr && IsIn(next->character, kDigits)) return 1;
    if (previous != nullptr && IsIn(previous->character, kMagnitudes) &&
        (next == nullptr || IsIn(next->character, kNumerals))) {
      return 1;
    }
    if (next == nullptr) return 1;
    const int next_tone = CitationTone(*next, lexicon_);
    if (next_tone == 4) return 2;
    if (next_tone >= 1 && next_tone <= 3) return 4;
    return 1;
  }

  // [start, end): a maximal run of 3rd tones in one group.
  void ChangeRun(size_t start, size_t end) {
    std::vector<bool> to_second(end - start, false);
    for (size_t i = start; i + 1 < end; ++i) {
      if (s_[i].word == s_[i + 1].word) {
        to_second[i - start] = true;  // inside a word
      } else {
        // The right word's first syllable changes in-word when its word goes on
        // inside the run; then it is no longer a 3rd tone for this one.
        const bool next_changes_in_word = i + 2 < end && s_[i + 2].word == s_[i + 1].word;
        to_second[i - start] = !next_changes_in_word;
      }
    }
    for (size_t i = start; i < end; ++i) {
      if (to_second[i - start]) s_[i].surface = WithTone(s_[i].surface, 2);
    }
  }

  std::vector<Syllable>& s_;
  const PinyinConverter& lexicon_;
};

}  // namespace

int ToneOf(std::string_view syllable) {
  if (syllable.size() < 2) return 0;
  const char last = syllable.back();
  return last >= '1' && last <= '5' ? last - '0' : 0;
}

std::vector<std::string> ApplyToneSandhi(const std::vector<PinyinWord>& words, std::string_view text,
                                         const PinyinConverter& lexicon) {
  std::vector<Syllable> syllables = Flatten(words, text);
  SandhiRules rules(syllables, lexicon);
  rules.ApplyYiAndBu();
  rules.ApplyThirdTone();
  std::vector<std::string> surface;
  surface.reserve(syllables.size());
  for (Syllable& s : syllables) surface.push_back(std::move(s.surface));
  return surface;
}

}  // namespace lingcast
