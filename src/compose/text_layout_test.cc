#include "compose/text_layout.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compose/font.h"
#include "compose/glyph_cache.h"
#include "compose/line_breaker.h"
#include "core/status_matchers.h"

namespace lingcast::compose {
namespace {

class FontTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto location = FindNotoSansCjkSc(FontWeight::kRegular);
    if (!location.ok()) GTEST_SKIP() << "fonts-noto-cjk is not installed: " << location.status().message();
    location_ = *location;
    auto library = FontLibrary::Create();
    ASSERT_OK(library);
    library_ = std::move(*library);
    auto font = library_->Open(location_, 36);
    ASSERT_OK(font);
    font_ = std::move(*font);
  }

  FontLocation location_;
  std::unique_ptr<FontLibrary> library_;
  std::unique_ptr<SizedFont> font_;
};

TEST_F(FontTest, FindsTheSimplifiedChineseFaceByName) {
  EXPECT_EQ(location_.family, "Noto Sans CJK SC");
  EXPECT_EQ(location_.style, "Regular");
  auto bold = FindNotoSansCjkSc(FontWeight::kBold);
  ASSERT_OK(bold);
  EXPECT_EQ(bold->family, "Noto Sans CJK SC");
  EXPECT_EQ(bold->style, "Bold");
}

TEST_F(FontTest, ExplicitCollectionPathPicksTheScFace) {
  auto resolved = ResolveFontFile(location_.path);
  ASSERT_OK(resolved);
  EXPECT_EQ(resolved->family, "Noto Sans CJK SC");
  EXPECT_EQ(resolved->face_index, location_.face_index);
}

