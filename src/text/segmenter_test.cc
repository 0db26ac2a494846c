#include "text/segmenter.h"

#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "text/utf8.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<Clause> SegmentWhole(std::string_view text, SegmenterConfig config = {}) {
  ClauseSegmenter segmenter(config);
  std::vector<Clause> out = segmenter.Push(text);
  for (Clause& c : segmenter.Flush()) out.push_back(std::move(c));
  return out;
}

std::vector<std::string> Texts(const std::vector<Clause>& clauses) {
  std::vector<std::string> out;
  for (const Clause& c : clauses) out.push_back(c.text);
  return out;
}

std::vector<std::string> SegmentTexts(std::string_view text, SegmenterConfig config = {}) {
  return Texts(SegmentWhole(text, config));
}

bool SameClauses(const std::vector<Clause>& a, const std::vector<Clause>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].text != b[i].text || a[i].source_offset != b[i].source_offset ||
        a[i].ends_sentence != b[i].ends_sentence || a[i].language != b[i].language) {
      return false;
    }
  }
  return true;
}

int CountWords(const std::string& text) {
  int words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool letter = c != ' ';
    words += letter && !in_word;
    in_word = letter;
  }
  return words;
}

TEST(SegmenterTest, ChineseSentencesAndClauses) {
  EXPECT_THAT(SegmentTexts("今天天气很好，我们去公园吧！你来吗？好的。"),
              ElementsAre("今天天气很好，", "我们去公园吧！", "你来吗？", "好的。"));
  EXPECT_THAT(SegmentTexts("第一、质量好；第二：价格低"), ElementsAre("第一、", "质量好；", "第二：", "价格低"));
  EXPECT_THAT(SegmentTexts("真的吗？！太好了！！！"), ElementsAre("真的吗？！", "太好了！！！"));
}

TEST(SegmenterTest, SentenceEndsAreMarked) {
  const std::vector<Clause> clauses = SegmentWhole("你好，世界。Hello, world! Bye");
  ASSERT_EQ(clauses.size(), 5u);
  EXPECT_FALSE(clauses[0].ends_sentence);
  EXPECT_TRUE(clauses[1].ends_sentence);
  EXPECT_FALSE(clauses[2].ends_sentence);
  EXPECT_TRUE(clauses[3].ends_sentence);
  EXPECT_TRUE(clauses[4].ends_sentence) << "the end of the stream ends the sentence";
}

TEST(SegmenterTest, ClosingQuotesAndBracketsStayWithTheirClause) {
  EXPECT_THAT(SegmentTexts("他说：“好的。”我们走吧。"), ElementsAre("他说：", "“好的。”", "我们走吧。"));
  EXPECT_THAT(SegmentTexts("She said \"Go.\" Then she left."),
              ElementsAre("She said \"Go.\"", "Then she left."));
  EXPECT_THAT(SegmentTexts("（包邮！）现在下单"), ElementsAre("（包邮！）", "现在下单"));
  EXPECT_THAT(SegmentTexts("(It ships today.) Order now."), ElementsAre("(It ships today.)", "Order now."));
}

TEST(SegmenterTest, PeriodsInsideNumbersUrlsAndEmailsDoNotBreak) {
  EXPECT_THAT(SegmentTexts("It costs 3.5 dollars. Buy now."), ElementsAre("It costs 3.5 dollars.", "Buy now."));
  EXPECT_THAT(SegmentTexts("Visit www.example.com/a?id=3 or mail sales@shop.example.cn today."),
              ElementsAre("Visit www.example.com/a?id=3 or mail sales@shop.example.cn today."));
  EXPECT_THAT(SegmentTexts("只要3.5元。"), ElementsAre("只要3.5元。"));
  EXPECT_THAT(SegmentTexts("It is 1,299 yuan, at 10:30 sharp."),
              ElementsAre("It is 1,299 yuan,", "at 10:30 sharp."));
}

