#include "text/normalize_en.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/utf8.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

std::string En(std::string_view text) { return NormalizeEnglish(text).text; }

TEST(NormalizeEnglishTest, PlainNumbers) {
  EXPECT_EQ(En("Only 1,299 left"), "Only one thousand two hundred ninety-nine left");
  EXPECT_EQ(En("It weighs 3.5 pounds"), "It weighs three point five pounds");
  EXPECT_EQ(En("Add 0.5 cups"), "Add zero point five cups");
  EXPECT_EQ(En("It was -5 outside"), "It was minus five outside");
  EXPECT_EQ(En("Agent 007"), "Agent zero zero seven");
  EXPECT_EQ(En("We have 100+ colors"), "We have one hundred plus colors");
  EXPECT_EQ(En("Pick 3, 5 or 7."), "Pick three, five or seven.");
  EXPECT_EQ(En("No digits here."), "No digits here.");
}

TEST(NormalizeEnglishTest, Ordinals) {
  EXPECT_EQ(En("the 1st, 2nd, 3rd and 21st buyers"), "the first, second, third and twenty-first buyers");
  EXPECT_EQ(En("our 100th show"), "our one hundredth show");
  EXPECT_EQ(En("We are #1 in sales"), "We are number one in sales");
  EXPECT_EQ(En("Grab item No. 5 now"), "Grab item number five now");
}

TEST(NormalizeEnglishTest, Money) {
  EXPECT_EQ(En("Just $19.99 today"), "Just nineteen dollars and ninety-nine cents today");
  EXPECT_EQ(En("only $1!"), "only one dollar!");
  EXPECT_EQ(En("$0.99 each"), "ninety-nine cents each");
  EXPECT_EQ(En("$1,299"), "one thousand two hundred ninety-nine dollars");
  EXPECT_EQ(En("$5.10"), "five dollars and ten cents");
  EXPECT_EQ(En("¥99 only"), "ninety-nine yuan only");
  EXPECT_EQ(En("￥19.90"), "nineteen point nine yuan");
  EXPECT_EQ(En("It's 99元"), "It's ninety-nine yuan");
  EXPECT_EQ(En("¥99元"), "ninety-nine yuan");
  EXPECT_EQ(En("about 50块"), "about fifty yuan");
  EXPECT_EQ(En("Pay 99 RMB"), "Pay ninety-nine yuan");
  EXPECT_EQ(En("€5 off"), "five euros off");
  EXPECT_EQ(En("£3.50"), "three pounds and fifty pence");
  EXPECT_EQ(En("£1.01"), "one pound and one penny");
  EXPECT_EQ(En("over $10k sold"), "over ten thousand dollars sold");
  EXPECT_EQ(En("$1.5 million"), "one point five million dollars");
  EXPECT_EQ(En("$10-20"), "ten to twenty dollars");
  EXPECT_EQ(En("$10-$20"), "ten to twenty dollars");
  EXPECT_EQ(En("$9.99 - $19.99"),
            "nine dollars and ninety-nine cents to nineteen dollars and ninety-nine cents");
}

TEST(NormalizeEnglishTest, PercentagesAndDiscounts) {
  EXPECT_EQ(En("50% off"), "fifty percent off");
  EXPECT_EQ(En("save 12.5%"), "save twelve point five percent");
  EXPECT_EQ(En("10-20% cheaper"), "ten to twenty percent cheaper");
  EXPECT_EQ(En("10%-20%"), "ten percent to twenty percent");
  EXPECT_EQ(En("Everything 5折 today"), "Everything fifty percent off today");
  EXPECT_EQ(En("8.5折"), "fifteen percent off");
  EXPECT_EQ(En("95折"), "five percent off");
}

TEST(NormalizeEnglishTest, Dates) {
  EXPECT_EQ(En("On May 1, 2024 we launch"), "On May first, twenty twenty-four we launch");
  EXPECT_EQ(En("May 1st only"), "May first only");
  EXPECT_EQ(En("Dec. 25"), "December twenty-fifth");
  EXPECT_EQ(En("Sept 3"), "September third");
  EXPECT_EQ(En("2024-05-01"), "May first, twenty twenty-four");
  EXPECT_EQ(En("See you 5/1!"), "See you May first!");
  EXPECT_EQ(En("Sale on 11/11"), "Sale on November eleventh");
  EXPECT_EQ(En("5/1/2024"), "May first, twenty twenty-four");
  EXPECT_EQ(En("13/5 stays"), "thirteen/five stays") << "not a date: two numbers";
  EXPECT_EQ(En("1/2 price"), "one half price");
  EXPECT_EQ(En("3/4 full"), "three quarters full");
  EXPECT_EQ(En("We are open 24/7"), "We are open twenty-four seven");
  EXPECT_EQ(En("you may 1 day"), "you may one day") << "'may' is not the month";
}

