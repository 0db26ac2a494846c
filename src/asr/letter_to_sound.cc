#include "asr/letter_to_sound.h"

#include <string_view>

namespace lingcast {
namespace {

struct Rule {
  std::string_view letters;
  std::string_view phones;  // may be empty (silent letters)
};

// Longer groups first; the first rule whose letters match at the current
// position wins. A rough cut of common English spellings.
constexpr Rule kRules[] = {
    {"tion", "SH AH N"}, {"sion", "ZH AH N"}, {"ough", "AO"}, {"augh", "AO"}, {"eigh", "EY"},
    {"igh", "AY"},       {"tch", "CH"},       {"dge", "JH"},  {"sch", "S K"},  {"que", "K"},
    {"ck", "K"},         {"ch", "CH"},        {"sh", "SH"},   {"th", "TH"},    {"ph", "F"},
    {"wh", "W"},         {"ng", "NG"},        {"qu", "K W"},  {"kn", "N"},     {"wr", "R"},
    {"gh", ""},          {"ee", "IY"},        {"ea", "IY"},   {"oo", "UW"},    {"ai", "EY"},
    {"ay", "EY"},        {"oa", "OW"},        {"ow", "OW"},   {"ou", "AW"},    {"oi", "OY"},
    {"oy", "OY"},        {"au", "AO"},        {"aw", "AO"},   {"ew", "UW"},    {"ie", "IY"},
    {"ei", "EY"},        {"ue", "UW"},        {"ar", "AA R"}, {"er", "ER"},    {"ir", "ER"},
    {"ur", "ER"},        {"or", "AO R"},      {"ll", "L"},    {"ss", "S"},     {"tt", "T"},
    {"pp", "P"},         {"mm", "M"},         {"nn", "N"},    {"ff", "F"},     {"rr", "R"},
    {"bb", "B"},         {"dd", "D"},         {"gg", "G"},    {"zz", "Z"},     {"cc", "K"},
    {"a", "AE"},         {"b", "B"},          {"c", "K"},     {"d", "D"},      {"e", "EH"},
    {"f", "F"},          {"g", "G"},          {"h", "HH"},    {"i", "IH"},     {"j", "JH"},
    {"k", "K"},          {"l", "L"},          {"m", "M"},     {"n", "N"},      {"o", "AA"},
    {"p", "P"},          {"q", "K"},          {"r", "R"},     {"s", "S"},      {"t", "T"},
    {"u", "AH"},         {"v", "V"},          {"w", "W"},     {"x", "K S"},    {"y", "IY"},
    {"z", "Z"},
};

bool IsVowelLetter(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'; }

}  // namespace

std::string SpellingToPhones(const std::string& raw) {
  std::string word;
  for (char c : raw) {
    if (c >= 'a' && c <= 'z') word += c;
  }
  // A final silent e ("make") after a consonant, when a vowel comes before it.
  if (word.size() >= 3 && word.back() == 'e' && !IsVowelLetter(word[word.size() - 2])) {
    bool vowel_before = false;
    for (size_t i = 0; i + 2 < word.size(); ++i) vowel_before |= IsVowelLetter(word[i]);
    if (vowel_before) word.pop_back();
  }
  std::string phones;
  size_t i = 0;
  while (i < word.size()) {
    const std::string_view rest = std::string_view(word).substr(i);
    for (const Rule& rule : kRules) {
      if (rest.substr(0, rule.letters.size()) != rule.letters) continue;
      std::string_view out = rule.phones;
      // c and g are soft before e, i, y.
      const char next = rest.size() > 1 ? rest[1] : '\0';
      if (rule.letters == "c" && (next == 'e' || next == 'i' || next == 'y')) out = "S";
      if (rule.letters == "g" && (next == 'e' || next == 'i' || next == 'y')) out = "JH";
      // y at the start of a word is a consonant.
      if (rule.letters == "y" && i == 0) out = "Y";
      if (!out.empty()) {
        if (!phones.empty()) phones += ' ';
        phones += out;
      }
      i += rule.letters.size();
      break;
    }
  }
  return phones;
}

std::string GuessPronunciation(const std::string& word,
                               const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  if (std::optional<std::string> known = lookup(word)) return *known;
  constexpr size_t kMinPart = 3;
  for (size_t split = kMinPart; split + kMinPart <= word.size(); ++split) {
    std::optional<std::string> head = lookup(word.substr(0, split));
    if (!head) continue;
    if (std::optional<std::string> tail = lookup(word.substr(split))) return *head + " " + *tail;
  }
  return SpellingToPhones(word);
}

}  // namespace lingcast
