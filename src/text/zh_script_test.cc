#include "text/zh_script.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/status_matchers.h"
#include "text/utf8.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lingcast {
namespace {

using ::testing::HasSubstr;

ZhScriptConverter Load(ZhScript target) {
  absl::StatusOr<ZhScriptConverter> converter = ZhScriptConverter::Load(target);
  EXPECT_OK(converter);
  return *std::move(converter);
}

TEST(ZhScriptTest, TraditionalToSimplified) {
  const ZhScriptConverter to_simplified = Load(ZhScript::kSimplified);
  EXPECT_EQ(to_simplified.target(), ZhScript::kSimplified);
  // What Whisper base wrote for the AISHELL recording and a held-out show.
  EXPECT_EQ(to_simplified.Convert("甚至出現交易幾乎停滯的情況"), "甚至出现交易几乎停滞的情况");
  EXPECT_EQ(to_simplified.Convert("喜歡的話記得點個關注"), "喜欢的话记得点个关注");
  EXPECT_EQ(to_simplified.Convert("專櫃價格是328元"), "专柜价格是328元");
  // Phrases, not only characters: 頭髮 is 头发, and 乾隆 keeps its 乾.
  EXPECT_EQ(to_simplified.Convert("頭髮乾了"), "头发干了");
  EXPECT_EQ(to_simplified.Convert("乾隆"), "乾隆");
}

TEST(ZhScriptTest, SimplifiedToTraditional) {
  const ZhScriptConverter to_traditional = Load(ZhScript::kTraditional);
  EXPECT_EQ(to_traditional.Convert("喜欢的话记得点个关注"), "喜歡的話記得點個關注");
  EXPECT_EQ(to_traditional.Convert("甚至出现交易几乎停滞的情况"), "甚至出現交易幾乎停滯的情況");
}

TEST(ZhScriptTest, TextInTheTargetScriptLatinAndDigitsStayAsWritten) {
  const ZhScriptConverter to_simplified = Load(ZhScript::kSimplified);
  for (const std::string text : {"欢迎大家来到直播间", "iPhone 15 Pro只要5999元，¥99、50%！", "Hello, world 123", ""}) {
    EXPECT_EQ(to_simplified.Convert(text), text);
  }
  const ZhScriptConverter to_traditional = Load(ZhScript::kTraditional);
  EXPECT_EQ(to_traditional.Convert("喜歡的話記得點個關注"), "喜歡的話記得點個關注");
}

TEST(ZhScriptTest, MalformedBytesAndNulsAreCopiedAndTheRestConverted) {
  const ZhScriptConverter to_simplified = Load(ZhScript::kSimplified);
  // A truncated 關 (E9 97) at the end, a stray continuation byte, a NUL.
  EXPECT_EQ(to_simplified.Convert("點個\xE9\x97"), "点个\xE9\x97");
  EXPECT_EQ(to_simplified.Convert("喜歡\x80的話"), "喜欢\x80的话");
  EXPECT_EQ(to_simplified.Convert(std::string("點個\0關注", 13)), std::string("点个\0关注", 13));
}

TEST(ZhScriptTest, MissingConfigNamesTheFileAndThePackage) {
  const absl::StatusOr<ZhScriptConverter> missing = ZhScriptConverter::Load(ZhScript::kSimplified, "/no/such/opencc");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(missing.status().message(), HasSubstr("/no/such/opencc/t2s.json not found"));
  EXPECT_THAT(missing.status().message(), HasSubstr("libopencc-data"));
  EXPECT_THAT(ZhScriptConverter::Load(ZhScript::kTraditional, "/no/such/opencc").status().message(),
              HasSubstr("/no/such/opencc/s2t.json"));
}

TEST(ZhScriptTest, UnreadableConfigIsOneClearError) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "zh_script_bad_config";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t2s.json") << "{ not json";
  const absl::StatusOr<ZhScriptConverter> bad = ZhScriptConverter::Load(ZhScript::kSimplified, dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot load OpenCC config " + (dir / "t2s.json").string()));
}

TEST(ZhScriptTest, ParsesItsNames) {
  EXPECT_EQ(*ParseZhScript("simplified"), ZhScript::kSimplified);
  EXPECT_EQ(*ParseZhScript("traditional"), ZhScript::kTraditional);
  EXPECT_EQ(ZhScriptName(ZhScript::kTraditional), "traditional");
  const absl::StatusOr<ZhScript> bad = ParseZhScript("cursive");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "unknown Chinese script \"cursive\" (use simplified or traditional)");
}

TEST(ZhScriptTest, ConvertsFromManyThreadsAtOnce) {
  const ZhScriptConverter to_simplified = Load(ZhScript::kSimplified);
  const std::vector<std::string> texts = {"甚至出現交易幾乎停滯的情況", "喜歡的話記得點個關注", "專櫃價格是328元",
                                          "頭髮乾了", "這款產品的質量非常好，歡迎大家購買"};
  std::vector<std::string> expected;
  for (const std::string& text : texts) expected.push_back(to_simplified.Convert(text));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < mismatches.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 300; ++round) {
        const size_t i = (t + static_cast<size_t>(round)) % texts.size();
        if (to_simplified.Convert(texts[i]) != expected[i]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(ZhScriptTest, CharacterByCharacterEachCharacterConvertsAsItDoesAlone) {
  absl::StatusOr<ZhScriptConverter> to_simplified = ZhScriptConverter::Load(ZhScript::kSimplified);
  ASSERT_OK(to_simplified);
  EXPECT_EQ(to_simplified->ConvertCharacters("喜歡的話記得點個關注"), "喜欢的话记得点个关注");
  EXPECT_EQ(to_simplified->ConvertCharacters("專櫃價格是328元"), "专柜价格是328元");
  // No phrases: 乾 is 干 in 乾隆 too, as it is alone, so a text and any part of
  // it fold alike.
  EXPECT_EQ(to_simplified->ConvertCharacters("乾隆"), "干隆");
  EXPECT_EQ(to_simplified->ConvertCharacters("乾"), to_simplified->Convert("乾"));
  for (const std::string text : {"甚至出現交易幾乎停滯的情況", "頭髮", "這款產品的質量非常好，歡迎大家購買"}) {
    std::string alone;
    for (const CodePoint& cp : DecodeUtf8(text)) {
      alone += to_simplified->Convert(text.substr(static_cast<size_t>(cp.offset), static_cast<size_t>(cp.length)));
    }
    EXPECT_EQ(to_simplified->ConvertCharacters(text), alone) << text;
  }
  EXPECT_EQ(to_simplified->ConvertCharacters("欢迎 Hello 123"), "欢迎 Hello 123");
  EXPECT_EQ(to_simplified->ConvertCharacters("點\xE9\x97"), "点\xE9\x97");
}

}  // namespace
}  // namespace lingcast
