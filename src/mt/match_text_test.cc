#include "mt/match_text.h"

#include <random>

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

namespace lingcast {
namespace {

// The bit-parallel distance against the table, on random sequences over a small
// alphabet (many repeats), of every length up to past one machine word.
TEST(QueryEditDistanceTest, EqualsTheTableOnRandomSequences) {
  std::mt19937 rng(3);
  int compared = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto random_tokens = [&](int length) {
      std::vector<uint32_t> tokens;
      for (int i = 0; i < length; ++i) tokens.push_back(static_cast<uint32_t>(rng() % (1 + trial % 6)));
      return tokens;
    };
    const std::vector<uint32_t> query = random_tokens(static_cast<int>(rng() % 80));
    const std::vector<uint32_t> line = random_tokens(static_cast<int>(rng() % 80));
    const QueryEditDistance distance_to(query);
    const int exact = TokenEditDistance(query, line);
    EXPECT_EQ(distance_to.Distance(line.data(), static_cast<int>(line.size()), 1 << 30), exact)
        << query.size() << " x " << line.size();
    // Bounded: the distance when within the bound, something past it otherwise.
    const int bound = static_cast<int>(rng() % 20);
    const int bounded = distance_to.Distance(line.data(), static_cast<int>(line.size()), bound);
    if (exact <= bound) {
      EXPECT_EQ(bounded, exact);
    } else {
      EXPECT_GT(bounded, bound);
    }
    ++compared;
  }
  EXPECT_EQ(compared, 3000);
}

TEST(QueryEditDistanceTest, SixtyFourTokensFitOneWord) {
  std::vector<uint32_t> query(64), line(64);
  for (uint32_t i = 0; i < 64; ++i) query[i] = line[i] = i;
  line[0] = 1000;
  line[63] = 1001;
  EXPECT_EQ(QueryEditDistance(query).Distance(line.data(), 64, 64), 2);
  line.push_back(63);
  EXPECT_EQ(QueryEditDistance(query).Distance(line.data(), 65, 64), 2);
}

TEST(QueryEditDistanceTest, EveryTokenValueIsATokenOfItsOwn) {
  const std::vector<uint32_t> query = {0xFFFFFFFFu, 7, 0xFFFFFFFFu};
  const std::vector<uint32_t> same = query, other = {0, 7, 0};
  EXPECT_EQ(QueryEditDistance(query).Distance(same.data(), 3, 10), 0);
  EXPECT_EQ(QueryEditDistance(query).Distance(other.data(), 3, 10), 2);
}

}  // namespace
}  // namespace lingcast
