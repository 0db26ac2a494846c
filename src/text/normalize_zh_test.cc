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
  EXPECT_EQ(NormalizeChinese("第2件半价").text, "第二件半价");
  EXPECT_EQ(NormalizeChinese("下午2点").text, "下午两点");
  EXPECT_EQ(NormalizeChinese("20000份").text, "两万份");
  EXPECT_EQ(NormalizeChinese("2000").text, "两千");
  EXPECT_EQ(NormalizeChinese("200").text, "二百");
  EXPECT_EQ(NormalizeChinese("12000").text, "一万二千");
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

TEST(NormalizeChineseTest, Prices) {
  EXPECT_EQ(NormalizeChinese("只要¥99").text, "只要九十九元");
  EXPECT_EQ(NormalizeChinese("到手价￥99！").text, "到手价九十九元！");
  EXPECT_EQ(NormalizeChinese("¥19.9包邮").text, "十九点九元包邮");
  EXPECT_EQ(NormalizeChinese("99元").text, "九十九元");
  EXPECT_EQ(NormalizeChinese("19.9元").text, "十九点九元");
  EXPECT_EQ(NormalizeChinese("海外价$19.99").text, "海外价十九点九九美元");
  EXPECT_EQ(NormalizeChinese("原价1,299元").text, "原价一千二百九十九元");
  EXPECT_EQ(NormalizeChinese("满300减50").text, "满三百减五十");
  EXPECT_EQ(NormalizeChinese("¥99-199").text, "九十九到一百九十九元");
  EXPECT_EQ(NormalizeChinese("¥99元").text, "九十九元");
  EXPECT_EQ(NormalizeChinese("¥99.00").text, "九十九元");
  EXPECT_EQ(NormalizeChinese("19.90元").text, "十九点九元");
  EXPECT_EQ(NormalizeChinese("0.50元").text, "零点五元");
  EXPECT_EQ(NormalizeChinese("买3,5号").text, "买三,五号");  // a list, not 3,5 thousands
}

TEST(NormalizeChineseTest, DiscountsReadDigitByDigit) {
  EXPECT_EQ(NormalizeChinese("全场5折").text, "全场五折");
  EXPECT_EQ(NormalizeChinese("打8.5折").text, "打八五折");
  EXPECT_EQ(NormalizeChinese("85折").text, "八五折");
  EXPECT_EQ(NormalizeChinese("2折").text, "二折");
}

TEST(NormalizeChineseTest, Percentages) {
  EXPECT_EQ(NormalizeChinese("好评率12.5%").text, "好评率百分之十二点五");
  EXPECT_EQ(NormalizeChinese("100%纯棉").text, "百分之一百纯棉");
  EXPECT_EQ(NormalizeChinese("跌了-3%").text, "跌了负百分之三");
}

TEST(NormalizeChineseTest, Dates) {
  EXPECT_EQ(NormalizeChinese("2024年5月1日开售").text, "二零二四年五月一日开售");
  EXPECT_EQ(NormalizeChinese("5/1当天").text, "五月一日当天");
  EXPECT_EQ(NormalizeChinese("12/31截止").text, "十二月三十一日截止");
  EXPECT_EQ(NormalizeChinese("2024/11/11").text, "二零二四年十一月十一日");
  EXPECT_EQ(NormalizeChinese("2024-05-01").text, "二零二四年五月一日");
  // Not a date: month 13, day 32.
  EXPECT_EQ(NormalizeChinese("13/5").text, "十三/五");
  EXPECT_EQ(NormalizeChinese("5/32").text, "五/三十二");
}

TEST(NormalizeChineseTest, ClockTimes) {
  EXPECT_EQ(NormalizeChinese("10:30开播").text, "十点三十分开播");
  EXPECT_EQ(NormalizeChinese("8:05").text, "八点零五分");
  EXPECT_EQ(NormalizeChinese("20:00准时").text, "二十点准时");
  EXPECT_EQ(NormalizeChinese("2:15").text, "两点十五分");
  EXPECT_EQ(NormalizeChinese("晚上8：00").text, "晚上八点");
  EXPECT_EQ(NormalizeChinese("10:00:30").text, "十点零分三十秒");
  EXPECT_EQ(NormalizeChinese("比分3:2").text, "比分三:二");  // minutes have two digits
  EXPECT_EQ(NormalizeChinese("25:30").text, "二十五:三十");
}

TEST(NormalizeChineseTest, PhoneNumbersReadDigitByDigitWithYao) {
  EXPECT_EQ(NormalizeChinese("电话13812345678").text, "电话幺三八幺二三四五六七八");
  EXPECT_EQ(NormalizeChinese("热线400-123-4567").text, "热线四零零，幺二三，四五六七");
  EXPECT_EQ(NormalizeChinese("010-12345678").text, "零幺零，幺二三四五六七八");
  // Twelve digits is not a mobile number.
  EXPECT_EQ(NormalizeChinese("138123456789").text, "一千三百八十一亿二千三百四十五万六千七百八十九");
}

