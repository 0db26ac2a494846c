#include "compose/line_breaker.h"

#include <gtest/gtest.h>

#include <vector>

namespace lingcast::compose {
namespace {

// Monospace advances: CJK characters 2 units wide, everything else 1.
std::vector<double> Advances(std::u32string_view text) {
  std::vector<double> a;
  for (char32_t c : text) a.push_back(IsCjkCharacter(c) ? 2.0 : 1.0);
  return a;
}

std::u32string Slice(std::u32string_view text, const LineSpan& span) {
  return std::u32string(text.substr(span.begin, span.end - span.begin));
}

TEST(LineBreakerTest, BreaksLatinAtSpaces) {
  const std::u32string text = U"hello big world";
  const auto lines = BreakLines(text, Advances(text), 10);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Slice(text, lines[0]), U"hello big");
  EXPECT_EQ(Slice(text, lines[1]), U"world");
  EXPECT_DOUBLE_EQ(lines[0].width, 9);
}

TEST(LineBreakerTest, BreaksCjkBetweenAnyCharacters) {
  const std::u32string text = U"大家好欢迎来到直播间";
  const auto lines = BreakLines(text, Advances(text), 8);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(Slice(text, lines[0]), U"大家好欢");
  EXPECT_EQ(Slice(text, lines[1]), U"迎来到直");
  EXPECT_EQ(Slice(text, lines[2]), U"播间");
}

TEST(LineBreakerTest, ClosingPunctuationNeverStartsALine) {
  // Width 8 fits four characters; the fifth is "，" which must not start line 2,
  // so "好" moves down with it.
  const std::u32string text = U"大家你好，欢迎";
  const auto lines = BreakLines(text, Advances(text), 8);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Slice(text, lines[0]), U"大家你");
  EXPECT_EQ(Slice(text, lines[1]), U"好，欢迎");
}

TEST(LineBreakerTest, OpeningPunctuationNeverEndsALine) {
  const std::u32string text = U"他说「你好」了";
  const auto lines = BreakLines(text, Advances(text), 6);
  for (const LineSpan& line : lines) {
    ASSERT_GT(line.end, line.begin);
    EXPECT_FALSE(IsNoBreakAfter(text[line.end - 1])) << "line ends with an opening bracket";
    EXPECT_FALSE(IsNoBreakBefore(text[line.begin])) << "line starts with closing punctuation";
  }
}

TEST(LineBreakerTest, NeverExceedsMaxWidthAndCoversAllText) {
  const std::u32string text =
      U"大家好，欢迎来到直播间！Today we present the new lingcast anchor。「实时」翻译、字幕和口型同步。";
  const auto advances = Advances(text);
  for (double max_width : {6.0, 9.0, 13.0, 20.0, 40.0}) {
    const auto lines = BreakLines(text, advances, max_width);
    size_t visible = 0;
    for (const LineSpan& line : lines) {
      EXPECT_LE(line.width, max_width) << "max width " << max_width;
      for (size_t i = line.begin; i < line.end; ++i) visible += IsBreakSpace(text[i]) ? 0 : 1;
    }
    size_t expected = 0;
    for (char32_t c : text) expected += IsBreakSpace(c) ? 0 : 1;
    EXPECT_EQ(visible, expected) << "characters lost at max width " << max_width;
  }
}

TEST(LineBreakerTest, PrefersToEndALineAtAClause) {
  const std::u32string zh = U"一二三四五，六七八九十";
  auto lines = BreakLines(zh, Advances(zh), 16);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Slice(zh, lines[0]), U"一二三四五，");
  EXPECT_EQ(Slice(zh, lines[1]), U"六七八九十");
  const std::u32string en = U"Hello there, my good friend";
  lines = BreakLines(en, Advances(en), 20);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Slice(en, lines[0]), U"Hello there,");
  // Too early a clause (under 60% of the line) is not taken.
  const std::u32string early = U"一，二三四五六七八九十";
  lines = BreakLines(early, Advances(early), 16);
  EXPECT_EQ(Slice(early, lines[0]), U"一，二三四五六七");
}

TEST(LineBreakerTest, WordLongerThanLineIsSplit) {
  const std::u32string text = U"supercalifragilistic";
  const auto lines = BreakLines(text, Advances(text), 8);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(Slice(text, lines[0]), U"supercal");
  for (const LineSpan& line : lines) EXPECT_LE(line.width, 8);
}

TEST(LineBreakerTest, MixedScriptsBreakAtTheBoundary) {
  const std::u32string text = U"欢迎lingcast";
  EXPECT_TRUE(CanBreakBefore(text, 2));
  EXPECT_FALSE(CanBreakBefore(text, 3));
}

TEST(LineBreakerTest, HyphenatedWordsBreakAfterTheHyphen) {
  const std::u32string text = U"real-time";
  EXPECT_TRUE(CanBreakBefore(text, 5));
  EXPECT_FALSE(CanBreakBefore(text, 4));
}

TEST(LineBreakerTest, EmptyAndBlankTextGiveNoLines) {
  EXPECT_TRUE(BreakLines(U"", {}, 10).empty());
  const std::u32string blank = U"   ";
  EXPECT_TRUE(BreakLines(blank, Advances(blank), 10).empty());
}

TEST(LineBreakerTest, EllipsisPrefixEndsAtWordBoundary) {
  const std::u32string text = U"hello wonderful world";
  const auto span = FitPrefixForEllipsis(text, Advances(text), 0, 12);
  EXPECT_EQ(Slice(text, span), U"hello");
  EXPECT_LE(span.width, 12);
}

TEST(LineBreakerTest, EllipsisPrefixDropsTrailingOpeningBracket) {
  const std::u32string text = U"你好「世界」";
  const auto span = FitPrefixForEllipsis(text, Advances(text), 0, 6);
  EXPECT_EQ(Slice(text, span), U"你好");
}

}  // namespace
}  // namespace lingcast::compose