TEST(SegmenterTest, AbbreviationsDoNotEndSentences) {
  EXPECT_THAT(SegmentTexts("Mr. Smith met Dr. Lee. They talked."),
              ElementsAre("Mr. Smith met Dr. Lee.", "They talked."));
  EXPECT_THAT(SegmentTexts("Bring fruit, e.g. apples and pears."),
              ElementsAre("Bring fruit,", "e.g. apples and pears."));
  EXPECT_THAT(SegmentTexts("Made in the U.S. by hand. It lasts."),
              ElementsAre("Made in the U.S. by hand.", "It lasts."));
  EXPECT_THAT(SegmentTexts("Made in the U.S. It lasts."), ElementsAre("Made in the U.S.", "It lasts."));
  EXPECT_THAT(SegmentTexts("Open at 9 a.m. every day. See item No. 5 now."),
              ElementsAre("Open at 9 a.m. every day.", "See item No. 5 now."));
  EXPECT_THAT(SegmentTexts("Written by J. K. Rowling. Great."), ElementsAre("Written by J. K. Rowling.", "Great."));
  EXPECT_THAT(SegmentTexts("Cups, plates etc. are included. Etc. Done."),
              ElementsAre("Cups,", "plates etc. are included.", "Etc.", "Done."));
}

TEST(SegmenterTest, Ellipsis) {
  EXPECT_THAT(SegmentTexts("我想想……好吧。"), ElementsAre("我想想……", "好吧。"));
  const std::vector<Clause> clauses = SegmentWhole("Well... maybe. Wait… Yes.");
  ASSERT_THAT(Texts(clauses), ElementsAre("Well...", "maybe.", "Wait…", "Yes."));
  EXPECT_FALSE(clauses[0].ends_sentence) << "an ellipsis before a lower-case word is a pause";
  EXPECT_TRUE(clauses[2].ends_sentence);
}

TEST(SegmenterTest, DashesAndLineBreaks) {
  EXPECT_THAT(SegmentTexts("这款——真的很好用"), ElementsAre("这款——", "真的很好用"));
  EXPECT_THAT(SegmentTexts("It is fast – really fast. Ships in 3–5 days."),
              ElementsAre("It is fast –", "really fast.", "Ships in 3–5 days."));
  const std::vector<Clause> lines = SegmentWhole("第一行\n第二行\r\n\nthird line");
  ASSERT_THAT(Texts(lines), ElementsAre("第一行", "第二行", "third line"));
  EXPECT_TRUE(lines[0].ends_sentence);
  SegmenterConfig joined;
  joined.newline_ends_sentence = false;
  EXPECT_THAT(SegmentTexts("one line\nstill one.", joined), ElementsAre("one line\nstill one."));
}

TEST(SegmenterTest, OffsetsPointIntoTheStream) {
  const std::string text = "  你好，  world. 3.5元\n  ";
  const std::vector<Clause> clauses = SegmentWhole(text);
  ASSERT_THAT(Texts(clauses), ElementsAre("你好，", "world.", "3.5元"));
  for (const Clause& c : clauses) EXPECT_EQ(text.substr(c.source_offset, c.text.size()), c.text);
  EXPECT_EQ(clauses[0].source_offset, 2);
}

TEST(SegmenterTest, LanguagePerClauseAndCarriedOverForNumbers) {
  const std::vector<Clause> clauses = SegmentWhole("Hello there. 3.5! 你好。2024！iPhone 15 Pro 只要99元。");
  ASSERT_EQ(clauses.size(), 5u);
  EXPECT_EQ(clauses[0].language, Language::kEn);
  EXPECT_EQ(clauses[1].language, Language::kEn) << "no evidence: the previous clause's language";
  EXPECT_EQ(clauses[2].language, Language::kZh);
  EXPECT_EQ(clauses[3].language, Language::kZh);
  EXPECT_EQ(clauses[4].language, Language::kZh);
  SegmenterConfig zh;
  zh.default_language = Language::kZh;
  EXPECT_EQ(SegmentWhole("123", zh).at(0).language, Language::kZh);
}

TEST(SegmenterTest, EmptyAndWhitespaceOnlyTextGivesNoClauses) {
  EXPECT_TRUE(SegmentWhole("").empty());
  EXPECT_TRUE(SegmentWhole(" \n\t \u3000 ").empty());
  EXPECT_THAT(SegmentTexts("好。   \n  "), ElementsAre("好。"));
}

TEST(SegmenterTest, LongEnglishIsCutAtWordBoundaries) {
  std::string text;
  for (int i = 1; i <= 45; ++i) text += "word" + std::to_string(i) + " ";
  const std::vector<Clause> clauses = SegmentWhole(text);
  ASSERT_EQ(clauses.size(), 3u);
  EXPECT_EQ(CountWords(clauses[0].text), 20);
  EXPECT_EQ(CountWords(clauses[1].text), 20);
  EXPECT_EQ(CountWords(clauses[2].text), 5);
  EXPECT_FALSE(clauses[0].ends_sentence);
  EXPECT_TRUE(clauses[0].text.starts_with("word1 ") && clauses[0].text.ends_with("word20"));
}