TEST(NormalizeEnglishTest, Years) {
  EXPECT_EQ(En("New in 2024."), "New in twenty twenty-four.");
  EXPECT_EQ(En("Since 1998 we"), "Since nineteen ninety-eight we");
  EXPECT_EQ(En("the 2008 model"), "the two thousand eight model");
  EXPECT_EQ(En("from 2023-2024"), "from twenty twenty-three to twenty twenty-four");
  EXPECT_EQ(En("Only 1299 left"), "Only one thousand two hundred ninety-nine left");
  EXPECT_EQ(En("ship 2000 units"), "ship two thousand units");
}

TEST(NormalizeEnglishTest, Times) {
  EXPECT_EQ(En("at 10:30"), "at ten thirty");
  EXPECT_EQ(En("at 8:05"), "at eight oh five");
  EXPECT_EQ(En("at 10:00."), "at ten o'clock.");
  EXPECT_EQ(En("at 18:00"), "at eighteen hundred");
  EXPECT_EQ(En("at 10:30 am"), "at ten thirty A M");
  EXPECT_EQ(En("at 10:30pm"), "at ten thirty P M");
  EXPECT_EQ(En("at 9 a.m. sharp"), "at nine A M sharp");
  EXPECT_EQ(En("Live 9am-5pm"), "Live nine A M to five P M");
  EXPECT_EQ(En("open 9:00-18:00"), "open nine o'clock to eighteen hundred");
  EXPECT_EQ(En("won 3:2"), "won three:two") << "a score, not a time";
}

TEST(NormalizeEnglishTest, PhoneNumbersDigitByDigit) {
  EXPECT_EQ(En("Call 400-123-4567 now"), "Call four zero zero, one two three, four five six seven now");
  EXPECT_EQ(En("Call (555) 123-4567"), "Call five five five, one two three, four five six seven");
  EXPECT_EQ(En("Text 13800138000"), "Text one three eight, zero zero one three, eight zero zero zero");
  EXPECT_EQ(En("Text 138 0013 8000"), "Text one three eight, zero zero one three, eight zero zero zero");
  EXPECT_EQ(En("Dial +86 138 0013 8000"),
            "Dial plus eight six, one three eight, zero zero one three, eight zero zero zero");
}

TEST(NormalizeEnglishTest, Units) {
  EXPECT_EQ(En("256GB storage"), "two hundred fifty-six gigabytes storage");
  EXPECT_EQ(En("a 5000mAh battery"), "a five thousand milliamp hours battery");
  EXPECT_EQ(En("1 kg"), "one kilogram");
  EXPECT_EQ(En("1.5 kg"), "one point five kilograms");
  EXPECT_EQ(En("30cm wide, 500ml"), "thirty centimeters wide, five hundred milliliters");
  EXPECT_EQ(En("Keep at 4°C"), "Keep at four degrees Celsius");
  EXPECT_EQ(En("-5℃ outside"), "minus five degrees Celsius outside");
  EXPECT_EQ(En("65W charger, 120Hz screen"), "sixty-five watts charger, one hundred twenty hertz screen");
  EXPECT_EQ(En("a 6.1\" display"), "a six point one inches display");
  EXPECT_EQ(En("3nm chip"), "three nanometers chip");
  EXPECT_EQ(En("2x faster"), "two times faster");
  EXPECT_EQ(En("10 pcs"), "ten pieces");
  EXPECT_EQ(En("I have 5 m"), "I have five m") << "one-letter units need no space before them";
}

TEST(NormalizeEnglishTest, ModelNames) {
  EXPECT_EQ(En("iPhone 15 Pro"), "iPhone fifteen Pro");
  EXPECT_EQ(En("the RTX 4090 card"), "the R T X forty ninety card");
  EXPECT_EQ(En("an RX 580"), "an R X five eighty");
  EXPECT_EQ(En("Galaxy S24 Ultra"), "Galaxy S twenty-four Ultra");
  EXPECT_EQ(En("PS5 bundle"), "P S five bundle");
  EXPECT_EQ(En("4K video over 5G"), "four K video over five G");
  EXPECT_EQ(En("1080p screen"), "ten eighty p screen");
  EXPECT_EQ(En("USB-C port"), "U S B C port");
  EXPECT_EQ(En("GPT-4 inside"), "G P T four inside");
  EXPECT_EQ(En("Type-C cable"), "Type C cable");
  EXPECT_EQ(En("a 1920x1080 panel"), "a nineteen twenty by ten eighty panel");
  EXPECT_EQ(En("Huawei Mate 60"), "Huawei Mate sixty");
  EXPECT_EQ(En("an i7 laptop"), "an i seven laptop");
}

