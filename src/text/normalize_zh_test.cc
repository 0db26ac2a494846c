#include "text/normalize_zh.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(ChineseIntegerTest, ReadsPlacesAndZeros) {
  EXPECT_EQ(ChineseInteger(0), "零");
  EXPECT_EQ(ChineseInteger(7), "七");
  EXPECT_EQ(ChineseInteger(10), "十");
  EXPECT_EQ(ChineseInteger(15), "十五");
  EXPECT_EQ(ChineseInteger(99), "九十九");
  EXPECT_EQ(ChineseInteger(110), "一百一十");
  EXPECT_EQ(ChineseInteger(1001), "一千零一");
  EXPECT_EQ(ChineseInteger(10086), "一万零八十六");
  EXPECT_EQ(ChineseInteger(120000), "十二万");
  EXPECT_EQ(ChineseInteger(100000000), "一亿");
  EXPECT_EQ(ChineseInteger(300050000), "三亿零五万");
  EXPECT_EQ(ChineseInteger(1000000000005ULL), "一万亿零五");
}

TEST(NormalizeChineseTest, NumbersInText) {
  EXPECT_EQ(NormalizeChinese("99元").text, "九十九元");
  EXPECT_EQ(NormalizeChinese("只要3.5元").text, "只要三点五元");
  EXPECT_EQ(NormalizeChinese("0.05").text, "零点零五");
  EXPECT_EQ(NormalizeChinese("2024年").text, "二零二四年");
  EXPECT_EQ(NormalizeChinese("打折50%").text, "打折百分之五十");
  EXPECT_EQ(NormalizeChinese("12.5％").text, "百分之十二点五");
  EXPECT_EQ(NormalizeChinese("买2个").text, "买两个");
  EXPECT_EQ(NormalizeChinese("第2名").text, "第二名");
  EXPECT_EQ(NormalizeChinese("007").text, "零零七");
  EXPECT_EQ(NormalizeChinese("９９").text, "九十九");
  EXPECT_EQ(NormalizeChinese("第1.").text, "第一.");  // a sentence-final point is not a decimal
  EXPECT_EQ(NormalizeChinese("没有数字").text, "没有数字");
}

TEST(NormalizeChineseTest, OffsetsPointBackToTheSource) {
  const std::string source = "共99元";
  const NormalizedText n = NormalizeChinese(source);
  ASSERT_EQ(n.source_offset.size(), n.text.size());
  EXPECT_EQ(n.source_offset.front(), 0);
  EXPECT_EQ(n.source_offset[n.text.find("九")], static_cast<int>(source.find("99")));
  EXPECT_EQ(n.source_offset[n.text.find("元")], static_cast<int>(source.find("元")));
}

}  // namespace
}  // namespace lingcast