TEST(FontFileTest, MissingFileIsNotFoundAndNamesThePath) {
  auto resolved = ResolveFontFile("/nonexistent/dir/font.ttc");
  ASSERT_EQ(resolved.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(resolved.status().message().find("/nonexistent/dir/font.ttc"), std::string::npos);
}

TEST(FontFileTest, NonFontFileIsInvalidArgument) {
  const std::string path = ::testing::TempDir() + "/not_a_font.ttf";
  std::ofstream(path) << "this is not a font";
  auto resolved = ResolveFontFile(path);
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(resolved.status().message().find("not_a_font.ttf"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(FontFileTest, NotFoundMessageNamesPathsAndSaysHowToInstall) {
  const std::string elsewhere = ::testing::TempDir() + "/no_such_font/NotoSansCJK-Regular.ttc";
  auto location = FindNotoSansCjkSc(FontWeight::kRegular, {elsewhere});
  ASSERT_EQ(location.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(location.status().message().find(elsewhere), std::string::npos);
  EXPECT_NE(location.status().message().find("install fonts-noto-cjk"), std::string::npos);
}

TEST_F(FontTest, CollectionWithoutScFaceIsNotAMatch) {
  // The Serif collection sits beside the Sans one; it holds no "Noto Sans CJK SC".
  const std::string serif = std::filesystem::path(location_.path).parent_path() / "NotoSerifCJK-Regular.ttc";
  if (!std::filesystem::exists(serif)) GTEST_SKIP() << serif << " is not installed";
  EXPECT_EQ(FindNotoSansCjkSc(FontWeight::kRegular, {serif}).status().code(), absl::StatusCode::kNotFound);
  EXPECT_OK(FindNotoSansCjkSc(FontWeight::kRegular, {serif, location_.path}));
}

TEST(Utf8Test, DecodesAndReplacesMalformedBytes) {
  EXPECT_EQ(DecodeUtf8("a中é"), U"a中é");
  EXPECT_EQ(DecodeUtf8("a\xff" "b"), U"a\uFFFDb");
  EXPECT_EQ(DecodeUtf8("\xe4\xb8"), U"\uFFFD\uFFFD");  // truncated sequence
  EXPECT_EQ(DecodeUtf8("\xc0\xaf"), U"\uFFFD\uFFFD");  // overlong
  EXPECT_EQ(DecodeUtf8("a\nb"), U"a b");
}

TEST_F(FontTest, ShapesChineseAndEnglishWithoutNotdef) {
  const ShapedText shaped = Shape(*font_, DecodeUtf8("大家好，欢迎来到直播间。Hello, world! 123"));
  ASSERT_FALSE(shaped.glyphs.empty());
  for (const ShapedGlyph& g : shaped.glyphs) {
    EXPECT_NE(g.glyph_id, 0u) << "missing glyph for U+" << std::hex
                              << static_cast<uint32_t>(shaped.text[g.char_index]);
  }
  EXPECT_GT(shaped.width, 0);
  // Ideographs are one em wide in Noto Sans CJK.
  EXPECT_NEAR(shaped.advances[0], 36.0, 0.5);
  double sum = 0;
  for (double a : shaped.advances) sum += a;
  EXPECT_NEAR(sum, shaped.width, 1e-6);
}

TEST_F(FontTest, AdjacentFullwidthPunctuationIsSqueezed) {
  // "」" and "，" are each one em alone; side by side the pair takes 1.5 em.
  EXPECT_NEAR(MeasureText(*font_, "」"), 36.0, 0.5);
  EXPECT_NEAR(MeasureText(*font_, "，"), 36.0, 0.5);
  EXPECT_NEAR(MeasureText(*font_, "」，"), 54.0, 1.0);
  EXPECT_NEAR(MeasureText(*font_, "中文"), 72.0, 0.5) << "ideographs are never squeezed";
}

TEST_F(FontTest, MeasureGrowsWithText) {
  EXPECT_EQ(MeasureText(*font_, ""), 0);
  EXPECT_LT(MeasureText(*font_, "Hello"), MeasureText(*font_, "Hello world"));
  EXPECT_NEAR(MeasureText(*font_, "中文"), 72.0, 1.0);
}

TEST_F(FontTest, LayoutRespectsWidthAndKinsoku) {
  const std::string text =
      "大家好，欢迎来到直播间！今天我们为大家带来一款全新的产品，「实时双语主播」。Welcome to the "
      "live stream, today we bring you a brand-new real-time bilingual anchor.";
  for (double max_width : {150.0, 300.0, 600.0}) {
    const TextBlock block = LayoutText(*font_, text, max_width, 100);
    ASSERT_GT(block.lines.size(), 1u);
    EXPECT_FALSE(block.ellipsized);
    for (const LaidOutLine& line : block.lines) {
      EXPECT_LE(line.width, max_width + 1e-6);
      ASSERT_FALSE(line.glyphs.empty());
    }
  }
  // Kinsoku on real glyph widths: no line starts with closing punctuation.
  const std::u32string decoded = DecodeUtf8(text);
  const ShapedText shaped = Shape(*font_, decoded);
  for (double max_width : {150.0, 222.0, 300.0, 444.0}) {
    for (const LineSpan& span : BreakLines(decoded, shaped.advances, max_width)) {
      EXPECT_FALSE(IsNoBreakBefore(decoded[span.begin])) << "max width " << max_width;
      EXPECT_FALSE(IsNoBreakAfter(decoded[span.end - 1])) << "max width " << max_width;
    }
  }
}

TEST_F(FontTest, TwoLinesAreBalanced) {
  // 25 ideographs at 36 px in 720 px: greedy breaking would give 20 + 5.
  const std::string text = "一二三四五六七八九十一二三四五六七八九十一二三四五";
  const TextBlock block = LayoutText(*font_, text, 720, 2);
  ASSERT_EQ(block.lines.size(), 2u);
  EXPECT_NEAR(block.lines[0].width, block.lines[1].width, 36.5);
  EXPECT_FALSE(block.ellipsized);
}

TEST_F(FontTest, TooLongTextIsEllipsizedWithinWidth) {
  std::string text;
  for (int i = 0; i < 20; ++i) text += "这是一段非常长的字幕文本，";
  const TextBlock block = LayoutText(*font_, text, 400, 2);
  ASSERT_EQ(block.lines.size(), 2u);
  EXPECT_TRUE(block.ellipsized);
  EXPECT_LE(block.lines.back().width, 400 + 1e-6);
  // The ellipsis glyph is the last one and it is a real glyph.
  EXPECT_NE(block.lines.back().glyphs.back().glyph_id, 0u);
}

TEST_F(FontTest, GlyphCacheIsBoundedAndHits) {
  auto cache = GlyphCache::Create(*library_, 8);
  ASSERT_OK(cache);
  const ShapedText shaped = Shape(*font_, DecodeUtf8("一二三四五六七八九十百千万"));
  for (const ShapedGlyph& g : shaped.glyphs) {
    auto raster = (*cache)->Get(*font_, g.glyph_id, 2.0);
    ASSERT_OK(raster);
    EXPECT_GT((*raster)->fill.width, 0);
    // The outline is the glyph grown on every side.
    EXPECT_GT((*raster)->outline.width, (*raster)->fill.width);
  }
  EXPECT_EQ((*cache)->size(), 8u);
  EXPECT_EQ((*cache)->misses(), 13);
  ASSERT_OK((*cache)->Get(*font_, shaped.glyphs.back().glyph_id, 2.0));
  EXPECT_EQ((*cache)->hits(), 1);
}

TEST_F(FontTest, GlyphCacheIsBoundedInBytes) {
  auto cache = GlyphCache::Create(*library_, 1000, /*max_bytes=*/8000);
  ASSERT_OK(cache);
  const ShapedText shaped = Shape(*font_, DecodeUtf8("一二三四五六七八九十百千万"));
  for (const ShapedGlyph& g : shaped.glyphs) ASSERT_OK((*cache)->Get(*font_, g.glyph_id, 2.0));
  EXPECT_LE((*cache)->bytes(), 8000u);
  EXPECT_GE((*cache)->size(), 1u);
  EXPECT_LT((*cache)->size(), 13u);
}

// The highlight maps glyphs (code points) back to byte offsets of the cue's
// text: the two must agree on every input, malformed UTF-8 included.
TEST(CodePointByteOffsetsTest, OneOffsetPerDecodedCodePoint) {
  const std::string cases[] = {"", "abc", "大家好, ok", "a\xff\xfe" "b", "\xe5\xa4", "😀x", "\xc0\x80z"};
  for (const std::string& text : cases) {
    const std::vector<int> offsets = CodePointByteOffsets(text);
    ASSERT_EQ(offsets.size(), DecodeUtf8(text).size() + 1) << text;
    EXPECT_EQ(offsets.back(), static_cast<int>(text.size()));
    for (size_t i = 1; i < offsets.size(); ++i) EXPECT_LT(offsets[i - 1], offsets[i]) << text;
  }
  EXPECT_EQ(CodePointByteOffsets("大家好"), (std::vector<int>{0, 3, 6, 9}));
}

}  // namespace
}  // namespace lingcast::compose