TEST(NormalizeEnglishTest, RangesAndHyphens) {
  EXPECT_EQ(En("ships in 3-5 days"), "ships in three to five days");
  EXPECT_EQ(En("3~5kg"), "three to five kilograms");
  EXPECT_EQ(En("a 3-day sale"), "a three day sale");
  EXPECT_EQ(En("a 6.7-inch screen"), "a six point seven inch screen");
}

TEST(NormalizeEnglishTest, AbbreviationsAndAcronyms) {
  EXPECT_EQ(En("fruit, e.g. apples"), "fruit, for example apples");
  EXPECT_EQ(En("one size, i.e. free"), "one size, that is free");
  EXPECT_EQ(En("cups, plates, etc. Great."), "cups, plates, et cetera. Great.");
  EXPECT_EQ(En("cups etc. are here"), "cups et cetera are here");
  EXPECT_EQ(En("Apple vs. Samsung"), "Apple versus Samsung");
  EXPECT_EQ(En("Mr. Smith and Dr. Lee"), "Mister Smith and Doctor Lee");
  EXPECT_EQ(En("Made in the U.S. by hand"), "Made in the U S by hand");
  EXPECT_EQ(En("Made in the U.S. Now"), "Made in the U S. Now");
  EXPECT_EQ(En("approx. 3 days"), "approximately three days");
  EXPECT_EQ(En("LED TV with NFC"), "L E D T V with N F C");
  EXPECT_EQ(En("BIG SALE, FREE shipping, HURRY"), "big sale, free shipping, hurry");
  EXPECT_EQ(En("50% OFF"), "fifty percent off");
  EXPECT_EQ(En("NASA tech"), "nasa tech");
  EXPECT_EQ(En("OK, R&D and AT&T"), "okay, R and D and A T and T");
  EXPECT_EQ(En("comes w/ a case"), "comes with a case");
  EXPECT_EQ(En("Disney+ and C++"), "Disney plus and C plus plus");
}

TEST(NormalizeEnglishTest, WebAddresses) {
  EXPECT_EQ(En("Visit www.shop123.com."), "Visit w w w dot shop one two three dot com.");
  EXPECT_EQ(En("Mail sales@shop.com today"), "Mail sales at shop dot com today");
  EXPECT_EQ(En("see https://shop.com/sale"), "see shop dot com slash sale");
}

TEST(NormalizeEnglishTest, ChineseIsLeftForTheCodeSwitcher) {
  EXPECT_EQ(En("This 口红 is great"), "This 口红 is great");
  EXPECT_EQ(En("Buy 3件 get 1"), "Buy 3件 get one");
  EXPECT_EQ(En("第2件 half price"), "第2件 half price");
  EXPECT_EQ(En("满300减50"), "满300减50");
}

TEST(NormalizeEnglishTest, OffsetsPointBackAndNeverDecrease) {
  const std::string source = "Only $19.99 at 10:30 am, 256GB, RTX 4090, 口红 2024-05-01 e.g. U.S. 400-123-4567";
  const NormalizedText n = NormalizeEnglish(source);
  ASSERT_EQ(n.source_offset.size(), n.text.size());
  for (size_t k = 0; k < n.source_offset.size(); ++k) {
    ASSERT_GE(n.source_offset[k], 0);
    ASSERT_LT(n.source_offset[k], static_cast<int>(source.size()));
    if (k > 0) {
      ASSERT_GE(n.source_offset[k], n.source_offset[k - 1]) << "at " << k << " in " << n.text;
    }
  }
  EXPECT_EQ(n.source_offset[n.text.find("nineteen")], static_cast<int>(source.find('$')));
  EXPECT_EQ(n.source_offset[n.text.find("gigabytes")], static_cast<int>(source.find("GB")));
  EXPECT_EQ(n.source_offset[n.text.find("forty")], static_cast<int>(source.find("4090")));
  EXPECT_EQ(n.source_offset[n.text.find("口红")], static_cast<int>(source.find("口红")));
}

