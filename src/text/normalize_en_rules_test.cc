// The English normalizer's rules one by one, through the seams NormalizeEnglish()
// (normalize_en_test.cc) reaches only as a whole.
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "text/normalize_en_acronyms.h"
#include "text/normalize_en_dates.h"
#include "text/normalize_en_money.h"
#include "text/normalize_en_rewriter.h"
#include "text/normalize_en_times.h"
#include "text/normalize_en_units.h"

namespace lingcast::normalize_en {
namespace {

TEST(EnglishRewriterTest, ThousandsGroupsOnlyOfThreeDigits) {
  const EnglishRewriter r("1,299 3,5 1,2345 0,123 12.50");
  const Number grouped = r.ParseNumber(0);
  EXPECT_EQ(grouped.integer, "1299");
  EXPECT_TRUE(grouped.grouped);
  EXPECT_EQ(grouped.end, 5u);
  EXPECT_EQ(r.ParseNumber(6).integer, "3") << "a list, not a number";
  EXPECT_EQ(r.ParseNumber(10).integer, "1") << "four digits after the comma";
  EXPECT_EQ(r.ParseNumber(17).integer, "0") << "a leading zero takes no groups";
  const Number price = r.ParseNumber(23);
  EXPECT_EQ(price.integer, "12");
  EXPECT_EQ(price.fraction, "50");
  EXPECT_EQ(r.ParseNumber(23, /*allow_fraction=*/false).end, 25u);
}

TEST(EnglishRewriterTest, SayOffsetsPointAtTheSourceCharacter) {
  EnglishRewriter r("é5");
  r.Copy(0);
  r.Say("five", 1);
  r.Say("more", 2);  // past the end: the source's size
  const NormalizedText out = std::move(r).Take();
  EXPECT_EQ(out.text, "éfive more");
  ASSERT_EQ(out.source_offset.size(), out.text.size());
  EXPECT_EQ(out.source_offset[2], 2) << "é is two bytes";
  EXPECT_EQ(out.source_offset.back(), 3);
}

TEST(DatesTest, DateWordsChecksMonthAndDay) {
  EXPECT_EQ(DateWords("5", "1", ""), "May first");
  EXPECT_EQ(DateWords("05", "01", "2024"), "May first, twenty twenty-four");
  EXPECT_EQ(DateWords("12", "31", "1999"), "December thirty-first, nineteen ninety-nine");
  EXPECT_FALSE(DateWords("13", "5", "").has_value());
  EXPECT_FALSE(DateWords("2", "0", "").has_value());
  EXPECT_FALSE(DateWords("2", "32", "").has_value());
  EXPECT_FALSE(DateWords("002", "1", "").has_value()) << "three digits are no month";
}

TEST(UnitsTest, CaseAndSpacingDecide) {
  const EnglishRewriter r("5GB 1 kg 5 m 5G 4°C 2 °C 5mAh");
  size_t end = 0;
  const Unit* gigabytes = UnitAt(r, 1, end);
  ASSERT_NE(gigabytes, nullptr);
  EXPECT_EQ(gigabytes->plural, "gigabytes");
  EXPECT_EQ(end, 3u);
  const Unit* kilogram = UnitAt(r, 5, end);
  ASSERT_NE(kilogram, nullptr) << "a unit of two letters may follow one space";
  EXPECT_EQ(kilogram->singular, "kilogram");
  EXPECT_EQ(end, 8u);
  EXPECT_EQ(UnitAt(r, 10, end), nullptr) << "\"5 m\" may be prose";
  EXPECT_EQ(UnitAt(r, 14, end), nullptr) << "5G is a network, not grams";
  const Unit* celsius = UnitAt(r, 17, end);
  ASSERT_NE(celsius, nullptr);
  EXPECT_EQ(celsius->plural, "degrees Celsius");
  EXPECT_EQ(UnitAt(r, 21, end), nullptr) << "a symbol must touch the number";
  const Unit* battery = UnitAt(r, 26, end);
  ASSERT_NE(battery, nullptr);
  EXPECT_EQ(battery->plural, "milliamp hours");
}

TEST(TimesTest, MeridiemForms) {
  std::string spoken;
  const EnglishRewriter r("9am 9 p.m. 9 PM 9 amber");
  EXPECT_EQ(MeridiemEnd(r, 1, spoken), 3u);
  EXPECT_EQ(spoken, "A M");
  EXPECT_EQ(MeridiemEnd(r, 5, spoken), 10u);
  EXPECT_EQ(spoken, "P M");
  EXPECT_EQ(MeridiemEnd(r, 12, spoken), 15u);
  EXPECT_EQ(MeridiemEnd(r, 17, spoken), 17u) << "a word that starts with am";
}

TEST(TimesTest, ARangeThatIsNotATimeIsTakenBack) {
  EnglishRewriter r("9-5 days");
  r.Say("nine", 0);
  EXPECT_EQ(ThenTimeRange(r, 1), 1u);
  EXPECT_EQ(r.written(), "nine") << "the \"to\" said for a range is taken back";
  EnglishRewriter time("9-5pm");
  time.Say("nine", 0);
  EXPECT_EQ(ThenTimeRange(time, 1), 5u);
  EXPECT_EQ(time.written(), "nine to five P M");
}

TEST(MoneyTest, MinorUnitsPointAndMultipliers) {
  const auto say = [](std::string_view amount, const Currency& currency, std::string_view multiplier = "") {
    EnglishRewriter r(amount);
    SayMoney(r, r.ParseNumber(0), currency, multiplier, 0);
    return r.written();
  };
  const Currency& dollar = *CurrencyOfSymbol('$');
  const Currency& pound = *CurrencyOfCode("GBP");
  const Currency& yuan = *CurrencyOfCode("rmb");
  EXPECT_EQ(say("0.5", dollar), "fifty cents");
  EXPECT_EQ(say("1.01", pound), "one pound and one penny");
  EXPECT_EQ(say("2.999", dollar), "two point nine nine nine dollars") << "no cents in three digits";
  EXPECT_EQ(say("19.90", yuan), "nineteen point nine yuan");
  EXPECT_EQ(say("1.00", yuan), "one yuan");
  EXPECT_EQ(say("1", dollar, "million"), "one million dollars");
  EXPECT_EQ(CurrencyOfCode("Rmb"), nullptr);
  EXPECT_EQ(CurrencyOfSymbol('#'), nullptr);
}

TEST(MoneyTest, Multipliers) {
  const EnglishRewriter r("10k 5M 2 million 3 mills 4m");
  size_t end = 0;
  EXPECT_EQ(MultiplierAt(r, 2, end), "thousand");
  EXPECT_EQ(end, 3u);
  EXPECT_EQ(MultiplierAt(r, 5, end), "million");
  EXPECT_EQ(MultiplierAt(r, 8, end), "million");
  EXPECT_EQ(end, 16u);
  EXPECT_EQ(MultiplierAt(r, 18, end), "");
  EXPECT_EQ(MultiplierAt(r, 26, end), "") << "m is meters, not million";
}

TEST(AcronymsTest, SpelledOrSaid) {
  EXPECT_FALSE(IsCapitalWordSaidAsWord("usb"));
  EXPECT_TRUE(IsCapitalWordSaidAsWord("sale"));
  EXPECT_TRUE(IsCapitalWordSaidAsWord("nasa"));
  EXPECT_EQ(Spell("usb"), "U S B");
  EXPECT_EQ(Spell("R"), "R");
}

}  // namespace
}  // namespace lingcast::normalize_en
