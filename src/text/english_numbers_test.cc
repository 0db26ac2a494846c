#include "text/english_numbers.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(EnglishNumberWordsTest, Cardinals) {
  EXPECT_EQ(EnglishCardinal(0), "zero");
  EXPECT_EQ(EnglishCardinal(7), "seven");
  EXPECT_EQ(EnglishCardinal(15), "fifteen");
  EXPECT_EQ(EnglishCardinal(21), "twenty-one");
  EXPECT_EQ(EnglishCardinal(100), "one hundred");
  EXPECT_EQ(EnglishCardinal(110), "one hundred ten");
  EXPECT_EQ(EnglishCardinal(1299), "one thousand two hundred ninety-nine");
  EXPECT_EQ(EnglishCardinal(1000001), "one million one");
  EXPECT_EQ(EnglishCardinal(2500000000ULL), "two billion five hundred million");
}

TEST(EnglishNumberWordsTest, OrdinalsYearsDigits) {
  EXPECT_EQ(EnglishOrdinal(1), "first");
  EXPECT_EQ(EnglishOrdinal(2), "second");
  EXPECT_EQ(EnglishOrdinal(3), "third");
  EXPECT_EQ(EnglishOrdinal(5), "fifth");
  EXPECT_EQ(EnglishOrdinal(12), "twelfth");
  EXPECT_EQ(EnglishOrdinal(20), "twentieth");
  EXPECT_EQ(EnglishOrdinal(21), "twenty-first");
  EXPECT_EQ(EnglishOrdinal(101), "one hundred first");
  EXPECT_EQ(EnglishYear(2024), "twenty twenty-four");
  EXPECT_EQ(EnglishYear(2000), "two thousand");
  EXPECT_EQ(EnglishYear(2008), "two thousand eight");
  EXPECT_EQ(EnglishYear(2010), "twenty ten");
  EXPECT_EQ(EnglishYear(1999), "nineteen ninety-nine");
  EXPECT_EQ(EnglishYear(1905), "nineteen oh five");
  EXPECT_EQ(EnglishYear(1900), "nineteen hundred");
  EXPECT_EQ(EnglishDigits("4007"), "four zero zero seven");
}

TEST(EnglishNumberWordsTest, ProductNumbersInPairs) {
  EXPECT_EQ(EnglishPairs("4090"), "forty ninety");
  EXPECT_EQ(EnglishPairs("3060"), "thirty sixty");
  EXPECT_EQ(EnglishPairs("1080"), "ten eighty");
  EXPECT_EQ(EnglishPairs("4000"), "four thousand");
  EXPECT_EQ(EnglishPairs("580"), "five eighty");
  EXPECT_EQ(EnglishPairs("605"), "six oh five");
  EXPECT_EQ(EnglishPairs("500"), "five hundred");
  EXPECT_EQ(EnglishPairs("15"), "fifteen");
  EXPECT_EQ(EnglishPairs("13700"), "one three seven zero zero");
  EXPECT_EQ(EnglishPairs(""), "");
}

}  // namespace
}  // namespace lingcast