TEST(NormalizeEnglishTest, EmptyAndOddInput) {
  EXPECT_EQ(En(""), "");
  EXPECT_EQ(En("$"), "$");
  EXPECT_EQ(En("$ 5"), "$ five");
  EXPECT_EQ(En("99999999999999999999"), "nine nine nine nine nine nine nine nine nine nine nine nine nine nine "
                                         "nine nine nine nine nine nine");
  EXPECT_EQ(En("1."), "one.");
  EXPECT_EQ(En("-"), "-");
  EXPECT_EQ(En("5/"), "five/");
}

TEST(NormalizeEnglishTest, VersionsAndRates) {
  EXPECT_EQ(En("Version 2.0.1 is out"), "Version two point zero point one is out");
  EXPECT_EQ(En("Bluetooth 5.3"), "Bluetooth five point three");
  EXPECT_EQ(En("$49.99/month"), "forty-nine dollars and ninety-nine cents per month");
  EXPECT_EQ(En("Use code SAVE20"), "Use code save twenty");
  EXPECT_EQ(En("rated 4.8/5"), "rated four point eight out of five");
}

// Lines a host might read, end to end.
TEST(NormalizeEnglishTest, LiveCommerceLines) {
  EXPECT_EQ(En("Today the iPhone 15 Pro Max is only $999, down from $1,199."),
            "Today the iPhone fifteen Pro Max is only nine hundred ninety-nine dollars, down from one thousand "
            "one hundred ninety-nine dollars.");
  EXPECT_EQ(En("Order before 11:59 pm on Nov. 11 and get 2 free gifts."),
            "Order before eleven fifty-nine P M on November eleventh and get two free gifts.");
  EXPECT_EQ(En("The Galaxy S24 Ultra has 12GB RAM and a 5000mAh battery."),
            "The Galaxy S twenty-four Ultra has twelve gigabytes ram and a five thousand milliamp hours battery.");
  EXPECT_EQ(En("Shipping takes 3-5 business days; call 1-800-555-0199."),
            "Shipping takes three to five business days; call one, eight zero zero, five five five, zero one nine nine.");
  EXPECT_EQ(En("This 2-pack costs ¥199, that's 30% off!"),
            "This two pack costs one hundred ninety-nine yuan, that's thirty percent off!");
  EXPECT_EQ(En("Our store opened in 2015 and we've sold over 1.2 million units."),
            "Our store opened in twenty fifteen and we've sold over one point two million units.");
  EXPECT_EQ(En("Temperatures range from -10°C to 40°C."),
            "Temperatures range from minus ten degrees Celsius to forty degrees Celsius.");
  EXPECT_EQ(En("The 4th of July sale starts 7/1."), "The fourth of July sale starts July first.");
  EXPECT_EQ(En("Watch it in 8K HDR at 120fps."), "Watch it in eight K H D R at one hundred twenty frames per second.");
}

// Whatever the input, normalization neither throws nor breaks the offset contract.
TEST(NormalizeEnglishTest, RandomInputKeepsTheOffsetContract) {
  const std::vector<std::string> alphabet = {"0", "1", "2", "9", "5", "12", "2024", "99999999999999999999", ".", ",",
                                             ":", "-", "/", "+", "$", "¥", "€", "£", "%", "折", "元", "好", " ", "a",
                                             "m", "p", "k", "K", "x", "G", "B", "st", "am", "USB", "May", "e.g.", "@",
                                             "www.", "#", "(", ")", "&", "°C", "\"", "No."};
  std::mt19937 random(1234);
  for (int round = 0; round < 3000; ++round) {
    std::string source;
    const int pieces = 1 + static_cast<int>(random() % 12);
    for (int p = 0; p < pieces; ++p) source += alphabet[random() % alphabet.size()];
    const NormalizedText n = NormalizeEnglish(source);
    ASSERT_EQ(n.source_offset.size(), n.text.size()) << source;
    ASSERT_OK(ValidateUtf8(n.text)) << source;
    for (size_t k = 0; k < n.source_offset.size(); ++k) {
      ASSERT_GE(n.source_offset[k], 0) << source;
      ASSERT_LT(n.source_offset[k], static_cast<int>(source.size())) << source;
      if (k > 0) {
        ASSERT_GE(n.source_offset[k], n.source_offset[k - 1]) << source << " -> " << n.text;
      }
    }
  }
}

}  // namespace
}  // namespace lingcast
