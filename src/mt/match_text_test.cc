#include "mt/match_text.h"

#include <random>

#include "core/status_matchers.h"
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

namespace lingcast {
namespace {

MatchSpelling Chinese() {
  absl::StatusOr<MatchSpelling> spelling = MatchSpelling::Load(Language::kZh);
  EXPECT_OK(spelling);
  EXPECT_NE(spelling->to_simplified(), nullptr);
  return *std::move(spelling);
}

TEST(MatchSpellingTest, TraditionalAndSimplifiedAreOneSpelling) {
  const MatchSpelling zh = Chinese();
  EXPECT_EQ(zh.Key("喜歡的話記得點個關注"), zh.Key("喜欢的话记得点个关注"));
  EXPECT_EQ(zh.Key("甚至出現交易幾乎停滯的情況"), zh.Key("甚至出现交易几乎停滞的情况"));
  // Without the converter the characters are matched as written.
  const MatchSpelling as_written(Language::kZh);
  EXPECT_NE(as_written.Key("喜歡的話"), as_written.Key("喜欢的话"));
}

TEST(MatchSpellingTest, ChineseDigitsAndNumeralsAreOneSpelling) {
  const MatchSpelling zh = Chinese();
  // Two of the lines Whisper base heard right on a held-out show and the follower missed.
  EXPECT_EQ(zh.Key("專櫃價格是328元"), zh.Key("专柜价格是三百二十八元"));
  EXPECT_EQ(zh.Key("50毫升"), zh.Key("五十毫升"));
  EXPECT_EQ(zh.Key("只要89元"), zh.Key("只要八十九元"));
  // 两 and 二: NormalizeChinese reads 200 as 二百, a script may write 两百.
  EXPECT_EQ(zh.Key("库存只剩200件了"), zh.Key("库存只剩两百件了"));
  EXPECT_EQ(zh.Key("买2件"), zh.Key("买二件"));
  EXPECT_EQ(zh.Key("二〇二四年"), zh.Key("2024年"));
  // Full width, prices and percentages.
  EXPECT_EQ(zh.Key("全场５０％"), zh.Key("全场百分之五十"));
  EXPECT_EQ(zh.Key("¥99"), zh.Key("九十九元"));
  EXPECT_EQ(zh.Tokens("328元"), (std::vector<std::string>{"三", "百", "二", "十", "八", "元"}));
}

TEST(MatchSpellingTest, EnglishNumbersAreWords) {
  const MatchSpelling en(Language::kEn);
  EXPECT_EQ(en.Key("Now only $89!"), en.Key("now only eighty nine dollars"));
  EXPECT_EQ(en.Key("the first 15 buyers"), en.Key("the first fifteen buyers"));
  EXPECT_EQ(en.Key("80% off"), en.Key("eighty percent off"));
  EXPECT_EQ(en.Key("＄８９"), en.Key("eighty-nine dollars"));
  EXPECT_EQ(en.Key("now only eighty nine dollars"), "now only eighty nine dollars");
}

TEST(MatchSpellingTest, RecognizedWordsWithoutDigitsStayAsTheyAre) {
  // What pocketsphinx writes (lower-case words, no digits or symbols) keeps its
  // tokens: only the script's written forms change.
  const MatchSpelling en(Language::kEn);
  for (const std::string heard : {"welcome to the live room everyone", "the price today is only ninety nine yuan",
                                  "we only have two hundred left in stock", "i'm going to show you the u s b cable",
                                  "see you at the same time next week", "no it's not a m or p m", "us and them"}) {
    EXPECT_EQ(en.Key(heard), MatchKey(heard)) << heard;
  }
}

TEST(MatchSpellingTest, WholeNumbersAreOneToken) {
  const MatchSpelling zh = Chinese();
  EXPECT_EQ(zh.TokensWithWholeNumbers("专柜价格是328元"),
            (std::vector<std::string>{"专", "柜", "价", "格", "是", "三百二十八", "元"}));
  EXPECT_EQ(zh.TokensWithWholeNumbers("重3.5斤，点个关注"),
            (std::vector<std::string>{"重", "三点五", "斤", "点", "个", "关", "注"}));
  const MatchSpelling en(Language::kEn);
  EXPECT_EQ(en.TokensWithWholeNumbers("Now only $89, buy one"),
            (std::vector<std::string>{"now", "only", "eighty nine", "dollars", "buy", "one"}));
  EXPECT_EQ(en.TokensWithWholeNumbers("3.5 stars"), (std::vector<std::string>{"three point five", "stars"}));
}

TEST(MatchSpellingTest, DefaultIsAsWritten) {
  const MatchSpelling as_written;
  EXPECT_FALSE(as_written.language().has_value());
  EXPECT_EQ(as_written.Spell("Only $89, 喜歡"), "Only $89, 喜歡");
  EXPECT_EQ(as_written.Key("Only $89"), MatchKey("Only $89"));
}

TEST(BestStretchTest, TheQueryMatchesAnyStretchOfTheLineAndTheEndIsItsFirstBest) {
  const std::vector<std::string> line = {"click", "the", "link", "below", "to", "buy", "it", "now"};
  // Mid-line, exact: distance 0, ending after "buy".
  StretchMatch m = BestStretch(std::vector<std::string>{"link", "below", "to", "buy"}, line);
  EXPECT_EQ(m.distance, 0);
  EXPECT_EQ(m.end, 6u);
  // One word misheard: one edit.
  m = BestStretch(std::vector<std::string>{"the", "lint", "below"}, line);
  EXPECT_EQ(m.distance, 1);
  EXPECT_EQ(m.end, 4u);
  // Nothing in common: every word of the query is an edit; the empty stretch at 0 is the first best.
  m = BestStretch(std::vector<std::string>{"good", "morning"}, line);
  EXPECT_EQ(m.distance, 2);
  EXPECT_EQ(m.end, 0u);
  // Token ids work the same.
  EXPECT_EQ(BestStretch(std::vector<uint32_t>{7, 8}, std::vector<uint32_t>{1, 7, 8, 9}).end, 3u);
  EXPECT_EQ(BestStretch(std::vector<uint32_t>{}, std::vector<uint32_t>{1, 2}).distance, 0);
}

}  // namespace
}  // namespace lingcast
