#include "tts/speech_plan.h"

#include <optional>

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
  EXPECT_EQ(chunks[2].text, " today, only $5.");
  EXPECT_EQ(SourceOf(text, chunks[2], "today"), "today");
}

TEST(SpeechPlanTest, NothingToSay) {
  EXPECT_TRUE(PlanMandarinSpeech("", Lexicon()).empty());
  EXPECT_TRUE(PlanMandarinSpeech("，。！", Lexicon()).empty());
  EXPECT_TRUE(PlanEnglishSpeech("  ...", Lexicon()).empty());
  EXPECT_EQ(PlanEnglishSpeech("42", Lexicon()).size(), 1u);
}

}  // namespace
}  // namespace lingcast