TEST(SegmenterTest, LongChineseIsCutAfterTheMaximumHanCharacters) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "好";
  const std::vector<Clause> clauses = SegmentWhole(text);
  ASSERT_EQ(clauses.size(), 3u);
  EXPECT_EQ(DecodeUtf8(clauses[0].text).size(), 40u);
  EXPECT_EQ(DecodeUtf8(clauses[1].text).size(), 40u);
  EXPECT_EQ(DecodeUtf8(clauses[2].text).size(), 20u);
}

TEST(SegmenterTest, LongClausePrefersASpaceInItsSecondHalf) {
  SegmenterConfig config;
  config.max_han_characters = 10;
  // 7 Han characters, a space, 4 more: the space is in the second half.
  EXPECT_THAT(SegmentTexts("一二三四五六七 八九十一二三", config), ElementsAre("一二三四五六七", "八九十一二三"));
  // A space in the first half loses to the Han boundary at the limit.
  EXPECT_THAT(SegmentTexts("一二 三四五六七八九十一二", config), ElementsAre("一二 三四五六七八九十", "一二"));
}

TEST(SegmenterTest, LongClauseIsNeverCutInsideANumber) {
  SegmenterConfig config;
  config.max_han_characters = 5;
  for (const Clause& c : SegmentWhole("价格是12345678元哦好的呀", config)) {
    EXPECT_THAT(c.text, ::testing::Not(::testing::MatchesRegex(".*[0-9]"))) << c.text;
  }
  EXPECT_THAT(SegmentTexts("价格是12345678元哦好的呀", config), ElementsAre("价格是12345678元", "哦好的呀"));
}

TEST(SegmenterTest, OneEnormousWordIsCutAtTheByteCapOnACharacterBoundary) {
  SegmenterConfig config;
  config.max_clause_bytes = 100;
  std::string text;
  for (int i = 0; i < 300; ++i) text += "é";  // 2 bytes each, no place to break
  const std::vector<Clause> clauses = SegmentWhole(text, config);
  ASSERT_EQ(clauses.size(), 6u);
  for (const Clause& c : clauses) {
    EXPECT_EQ(c.text.size(), 100u);
    EXPECT_OK(ValidateUtf8(c.text));
  }
}

TEST(SegmenterTest, TenThousandCharactersWithoutPunctuationStreamInBoundedMemory) {
  ClauseSegmenter segmenter;
  const std::string pieces[] = {"我们", "今天", "直播", "的商品", "非常", "好用"};
  size_t max_pending = 0;
  size_t characters = 0;
  size_t clauses_during_push = 0;
  std::string all;
  while (characters < 10000) {
    for (const std::string& piece : pieces) {
      all += piece;
      clauses_during_push += segmenter.Push(piece).size();
      max_pending = std::max(max_pending, segmenter.pending_bytes());
      characters += DecodeUtf8(piece).size();
    }
  }
  const std::vector<Clause> rest = segmenter.Flush();
  EXPECT_LE(max_pending, 40u * 3 + 16) << "pending text stays within one clause plus a piece";
  EXPECT_GE(clauses_during_push, characters / 40 - 1) << "clauses come out while text arrives";
  EXPECT_LE(rest.size(), 1u);
  EXPECT_EQ(segmenter.pending_bytes(), 0u);
}

TEST(SegmenterTest, AnySplitGivesTheClausesOfTheWholeText) {
  const std::string texts[] = {
      "欢迎来到直播间！今天的iPhone 15 Pro只要5999元，原价6999.9元……真的吗？他说：“好的。”"
      "Mr. Smith paid $3.5 at www.shop.cn/a?id=3, e.g. today. Wait... yes! U.S. Army\n第二行——结束",
      "It is 1,299 yuan at 10:30 a.m. in the U.S. It lasts.  (Ships 3–5 days.) Done… ok",
      std::string("bad \xE4\xB8 bytes\xFF 3.") + "5 " + std::string(60, 'x') + " 好好好好好好好好",
  };
  SegmenterConfig small;
  small.max_han_characters = 8;
  small.max_words = 4;
  small.max_clause_bytes = 40;
  for (const SegmenterConfig& config : {SegmenterConfig{}, small}) {
    for (const std::string& text : texts) {
      const std::vector<Clause> whole = SegmentWhole(text, config);
      ASSERT_FALSE(whole.empty());
      for (size_t split = 0; split <= text.size(); ++split) {
        ClauseSegmenter segmenter(config);
        std::vector<Clause> got = segmenter.Push(std::string_view(text).substr(0, split));
        for (Clause& c : segmenter.Push(std::string_view(text).substr(split))) got.push_back(std::move(c));
        for (Clause& c : segmenter.Flush()) got.push_back(std::move(c));
        ASSERT_TRUE(SameClauses(whole, got)) << "split at byte " << split << " of: " << text;
      }
      ClauseSegmenter byte_by_byte(config);
      std::vector<Clause> got;
      for (const char c : text) {
        for (Clause& clause : byte_by_byte.Push(std::string_view(&c, 1))) got.push_back(std::move(clause));
      }
      for (Clause& c : byte_by_byte.Flush()) got.push_back(std::move(c));
      EXPECT_TRUE(SameClauses(whole, got)) << "byte by byte: " << text;
      for (const Clause& c : whole) EXPECT_EQ(text.substr(c.source_offset, c.text.size()), c.text);
    }
  }
}

