#include "text/utf8.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "text/language_detect.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

TEST(Utf8Test, AcceptsValidText) {
  EXPECT_OK(ValidateUtf8("hello 你好 𠀀 é"));
  EXPECT_OK(ValidateUtf8(""));
}

TEST(Utf8Test, RejectsMalformedSequencesWithPosition) {
  const absl::Status status = ValidateUtf8("ab\ncd\xff");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("byte 5"));
  EXPECT_THAT(status.message(), HasSubstr("line 2, column 3"));
  EXPECT_EQ(FindInvalidUtf8("\xC0\xAF"), 0);          // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("x\xED\xA0\x80"), 1);     // surrogate
  EXPECT_EQ(FindInvalidUtf8("你\xE4\xBD"), 3);         // truncated
  EXPECT_EQ(FindInvalidUtf8("\xF4\x90\x80\x80"), 0);  // above U+10FFFF
}

TEST(Utf8Test, LineColumnCountsCharacters) {
  const std::string text = "你好\n世界abc";
  const LineColumn lc = LineColumnAt(text, text.find("abc"));
  EXPECT_EQ(lc.line, 2);
  EXPECT_EQ(lc.column, 3);
}

TEST(Utf8Test, DecodesAndEncodesRoundTrip) {
  const std::string text = "a你𠀀é";
  const std::vector<CodePoint> cps = DecodeUtf8(text);
  ASSERT_EQ(cps.size(), 4u);
  EXPECT_EQ(cps[1].value, U'你');
  EXPECT_EQ(cps[1].offset, 1);
  EXPECT_EQ(cps[2].length, 4);
  std::u32string u32;
  for (const CodePoint& cp : cps) u32.push_back(cp.value);
  EXPECT_EQ(EncodeUtf8(u32), text);
}

TEST(Utf8Test, ClassifiesHanAndLatin) {
  EXPECT_TRUE(IsHan(U'中'));
  EXPECT_TRUE(IsHan(U'㐀'));      // Extension A
  EXPECT_TRUE(IsHan(U'\U00020000'));  // Extension B
  EXPECT_TRUE(IsHan(U'\uF900'));  // compatibility ideograph
  EXPECT_FALSE(IsHan(U'，'));
  EXPECT_FALSE(IsHan(U'あ'));
  EXPECT_TRUE(IsLatinLetter(U'é'));
  EXPECT_FALSE(IsLatinLetter(U'5'));
}

TEST(Utf8Test, SplitsRunsCoveringTheText) {
  const std::string text = "买iPhone 15，只要99元";
  const std::vector<TextRun> runs = SplitRuns(text);
  ASSERT_GE(runs.size(), 4u);
  EXPECT_EQ(runs[0].kind, CharClass::kHan);
  EXPECT_EQ(text.substr(runs[1].offset, runs[1].length), "iPhone");
  EXPECT_EQ(runs[1].kind, CharClass::kLatin);
  int covered = 0;
  for (const TextRun& run : runs) {
    EXPECT_EQ(run.offset, covered);
    covered += run.length;
  }
  EXPECT_EQ(covered, static_cast<int>(text.size()));
}

TEST(Utf8Test, IncompleteTailIsTheStartOfASequenceStillArriving) {
  EXPECT_EQ(IncompleteUtf8Tail(""), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("ab"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("好"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("a\xE5"), 1u);
  EXPECT_EQ(IncompleteUtf8Tail("a\xE5\xA5"), 2u);
  EXPECT_EQ(IncompleteUtf8Tail("\xF0\x9F\x98"), 3u);
  EXPECT_EQ(IncompleteUtf8Tail("\xF0\x9F\x98\x80"), 0u);
  EXPECT_EQ(IncompleteUtf8Tail("a\xA5"), 0u) << "a stray continuation byte waits for nothing";
  EXPECT_EQ(IncompleteUtf8Tail("\xFF"), 0u);
}

TEST(LanguageDetectTest, MajorityOfHanCharactersAndLatinWords) {
  EXPECT_EQ(DetectLanguage("大家好，欢迎来到直播间。"), Language::kZh);
  EXPECT_EQ(DetectLanguage("Hello everyone, welcome."), Language::kEn);
  EXPECT_EQ(DetectLanguage("iPhone 15 Pro 只要99元"), Language::kZh);
  EXPECT_EQ(DetectLanguage("Buy the new phone 手机 today"), Language::kEn);
}

TEST(LanguageDetectTest, TieGoesToTheFirstStrongCharacter) {
  EXPECT_EQ(DetectLanguage("OK 好"), Language::kEn);
  EXPECT_EQ(DetectLanguage("好 OK"), Language::kZh);
}

TEST(LanguageDetectTest, NoEvidenceUsesFallback) {
  EXPECT_EQ(DetectLanguage("123 !!", Language::kZh), Language::kZh);
  EXPECT_EQ(DetectLanguage(""), Language::kEn);
  EXPECT_FALSE(HasLanguageEvidence("123 !!"));
}

}  // namespace
}  // namespace lingcast
