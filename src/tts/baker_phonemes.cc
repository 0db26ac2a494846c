#include "tts/baker_phonemes.h"

#include <array>
#include <unordered_map>

namespace lingcast {

namespace {

// Baker's finals (without tone), what its symbol table holds.
bool IsBakerFinal(std::string_view f) {
  static const std::array<std::string_view, 38> kFinals = {
      "a",   "ai",  "an",   "ang", "ao",  "e",   "ei",  "en",  "eng", "er",   "i",   "ia",   "ian",
      "iang", "iao", "ie",  "ii",  "iii", "in",  "ing", "iong", "iou", "o",   "ong",  "ou",  "u",
      "ua",  "uai", "uan",  "uang", "uei", "uen", "ueng", "uo",  "v",   "van", "ve",  "vn"};
  for (const std::string_view k : kFinals) {
    if (k == f) return true;
  }
  return false;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// a + b; not `"v" + std::string(...)`, which GCC 12's -Wrestrict misreads.
std::string Cat(std::string_view a, std::string_view b) {
  std::string out(a);
  out.append(b);
  return out;
}

// The final as written in pinyin after an initial -> Baker's final.
std::string BakerFinal(std::string_view initial, std::string_view rest) {
  const bool palatal = initial == "j" || initial == "q" || initial == "x";
  if (palatal && StartsWith(rest, "u")) return Cat("v", rest.substr(1));  // ju -> jv, juan -> jvan
  if (StartsWith(rest, "ue") && (initial == "l" || initial == "n")) return "ve";   // lue = lve
  if (rest == "i") {
    if (initial == "zh" || initial == "ch" || initial == "sh" || initial == "r") return "iii";
    if (initial == "z" || initial == "c" || initial == "s") return "ii";
  }
  if (rest == "iu") return "iou";
  if (rest == "ui") return "uei";
  if (rest == "un") return "uen";
  return std::string(rest);
}

// A syllable with no initial (y-, w-, or a vowel) -> Baker's final.
std::string ZeroInitialFinal(std::string_view s) {
  if (s == "you" || s == "yo") return "iou";
  if (StartsWith(s, "yu")) return Cat("v", s.substr(2));  // yu, yuan, yue, yun
  if (StartsWith(s, "yi")) return Cat("i", s.substr(2));  // yi, yin, ying
  if (StartsWith(s, "y")) return Cat("i", s.substr(1));   // ya, yan, yao, ye, yong
  if (s == "wu") return "u";
  if (StartsWith(s, "w")) return Cat("u", s.substr(1));   // wa, wei, wen, weng, wo
  if (s == "ng" || s == "n" || s == "m") return "en";             // 嗯, 呣: as Baker labels 嗯
  return std::string(s);
}

// The nearest IPA of Baker's initials and finals, for the mouth (lipsync reads
// the first phoneme of a multi-letter symbol).
std::string IpaOf(std::string_view symbol) {
  static const std::unordered_map<std::string_view, std::string_view> kIpa = {
      {"b", "p"},    {"p", "p"},    {"m", "m"},   {"f", "f"},    {"d", "t"},    {"t", "t"},    {"n", "n"},
      {"l", "l"},    {"g", "k"},    {"k", "k"},   {"h", "x"},    {"j", "tɕ"},   {"q", "tɕ"},   {"x", "ɕ"},
      {"zh", "ʈʂ"},  {"ch", "ʈʂ"},  {"sh", "ʂ"},  {"r", "ʐ"},    {"z", "ts"},   {"c", "ts"},   {"s", "s"},
      {"a", "a"},    {"ai", "ai"},  {"an", "an"}, {"ang", "aŋ"}, {"ao", "au"},  {"e", "ɤ"},    {"ei", "ei"},
      {"en", "ən"},  {"eng", "əŋ"}, {"er", "ɚ"},  {"i", "i"},    {"ia", "ia"},  {"ian", "iɛn"}, {"iang", "iaŋ"},
      {"iao", "iau"}, {"ie", "iɛ"}, {"ii", "ɨ"},  {"iii", "ɨ"},  {"in", "in"},  {"ing", "iŋ"}, {"iong", "yŋ"},
      {"iou", "iou"}, {"o", "o"},   {"ong", "uŋ"}, {"ou", "ou"}, {"u", "u"},    {"ua", "ua"},  {"uai", "uai"},
      {"uan", "uan"}, {"uang", "uaŋ"}, {"uei", "uei"}, {"uen", "uən"}, {"ueng", "uəŋ"}, {"uo", "uo"},
      {"v", "y"},    {"van", "yɛn"}, {"ve", "yɛ"}, {"vn", "yn"},
  };
  std::string_view base = symbol;
  if (!base.empty() && base.back() >= '1' && base.back() <= '5') base.remove_suffix(1);
  const auto it = kIpa.find(base);
  return it == kIpa.end() ? std::string("_") : std::string(it->second);
}

}  // namespace

std::optional<BakerSyllable> SplitBakerSyllable(std::string_view pinyin) {
  if (pinyin.size() < 2) return std::nullopt;
  char tone = pinyin.back();
  if (tone == '0') tone = '5';  // some tables write the neutral tone as 0
  if (tone < '1' || tone > '5') return std::nullopt;
  std::string_view s = pinyin.substr(0, pinyin.size() - 1);
  for (const char c : s) {
    if (c < 'a' || c > 'z') return std::nullopt;
  }
  BakerSyllable out;
  // Erhua written on the syllable ("huar"): the syllable, then er5, as Baker labels 儿.
  if (s.size() > 2 && s.back() == 'r' && s != "er") {
    out.erhua = true;
    s.remove_suffix(1);
  }
  static const std::array<std::string_view, 23> kInitials = {"zh", "ch", "sh", "b", "p", "m", "f", "d",
                                                             "t",  "n",  "l",  "g", "k", "h", "j", "q",
                                                             "x",  "r",  "z",  "c", "s", "",  ""};
  std::string final;
  const bool syllabic_nasal = s == "ng" || s == "n" || s == "m";  // 嗯, 呣: no initial
  for (const std::string_view initial : kInitials) {
    if (syllabic_nasal) break;
    if (initial.empty()) break;
    if (StartsWith(s, initial) && s.size() > initial.size()) {
      out.initial = std::string(initial);
      final = BakerFinal(initial, s.substr(initial.size()));
      break;
    }
  }
  if (out.initial.empty()) {
    out.initial.assign(1, '^');  // not = "^": GCC 12 -Wrestrict misfires
    final = ZeroInitialFinal(s);
  }
  if (!IsBakerFinal(final)) return std::nullopt;
  out.final = Cat(final, std::string_view(&tone, 1));
  return out;
}

BakerPhonemes ToBakerPhonemes(std::string_view text, const PinyinConverter& pinyin) {
  BakerPhonemes out;
  std::vector<BakerSymbol> body;
  bool need_break = false;  // a syllable was said since the last mark
  for (const SpeechChunk& chunk : PlanMandarinSpeech(text, pinyin)) {
    if (chunk.language != Language::kZh) {
      ++out.skipped;  // the English voice's (BilingualVoice routes it there)
      continue;
    }
    std::size_t i = 0;
    while (i < chunk.text.size()) {
      while (i < chunk.text.size() && chunk.text[i] == ' ') ++i;
      std::size_t j = i;
      while (j < chunk.text.size() && chunk.text[j] != ' ') ++j;
      if (j == i) break;
      const std::string_view token = std::string_view(chunk.text).substr(i, j - i);
      const auto [begin, end] = chunk.SourceRange(static_cast<int>(i), static_cast<int>(j));
      i = j;
      if (token == "," || token == "." || token == "!" || token == "?") {
        // A pause inside the clause: Baker's #3 (a phrase break), not a second sil.
        if (need_break) body.push_back({"#3", -1, -1, ""});
        need_break = false;
        continue;
      }
      const std::optional<BakerSyllable> syllable = SplitBakerSyllable(token);
      if (!syllable) {
        ++out.skipped;
        continue;
      }
      if (!body.empty() && body.back().symbol != "#3") body.push_back({"#0", -1, -1, ""});
      body.push_back({syllable->initial, begin, end, syllable->initial == "^" ? "" : IpaOf(syllable->initial)});
      body.push_back({syllable->final, begin, end, IpaOf(syllable->final)});
      if (syllable->erhua) body.push_back({"er5", begin, end, IpaOf("er5")});
      need_break = true;
    }
  }
  while (!body.empty() && body.back().symbol == "#3") body.pop_back();
  if (body.empty()) return out;
  out.symbols.push_back({"sil", -1, -1, "_"});
  for (BakerSymbol& s : body) out.symbols.push_back(std::move(s));
  out.symbols.push_back({"sil", -1, -1, "_"});
  out.symbols.push_back({"eos", -1, -1, "_"});
  return out;
}

}  // namespace lingcast
