#include "text/sanitize.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "text/utf8.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

SanitizeCounts Counts(int emoji, int control, int unassigned, int private_use, int invalid_utf8) {
  SanitizeCounts c;
  c.emoji = emoji;
  c.control = control;
  c.unassigned = unassigned;
  c.private_use = private_use;
  c.invalid_utf8 = invalid_utf8;
  return c;
}

TEST(SanitizeTest, OrdinaryTextIsUntouched) {
  const std::string text = "欢迎来到直播间！iPhone 15 Pro只要5999元，¥99、50%、“好的”《书》—— café naïve ©®™ 3×4";
  const SanitizedText out = SanitizeText(text);
  EXPECT_EQ(out.text, text);
  EXPECT_EQ(out.removed.total(), 0);
  ASSERT_EQ(out.source_offset.size(), out.text.size());
  // Every byte of a character points at the character's first byte.
  for (const CodePoint& cp : DecodeUtf8(text)) {
    for (int k = 0; k < cp.length; ++k) EXPECT_EQ(out.source_offset[cp.offset + k], cp.offset);
  }
  EXPECT_EQ(DescribeRemovals(out.removed), "");
}

TEST(SanitizeTest, EmojiAreRemovedAndCountedOncePerEmoji) {
  // A plain pictograph, one with VS16, a skin tone, a ZWJ family, a flag, a keycap.
  const SanitizedText out = SanitizeText("好😀看❤️👍🏽家👨‍👩‍👧旗🇨🇳号1️⃣完");
  EXPECT_EQ(out.text, "好看家旗号1完");
  EXPECT_EQ(out.removed, Counts(6, 0, 0, 0, 0));
  EXPECT_EQ(DescribeRemovals(out.removed), "removed 6 emoji");
}

TEST(SanitizeTest, ControlAndFormatCharactersAreRemovedButWhiteSpaceStays) {
  const SanitizedText out = SanitizeText(std::string("a\tb\x01\x1b[0m c\r\nd\re\u200Bf\uFEFF\n") + '\0' + "g\x7f");
  EXPECT_EQ(out.text, "a b[0m c\nd\nef\ng");
  EXPECT_EQ(out.removed, Counts(0, 6, 0, 0, 0));
  EXPECT_EQ(DescribeRemovals(out.removed), "removed 6 control characters");
}

TEST(SanitizeTest, UnassignedAndPrivateUseCodePointsAreRemoved) {
  const SanitizedText out = SanitizeText("价\U000E0080格\uFDD0\U0003FFFE是\uE000\U000F0001\U0010FFFD9元");
  EXPECT_EQ(out.text, "价格是9元");
  EXPECT_EQ(out.removed, Counts(0, 0, 3, 3, 0));
  EXPECT_EQ(DescribeRemovals(out.removed), "removed 3 unassigned code points and 3 private-use characters");
}

TEST(SanitizeTest, InvalidUtf8IsSkippedAndCountedPerByte) {
  const SanitizedText out = SanitizeText("ok\xff\xfe 好\xE4\xB8 x\xC0\xAF \xED\xA0\x80 end\xE4");
  EXPECT_EQ(out.text, "ok 好 x  end");
  EXPECT_EQ(out.removed.invalid_utf8, 2 + 2 + 2 + 3 + 1);
  EXPECT_OK(ValidateUtf8(out.text));
  EXPECT_EQ(SanitizeText("a\uFFFDb").removed.invalid_utf8, 1) << "U+FFFD stands for lost text";
}

TEST(SanitizeTest, FullWidthAsciiBecomesAsciiAndChinesePunctuationStays) {
  EXPECT_EQ(SanitizeText("ｉＰｈｏｎｅ　１５：只要＄１９９．９９，５０％，２０２４－０５－０１，１０：３０").text,
            "iPhone　15：只要$199.99，50%，2024-05-01，10:30");
  EXPECT_EQ(SanitizeText("好．不－错／：").text, "好．不－错／：") << "not between digits";
  EXPECT_EQ(SanitizeText("３．").text, "3．");
}

TEST(SanitizeTest, OffsetsPointAtTheSourceCharacter) {
  const std::string text = "a😀Ｂ";
  const SanitizedText out = SanitizeText(text);
  ASSERT_EQ(out.text, "aB");
  EXPECT_EQ(out.source_offset, (std::vector<int>{0, 5}));
}

TEST(SanitizeTest, DescribeRemovalsListsEveryKind) {
  EXPECT_EQ(DescribeRemovals(Counts(1, 1, 1, 1, 1)),
            "removed 1 emoji, 1 control character, 1 unassigned code point, 1 private-use character and "
            "1 invalid UTF-8 byte");
}

TEST(SanitizeTest, AnySplitOfAStreamGivesTheWholeResult) {
  const std::string text = std::string("a\r\n３．５😀👨‍👩‍👧🇨🇳1️⃣\xE4\xB8 好\x01\uE000ｘ\r") + "\n１０：３０\xF0\x9F";
  const SanitizedText whole = SanitizeText(text);
  for (size_t split = 0; split <= text.size(); ++split) {
    TextSanitizer sanitizer;
    SanitizedText a = sanitizer.Push(std::string_view(text).substr(0, split));
    const SanitizedText b = sanitizer.Push(std::string_view(text).substr(split));
    const SanitizedText c = sanitizer.Flush();
    std::string joined = a.text + b.text + c.text;
    std::vector<int> offsets = a.source_offset;
    offsets.insert(offsets.end(), b.source_offset.begin(), b.source_offset.end());
    offsets.insert(offsets.end(), c.source_offset.begin(), c.source_offset.end());
    ASSERT_EQ(joined, whole.text) << "split at " << split;
    ASSERT_EQ(offsets, whole.source_offset) << "split at " << split;
    ASSERT_EQ(sanitizer.removed(), whole.removed) << "split at " << split;
  }
  EXPECT_EQ(whole.text, "a\n3.51 好x\n10:30");
  EXPECT_EQ(whole.removed, Counts(4, 1, 0, 1, 4));
}

}  // namespace
}  // namespace lingcast
