#include "asr/word_error_rate.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(WordErrorRateTest, CountsEachKindOfError) {
  const WordErrors e = CountWordErrors("one two three four five six", "one too three five six seven");
  EXPECT_EQ(e.reference_words, 6);
  EXPECT_EQ(e.substitutions, 1);  // two -> too
  EXPECT_EQ(e.deletions, 1);      // four
  EXPECT_EQ(e.insertions, 1);     // seven
  EXPECT_NEAR(e.rate(), 3.0 / 6, 1e-9);
}

TEST(WordErrorRateTest, NormalizesCaseAndPunctuation) {
  EXPECT_EQ(CountWordErrors("CONCORD RETURNED TO ITS PLACE", "concord, returned to its place.").errors(), 0);
}

TEST(WordErrorRateTest, EmptySides) {
  EXPECT_EQ(CountWordErrors("", "").rate(), 0.0);
  EXPECT_EQ(CountWordErrors("a b", "").deletions, 2);
  EXPECT_EQ(CountWordErrors("", "a").rate(), 1.0);
}

TEST(WordErrorRateTest, Accumulates) {
  WordErrors total = CountWordErrors("a b", "a c");
  total += CountWordErrors("d e f", "d e f");
  EXPECT_EQ(total.reference_words, 5);
  EXPECT_NEAR(total.rate(), 0.2, 1e-9);
}

}  // namespace
}  // namespace lingcast
