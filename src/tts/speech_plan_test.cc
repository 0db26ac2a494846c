#include "tts/speech_plan.h"

#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "text/test_lexicon.h"

namespace lingcast {
namespace {

const PinyinConverter& Lexicon() { return TestLexicon(); }

std::string SourceOf(const std::string& text, const SpeechChunk& chunk, const std::string& spoken) {
  const size_t at = chunk.text.find(spoken);
  if (at == std::string::npos) return "<not spoken>";
  const auto [lo, hi] = chunk.SourceRange(static_cast<int>(at), static_cast<int>(at + spoken.size()));
  return lo < 0 ? "<no source>" : text.substr(lo, hi - lo);
}

TEST(SpeechPlanTest, MandarinBecomesTonePinyinWithPauses) {
  const std::string text = "银行很好，对吗？";
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].language, Language::kZh);
  EXPECT_EQ(chunks[0].text, "yin2 hang2 hen2 hao3 , dui4 ma5 ? ");  // 3-3 sandhi: hen3 -> hen2
  EXPECT_EQ(SourceOf(text, chunks[0], "hang2"), "行");
  EXPECT_EQ(SourceOf(text, chunks[0], ","), "，");
}

TEST(SpeechPlanTest, TheVoiceIsGivenSurfaceTones) {
  // 不 and 一 change tone before what follows; the lexicon keeps citation tones.
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech("这不是一个问题", Lexicon());
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_NE(chunks[0].text.find("bu2"), std::string::npos) << chunks[0].text;
  EXPECT_NE(chunks[0].text.find("yi2 ge4"), std::string::npos) << chunks[0].text;
  const std::vector<SpeechChunk> day = PlanMandarinSpeech("一天", Lexicon());
  ASSERT_EQ(day.size(), 1u);
  EXPECT_EQ(day[0].text, "yi4 tian1 ");
}

TEST(SpeechPlanTest, NumbersAreReadAndMapBackToTheDigits) {
  const std::string text = "只要99元";
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "zhi3 yao4 jiu3 shi2 jiu3 yuan2 ");
  EXPECT_EQ(SourceOf(text, chunks[0], "shi2"), "99");
  EXPECT_EQ(SourceOf(text, chunks[0], "yuan2"), "元");
}

TEST(SpeechPlanTest, LatinWordsInChineseBecomeEnglishChunks) {
  const std::string text = "我买了iPhone Pro，真好";
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].language, Language::kZh);
  EXPECT_EQ(chunks[1].language, Language::kEn);
  EXPECT_EQ(chunks[1].text.substr(0, 10), "iPhone Pro");
  EXPECT_EQ(SourceOf(text, chunks[1], "Pro"), "Pro");
  EXPECT_EQ(chunks[2].language, Language::kZh);
  EXPECT_EQ(chunks[2].text, "zhen1 hao3 ");
}

TEST(SpeechPlanTest, EnglishKeepsItsTextAndCutsOutChinese) {
  const std::string text = "Buy it on 淘宝 today, only $5.";
  const std::vector<SpeechChunk> chunks = PlanEnglishSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].language, Language::kEn);
  EXPECT_EQ(chunks[0].text, "Buy it on ");
  EXPECT_EQ(chunks[1].language, Language::kZh);
  EXPECT_EQ(chunks[1].text, "tao2 bao3 ");
  EXPECT_EQ(SourceOf(text, chunks[1], "bao3"), "宝");
  // English runs are normalized as English, mapped back to what was written.
  EXPECT_EQ(chunks[2].text, " today, only five dollars.");
  EXPECT_EQ(SourceOf(text, chunks[2], "today"), "today");
  EXPECT_NE(SourceOf(text, chunks[2], "dollars").find('5'), std::string::npos);
}

// The spans of `text` as "zh:..." / "en:..." strings.
std::vector<std::string> Spans(const std::string& text, Language base) {
  std::vector<std::string> out;
  for (const LanguageSpan& span : SplitLanguageSpans(text, base)) {
    out.push_back(std::string(LanguageCode(span.language)) + ":" + text.substr(span.begin, span.end - span.begin));
  }
  return out;
}

TEST(SpeechPlanTest, ModelNamesInChineseAreOneEnglishRun) {
  using ::testing::ElementsAre;
  EXPECT_THAT(Spans("买iPhone 15 Pro送耳机", Language::kZh), ElementsAre("zh:买", "en:iPhone 15 Pro", "zh:送耳机"));
  EXPECT_THAT(Spans("RTX 4090显卡", Language::kZh), ElementsAre("en:RTX 4090", "zh:显卡"));
  EXPECT_THAT(Spans("三星S24和T-shirt", Language::kZh), ElementsAre("zh:三星", "en:S24", "zh:和", "en:T-shirt"));
  // A number before a unit is a quantity, read in Chinese.
  EXPECT_THAT(Spans("iPhone 15 Pro 256GB只要99元", Language::kZh),
              ElementsAre("en:iPhone 15 Pro", "zh: 256GB只要99元"));
  EXPECT_THAT(Spans("5G手机", Language::kZh), ElementsAre("zh:5G手机"));
}

TEST(SpeechPlanTest, ChineseRunsInEnglishTakeTheirNumbers) {
  using ::testing::ElementsAre;
  EXPECT_THAT(Spans("Try our 小笼包 today", Language::kEn), ElementsAre("en:Try our ", "zh:小笼包", "en: today"));
  EXPECT_THAT(Spans("buy 3件, 2 left", Language::kEn), ElementsAre("en:buy ", "zh:3件", "en:, 2 left"));
  // A price in yuan and a discount are said in English ("ninety-nine yuan").
  EXPECT_THAT(Spans("only 99元, 5折", Language::kEn), ElementsAre("en:only 99元, 5折"));
  EXPECT_THAT(Spans("Hello", Language::kEn), ElementsAre("en:Hello"));
  EXPECT_TRUE(Spans("", Language::kZh).empty());
}

TEST(SpeechPlanTest, ModelNumbersAreSaidInPairsByTheEnglishVoice) {
  const std::string text = "RTX 4090显卡";
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].language, Language::kEn);
  EXPECT_EQ(chunks[0].text, "R T X forty ninety");
  EXPECT_EQ(SourceOf(text, chunks[0], "ninety"), "4090");
  EXPECT_EQ(SourceOf(text, chunks[0], "X"), "RTX");
  EXPECT_EQ(chunks[1].text, "xian2 ka3 ");  // 3-3 sandhi
  EXPECT_EQ(PlanMandarinSpeech("iPhone 15", Lexicon())[0].text, "iPhone fifteen");
}

TEST(SpeechPlanTest, SomeAcronymsAreSpelled) {
  const std::string text = "LED灯";
  const std::vector<SpeechChunk> chunks = PlanMandarinSpeech(text, Lexicon());
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].text, "L E D");
  EXPECT_EQ(SourceOf(text, chunks[0], "E"), "LED");
}

TEST(SpeechPlanTest, NothingToSay) {
  EXPECT_TRUE(PlanMandarinSpeech("", Lexicon()).empty());
  EXPECT_TRUE(PlanMandarinSpeech("，。！", Lexicon()).empty());
  EXPECT_TRUE(PlanEnglishSpeech("  ...", Lexicon()).empty());
  EXPECT_EQ(PlanEnglishSpeech("42", Lexicon()).size(), 1u);
}

}  // namespace
}  // namespace lingcast