TEST(SegmenterTest, RandomTextSplitAnywhereGivesTheSameClauses) {
  const std::vector<std::string> alphabet = {"好", "的", "。", "，", "！", "？", "…", "——", "“", "”", "（", "）",
                                             "a", "Mr", "e", "g", "U", "S", ".", ",", ":", "?", "!", " ", "\n",
                                             "3", "5", "www", "@", "\"", "'", "é", "\xE4", "\xB8", "😀", "–"};
  SegmenterConfig small;
  small.max_han_characters = 5;
  small.max_words = 3;
  small.max_clause_bytes = 24;
  std::mt19937 random(42);
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const int pieces = 1 + static_cast<int>(random() % 40);
    for (int p = 0; p < pieces; ++p) text += alphabet[random() % alphabet.size()];
    const std::vector<Clause> whole = SegmentWhole(text, small);
    for (const Clause& c : whole) {
      ASSERT_EQ(text.substr(c.source_offset, c.text.size()), c.text) << text;
      ASSERT_LE(c.text.size(), 24u + 8u) << text;
    }
    ClauseSegmenter segmenter(small);
    std::vector<Clause> got;
    size_t at = 0;
    while (at < text.size()) {
      const size_t length = std::min(text.size() - at, static_cast<size_t>(random() % 5));
      for (Clause& c : segmenter.Push(std::string_view(text).substr(at, length))) got.push_back(std::move(c));
      at += length;
    }
    for (Clause& c : segmenter.Flush()) got.push_back(std::move(c));
    ASSERT_TRUE(SameClauses(whole, got)) << text;
  }
}

TEST(SegmenterTest, ADecisionWaitsForTheNextPiece) {
  ClauseSegmenter segmenter;
  EXPECT_TRUE(segmenter.Push("It costs 3.").empty()) << "3. might be 3.5";
  EXPECT_TRUE(segmenter.Push("5 dollars").empty());
  EXPECT_THAT(Texts(segmenter.Push(". Next")), ElementsAre("It costs 3.5 dollars."));
  EXPECT_THAT(Texts(segmenter.Flush()), ElementsAre("Next"));
}

TEST(SegmenterTest, PushAfterFlushContinuesOffsets) {
  ClauseSegmenter segmenter;
  segmenter.Push("你好");
  ASSERT_EQ(segmenter.Flush().size(), 1u);
  EXPECT_TRUE(segmenter.Push("再见。").empty()) << "a closing quote may still follow";
  const std::vector<Clause> next = segmenter.Push("好");
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].text, "再见。");
  EXPECT_EQ(next[0].source_offset, 6);
}

TEST(SegmenterTest, ConfigValidationNamesTheField) {
  EXPECT_OK(ValidateSegmenterConfig({}));
  SegmenterConfig bad;
  bad.max_words = 0;
  EXPECT_THAT(ValidateSegmenterConfig(bad).message(), HasSubstr("max_words must be at least 1, got 0"));
  bad = {};
  bad.max_han_characters = -3;
  EXPECT_THAT(ValidateSegmenterConfig(bad).message(), HasSubstr("max_han_characters"));
  bad = {};
  bad.max_clause_bytes = 4;
  EXPECT_THAT(ValidateSegmenterConfig(bad).message(), HasSubstr("max_clause_bytes must be at least 16"));
  // The constructor raises bad limits instead of looping forever or dividing by zero.
  EXPECT_THAT(SegmentTexts("一二三", SegmenterConfig{0, 0, 0}), ElementsAre("一", "二", "三"));
}

}  // namespace
}  // namespace lingcast