TEST(NormalizeChineseTest, Units) {
  EXPECT_EQ(NormalizeChinese("内存256GB").text, "内存二百五十六吉字节");
  EXPECT_EQ(NormalizeChinese("5000mAh大电池").text, "五千毫安时大电池");
  EXPECT_EQ(NormalizeChinese("长30cm宽5 mm").text, "长三十厘米宽五毫米");
  EXPECT_EQ(NormalizeChinese("2kg装").text, "两千克装");
  EXPECT_EQ(NormalizeChinese("净含量500g，500ml").text, "净含量五百克，五百毫升");
  EXPECT_EQ(NormalizeChinese("续航10km").text, "续航十公里");
  EXPECT_EQ(NormalizeChinese("65W快充").text, "六十五瓦快充");
  EXPECT_EQ(NormalizeChinese("水温40℃").text, "水温四十摄氏度");
  EXPECT_EQ(NormalizeChinese("支持5G").text, "支持五G");  // the network, not grams
  EXPECT_EQ(NormalizeChinese("3gb").text, "三gb");       // unknown spelling stays
}

TEST(NormalizeChineseTest, ModelNames) {
  EXPECT_EQ(NormalizeChinese("iPhone 15 Pro来了").text, "iPhone 十五 Pro来了");
  EXPECT_EQ(NormalizeChinese("显卡RTX 4090").text, "显卡RTX 四零九零");
  EXPECT_EQ(NormalizeChinese("Mate60").text, "Mate六十");
  EXPECT_EQ(NormalizeChinese("Galaxy S24").text, "Galaxy S二十四");
  EXPECT_EQ(NormalizeChinese("hello 123").text, "hello 一百二十三");  // no capital: prose
  EXPECT_EQ(NormalizeChinese("iPhone 15 Pro 256GB").text, "iPhone 十五 Pro 二百五十六吉字节");
  EXPECT_EQ(NormalizeChinese("小米1000台").text, "小米一千台");  // after Han it is a quantity
}

TEST(NormalizeChineseTest, RangesAndSigns) {
  EXPECT_EQ(NormalizeChinese("3-5天发货").text, "三到五天发货");
  EXPECT_EQ(NormalizeChinese("活动5/1-5/3").text, "活动五月一日到五月三日");
  EXPECT_EQ(NormalizeChinese("12:00-14:00直播").text, "十二点到十四点直播");
  EXPECT_EQ(NormalizeChinese("5/1-").text, "五月一日-");
  EXPECT_EQ(NormalizeChinese("10:30-5").text, "十点三十分-五");  // not a time range
  EXPECT_EQ(NormalizeChinese("1.5~2kg").text, "一点五到两千克");
  EXPECT_EQ(NormalizeChinese("2023-2024年").text, "二零二三到二零二四年");
  EXPECT_EQ(NormalizeChinese("降价10-20%").text, "降价百分之十到二十");
  EXPECT_EQ(NormalizeChinese("10%-20%").text, "百分之十到百分之二十");
  EXPECT_EQ(NormalizeChinese("温度-10度").text, "温度负十度");
  EXPECT_EQ(NormalizeChinese("-5℃").text, "零下五摄氏度");
}

TEST(NormalizeChineseTest, NewRulesKeepOffsetsMonotonicAndInSource) {
  for (const std::string source : {"只要¥99包邮", "10%-20%", "活动5/1-5/3", "12:00-14:00", "¥99-199元", "¥99-199", "$19.99", "热线400-123-4567", "10:30开播", "3-5天发货", "内存256GB",
                                   "2024/11/11", "RTX 4090", "-5℃"}) {
    const NormalizedText n = NormalizeChinese(source);
    ASSERT_EQ(n.source_offset.size(), n.text.size()) << source;
    for (size_t k = 0; k < n.source_offset.size(); ++k) {
      EXPECT_GE(n.source_offset[k], 0) << source;
      EXPECT_LT(n.source_offset[k], static_cast<int>(source.size())) << source;
      if (k > 0) {
        EXPECT_GE(n.source_offset[k], n.source_offset[k - 1]) << source << " at " << k;
      }
    }
  }
}

TEST(NormalizeChineseTest, OffsetsOfPricesRangesAndUnits) {
  {
    const std::string source = "只要¥99包邮";
    const NormalizedText n = NormalizeChinese(source);
    // The whole spoken price, 元 included, points at the ¥ sign.
    EXPECT_EQ(n.source_offset[n.text.find("九")], static_cast<int>(source.find("¥")));
    EXPECT_EQ(n.source_offset[n.text.find("元")], static_cast<int>(source.find("¥")));
    EXPECT_EQ(n.source_offset[n.text.find("包")], static_cast<int>(source.find("包")));
  }
  {
    const std::string source = "3-5天";
    const NormalizedText n = NormalizeChinese(source);
    EXPECT_EQ(n.source_offset[n.text.find("到")], static_cast<int>(source.find("-")));
    EXPECT_EQ(n.source_offset[n.text.find("五")], static_cast<int>(source.find("5")));
  }
  {
    const std::string source = "内存256GB";
    const NormalizedText n = NormalizeChinese(source);
    EXPECT_EQ(n.source_offset[n.text.find("二")], static_cast<int>(source.find("256")));
    EXPECT_EQ(n.source_offset[n.text.find("吉")], static_cast<int>(source.find("GB")));
  }
  {
    const std::string source = "10:30";
    const NormalizedText n = NormalizeChinese(source);
    EXPECT_EQ(n.source_offset[n.text.find("点")], static_cast<int>(source.find(":")));
    EXPECT_EQ(n.source_offset[n.text.find("三")], static_cast<int>(source.find("30")));
  }
}

}  // namespace
}  // namespace lingcast
