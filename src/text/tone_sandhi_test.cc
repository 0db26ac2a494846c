#include "text/tone_sandhi.h"

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "text/test_lexicon.h"

#include "absl/strings/str_join.h"
#include "text/normalize_zh.h"

namespace lingcast {
namespace {

const PinyinConverter& Lexicon() { return TestLexicon(); }

// Surface readings of `text` (normalized first, as the pinyin command does), joined.
std::string Surface(const std::string& text) {
  const std::string normalized = NormalizeChinese(text).text;
  return absl::StrJoin(ApplyToneSandhi(Lexicon().Segment(normalized), normalized, Lexicon()), " ");
}

// Surface readings from a hand-made segmentation, so the word-structure rules are
// tested independently of what the lexicon's segmenter decides.
std::string SurfaceOfWords(const std::string& text, const std::vector<std::vector<std::string>>& words) {
  std::vector<PinyinWord> segmented;
  int offset = 0;
  for (const std::vector<std::string>& readings : words) {
    PinyinWord word;
    word.text_offset = offset;
    for (const std::string& reading : readings) {
      word.syllables.push_back({offset, 3, reading});  // every test character is 3 bytes
      offset += 3;
    }
    word.text_length = offset - word.text_offset;
    segmented.push_back(std::move(word));
  }
  EXPECT_EQ(offset, static_cast<int>(text.size())) << "test words do not cover " << text;
  return absl::StrJoin(ApplyToneSandhi(segmented, text, Lexicon()), " ");
}

TEST(ToneSandhiTest, ToneOf) {
  EXPECT_EQ(ToneOf("hao3"), 3);
  EXPECT_EQ(ToneOf("de5"), 5);
  EXPECT_EQ(ToneOf("lv4"), 4);
  EXPECT_EQ(ToneOf(""), 0);
  EXPECT_EQ(ToneOf("a"), 0);
  EXPECT_EQ(ToneOf("hao"), 0);
}

TEST(ToneSandhiTest, BuBeforeFourthToneRises) {
  EXPECT_EQ(Surface("不是"), "bu2 shi5");  // the lexicon says shi5; its citation tone is 4
  EXPECT_EQ(Surface("不要"), "bu2 yao4");
  EXPECT_EQ(Surface("不会"), "bu2 hui4");
  EXPECT_EQ(Surface("我不去"), "wo3 bu2 qu4");  // across a word boundary
}

TEST(ToneSandhiTest, BuElsewhereStaysFourth) {
  EXPECT_EQ(Surface("不好"), "bu4 hao3");
  EXPECT_EQ(Surface("不吃"), "bu4 chi1");
  EXPECT_EQ(Surface("不来"), "bu4 lai2");
  EXPECT_EQ(Surface("我说不"), "wo3 shuo1 bu4");
  EXPECT_EQ(Surface("不，是他"), "bu4 shi4 ta1");  // punctuation ends the group
}

TEST(ToneSandhiTest, BuBetweenIdenticalCharactersIsNeutral) {
  EXPECT_EQ(Surface("好不好"), "hao3 bu5 hao3");
  EXPECT_EQ(Surface("是不是"), "shi4 bu5 shi4");
  EXPECT_EQ(Surface("去不去"), "qu4 bu5 qu4");
}

TEST(ToneSandhiTest, YiBeforeFourthToneRises) {
  EXPECT_EQ(Surface("一个"), "yi2 ge4");
  EXPECT_EQ(Surface("一下"), "yi2 xia4");
  EXPECT_EQ(Surface("一样"), "yi2 yang4");
  EXPECT_EQ(Surface("一万"), "yi2 wan4");
}

TEST(ToneSandhiTest, YiBeforeOtherTonesFalls) {
  EXPECT_EQ(Surface("一天"), "yi4 tian1");
  EXPECT_EQ(Surface("一年"), "yi4 nian2");
  EXPECT_EQ(Surface("一起"), "yi4 qi3");
  EXPECT_EQ(Surface("一百"), "yi4 bai3");
  EXPECT_EQ(Surface("一千"), "yi4 qian1");
}

TEST(ToneSandhiTest, YiKeepsFirstToneInOrdinalsNumbersAndAtTheEnd) {
  EXPECT_EQ(Surface("第一"), "di4 yi1");
  EXPECT_EQ(Surface("第一名"), "di4 yi1 ming2");
  EXPECT_EQ(Surface("十一"), "shi2 yi1");
  EXPECT_EQ(Surface("二十一"), "er4 shi2 yi1");
  EXPECT_EQ(Surface("一一零"), "yi1 yi1 ling2");
  EXPECT_EQ(Surface("统一"), "tong3 yi1");
  EXPECT_EQ(Surface("唯一"), "wei2 yi1");
  EXPECT_EQ(Surface("一"), "yi1");
  EXPECT_EQ(Surface("一，二"), "yi1 er4");
}

TEST(ToneSandhiTest, YiInsideNumbersFromDigits) {
  EXPECT_EQ(Surface("110"), "yi4 bai3 yi1 shi2");  // 一百一十
  EXPECT_EQ(Surface("11"), "shi2 yi1");            // 十一
  EXPECT_EQ(Surface("10001"), "yi2 wan4 ling2 yi1");
}

TEST(ToneSandhiTest, YiAfterAMagnitudeWordThatIsNotANumber) {
  // 千万 "by all means" ends in 万, but 一定 is not part of a number.
  EXPECT_EQ(Surface("千万一定要来"), "qian1 wan4 yi2 ding4 yao4 lai2");
}

TEST(ToneSandhiTest, YiBetweenIdenticalCharactersIsNeutral) {
  EXPECT_EQ(Surface("看一看"), "kan4 yi5 kan4");
  EXPECT_EQ(Surface("想一想"), "xiang3 yi5 xiang3");
}

TEST(ToneSandhiTest, ThirdToneInsideAWord) {
  EXPECT_EQ(Surface("你好"), "ni2 hao3");
  EXPECT_EQ(Surface("展览馆"), "zhan2 lan2 guan3");
  EXPECT_EQ(Surface("可以"), "ke2 yi3");
  EXPECT_EQ(Surface("水果"), "shui2 guo3");
}

TEST(ToneSandhiTest, ThirdToneAcrossSingleSyllableWords) {
  EXPECT_EQ(SurfaceOfWords("我很好", {{"wo3"}, {"hen3"}, {"hao3"}}), "wo2 hen2 hao3");
  EXPECT_EQ(Surface("我很好"), "wo2 hen2 hao3");
}

TEST(ToneSandhiTest, ThirdToneRespectsWordStructure) {
  // 小 + 老虎: 老虎 changes inside the word first; 小 is then before a 2nd tone.
  EXPECT_EQ(SurfaceOfWords("小老虎", {{"xiao3"}, {"lao3", "hu3"}}), "xiao3 lao2 hu3");
  // 展览 + 馆: inside the word, then across the boundary.
  EXPECT_EQ(SurfaceOfWords("展览馆", {{"zhan3", "lan3"}, {"guan3"}}), "zhan2 lan2 guan3");
  // 老虎 + 好: the last syllable of the left word sees a 3rd tone.
  EXPECT_EQ(SurfaceOfWords("老虎好", {{"lao3", "hu3"}, {"hao3"}}), "lao2 hu2 hao3");
}

TEST(ToneSandhiTest, PunctuationAndNonHanTextBreakRuns) {
  EXPECT_EQ(Surface("你好，你好"), "ni2 hao3 ni2 hao3");
  EXPECT_EQ(Surface("我 很好"), "wo3 hen2 hao3");
  EXPECT_EQ(Surface("我OK好"), "wo3 hao3");
}

TEST(ToneSandhiTest, NeutralTonesAreUntouchedAndEndRuns) {
  EXPECT_EQ(Surface("姐姐"), "jie3 jie5");
  EXPECT_EQ(Surface("我的好"), "wo3 de5 hao3");
}

TEST(ToneSandhiTest, SentencesMixingTheRules) {
  EXPECT_EQ(Surface("我不想买一个"), "wo3 bu4 xiang2 mai3 yi2 ge4");  // bu4 splits the 3rd tones
  EXPECT_EQ(Surface("他得了第一名"), "ta1 de2 le5 di4 yi1 ming2");
}

TEST(ToneSandhiTest, EmptyAndNonHanInput) {
  EXPECT_TRUE(ApplyToneSandhi({}, "", Lexicon()).empty());
  EXPECT_EQ(Surface("hello 123!"), "yi4 bai3 er4 shi2 san1");
  EXPECT_EQ(Surface("hello!"), "");
}

TEST(ToneSandhiTest, OneSurfaceReadingPerSyllable) {
  const std::string text = "这件衣服很便宜，请大家点击下方链接购买。";
  const std::vector<PinyinWord> words = Lexicon().Segment(text);
  size_t syllables = 0;
  for (const PinyinWord& w : words) syllables += w.syllables.size();
  EXPECT_EQ(ApplyToneSandhi(words, text, Lexicon()).size(), syllables);
}

}  // namespace
}  // namespace lingcast
