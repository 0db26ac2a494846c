#include "mt/match_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;

TEST(MatchTokensTest, ChineseByCharacterEnglishByWordDigitsByRun) {
  EXPECT_THAT(MatchTokens("iPhone 15，只要99元！"), ElementsAre("iphone", "15", "只", "要", "99", "元"));
  EXPECT_THAT(MatchTokens("Don't miss it."), ElementsAre("don't", "miss", "it"));
}

TEST(MatchTokensTest, FoldsWidthAndCase) {
  EXPECT_EQ(MatchKey("ＩＰＨＯＮＥ　１５"), MatchKey("iphone 15"));
  EXPECT_EQ(MatchKey("Hello, World!"), "hello world");
}

TEST(MatchTokensTest, PunctuationOnlyHasNoTokens) {
  EXPECT_TRUE(MatchTokens("，。！？…  ").empty());
  EXPECT_EQ(MatchKey(""), "");
}

TEST(TokenEditDistanceTest, CountsInsertionsDeletionsSubstitutions) {
  EXPECT_EQ(TokenEditDistance({1, 2, 3}, {1, 2, 3}), 0);
  EXPECT_EQ(TokenEditDistance({1, 2, 3}, {1, 3}), 1);
  EXPECT_EQ(TokenEditDistance({1, 2, 3}, {1, 4, 3}), 1);
  EXPECT_EQ(TokenEditDistance({}, {1, 2}), 2);
  EXPECT_EQ(TokenEditDistance({1, 2, 3, 4}, {4, 3, 2, 1}), 4);
}

TEST(TokenEditDistanceTest, StopsPastTheBand) {
  EXPECT_GT(TokenEditDistance({1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, 2), 2);
  EXPECT_GT(TokenEditDistance({1}, {1, 2, 3, 4}, 2), 2);
  EXPECT_EQ(TokenEditDistance({1, 2, 3, 4, 5, 6}, {1, 2, 0, 4, 5, 6}, 2), 1);
}

TEST(TokenSimilarityTest, IsOneMinusDistanceOverLongest) {
  EXPECT_DOUBLE_EQ(TokenSimilarity({1, 2, 3, 4}, {1, 2, 3, 5}), 0.75);
  EXPECT_DOUBLE_EQ(TokenSimilarity({}, {}), 1.0);
  EXPECT_DOUBLE_EQ(TokenSimilarity({1}, {}), 0.0);
}

}  // namespace
}  // namespace lingcast
