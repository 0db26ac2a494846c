#include "text/pinyin_rules.h"

#include <algorithm>
#include <initializer_list>
#include <vector>

namespace lingcast {
namespace {

constexpr std::u32string_view kNumerals = U"零〇一二三四五六七八九十百千万亿两几半多";
constexpr std::u32string_view kDemonstratives = U"这那哪每各某整";

bool In(char32_t c, std::u32string_view set) { return set.find(c) != std::u32string_view::npos; }
bool In(std::u32string_view word, std::initializer_list<std::u32string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

class RuleContext {
 public:
  RuleContext(const PinyinConverter& lexicon, std::u32string_view run, std::span<PinyinWord> words)
      : lexicon_(lexicon), words_(words) {
    size_t pos = 0;
    for (const PinyinWord& word : words) {
      texts_.push_back(run.substr(pos, word.syllables.size()));
      pos += word.syllables.size();
    }
  }

  void Apply() {
    for (size_t k = 0; k < words_.size(); ++k) {
      if (texts_[k] == U"地方") LocalNotPlace(k);
      if (texts_[k].size() != 1) continue;
      const char32_t c = texts_[k][0];
      if (Reduplication(k)) continue;
      switch (c) {
        case U'个': MeasureWord(k, "ge4"); break;
        case U'只': MeasureWord(k, "zhi1"); break;
        case U'种': MeasureWord(k, "zhong3"); break;
        case U'得': Must(k); break;
        case U'长':
          if (k > 0 && In(texts_[k - 1], {U"很", U"太", U"真", U"最", U"更", U"挺", U"好", U"多", U"够", U"非常",
                                          U"特别", U"比较", U"这么", U"那么", U"十分", U"相当", U"越", U"较",
                                          U"超", U"蛮", U"越来越", U"有点", U"有些", U"有点儿", U"这样", U"那样"})) {
            Set(k, 0, "chang2", "长 adjective after a degree word");
          }
          break;
        case U'调':
          if (NextStartsWith(k, U"大小高低亮暗快慢匀好一")) Set(k, 0, "tiao2", "调 adjust before a result");
          break;
        case U'还':
          if (NextStartsWith(k, U"了清完")) Set(k, 0, "huan2", "还 give back before 了/清/完");
          break;
        case U'背':
          if (NextStartsWith(k, U"着起")) Set(k, 0, "bei1", "背 carry before 着/起");
          break;
        default:
          break;
      }
    }
  }

 private:
  bool NextStartsWith(size_t k, std::u32string_view set) const {
    return k + 1 < words_.size() && In(texts_[k + 1][0], set);
  }

  void Set(size_t k, size_t syllable, const char* reading, const char* rule) {
    PinyinSyllable& s = words_[k].syllables[syllable];
    if (s.pinyin == reading) return;
    s.pinyin = reading;
    words_[k].rule = rule;
  }

  // 地方 is "place" (di4 fang5) except as "local" before what a locality has:
  // 地方口音, 地方政府, 地方特色 (di4 fang1).
  void LocalNotPlace(size_t k) {
    if (k + 1 < words_.size() &&
        In(texts_[k + 1], {U"政府", U"口音", U"特色", U"官员", U"经济", U"财政", U"法规", U"戏", U"小吃",
                           U"风味", U"产业", U"文化", U"方言", U"特产", U"媒体", U"银行", U"企业"})) {
      Set(k, 1, "fang1", "地方 local before a noun of a locality");
    }
  }

  // 两只, 三种, 这只: after a numeral or a demonstrative a measure word reads as one.
  void MeasureWord(size_t k, const char* reading) {
    if (k == 0) return;
    const char32_t before = texts_[k - 1].back();
    if (In(before, kNumerals) || In(before, kDemonstratives)) Set(k, 0, reading, "measure word after a numeral");
  }

  // 我得走了, 还得等: 得 "must" between a subject or adverb and what follows.
  void Must(size_t k) {
    if (k == 0 || k + 1 >= words_.size() || In(texts_[k + 1][0], U"了到着过")) return;
    const std::u32string_view before = texts_[k - 1];
    const bool subject = In(before.back(), U"我你他她它您咱们") ||
                         In(before, {U"大家", U"人家", U"自己", U"谁", U"咱"});
    const bool adverb = In(before, {U"还", U"就", U"也", U"都", U"总", U"又", U"可", U"才", U"只", U"必须",
                                    U"非", U"一定", U"真", U"早", U"先", U"总是", U"还是", U"今天", U"明天",
                                    U"现在", U"马上", U"赶紧", U"得"});
    if (subject || adverb) Set(k, 0, "dei3", "得 must before a verb");
  }

  // 数了数, 数一数: both take the verb's reading from XX or X一X in the lexicon.
  bool Reduplication(size_t k) {
    if (k + 2 >= words_.size() || texts_[k + 1].size() != 1 || texts_[k + 2] != texts_[k] ||
        !In(texts_[k + 1][0], U"了一")) {
      return false;
    }
    const std::u32string x(texts_[k]);
    std::vector<std::string> reading = lexicon_.PhraseReading(x + x);
    if (reading.empty()) reading = lexicon_.PhraseReading(x + U"一" + x);
    if (reading.empty()) return false;
    Set(k, 0, reading[0].c_str(), "reduplicated verb");
    Set(k + 2, 0, reading[0].c_str(), "reduplicated verb");
    return true;
  }

  const PinyinConverter& lexicon_;
  std::span<PinyinWord> words_;
  std::vector<std::u32string_view> texts_;
};

}  // namespace

void ApplyContextRules(const PinyinConverter& lexicon, std::u32string_view run, std::span<PinyinWord> words) {
  RuleContext(lexicon, run, words).Apply();
}

}  // namespace lingcast
