// The compositor's optional layers: subtitle looks, word-by-word highlight,
// lower-third titles, colour/image/video backgrounds, and their bad inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "avatar/golden_image.h"
#include "compose/compositor.h"
#include "compose/font.h"
#include "compose/test_media.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast::compose {
namespace {

using testing_util::ScratchDir;

constexpr char kEnLine[] = "one two three four five six";

// A cue speaking kEnLine word by word, 0.5 s a word from t = 1 s.
SubtitleCue WordCue() {
  SubtitleCue cue;
  cue.start = MediaTime::Seconds(1);
  cue.end = MediaTime::Seconds(5);
  cue.primary = {kEnLine, Language::kEn};
  cue.secondary = {"一二三四五六", Language::kZh};
  const std::string text = kEnLine;
  size_t at = 0;
  for (int i = 0; at < text.size(); ++i) {
    const size_t end = std::min(text.find(' ', at), text.size());
    cue.words.push_back({static_cast<int>(at), static_cast<int>(end - at), MediaTime::Millis(1000 + 500 * i),
                         MediaTime::Millis(1500 + 500 * i)});
    at = end + 1;
  }
  return cue;
}

// Pixels of the frame exactly in `color` (fully covered glyph interiors).
std::vector<std::pair<int, int>> PixelsOf(const VideoFrame& frame, Rgba color) {
  std::vector<std::pair<int, int>> found;
  for (int y = 0; y < frame.height; ++y) {
    for (int x = 0; x < frame.width; ++x) {
      const uint8_t* p = frame.Row(y) + x * 4;
      if (p[0] == color.r && p[1] == color.g && p[2] == color.b) found.push_back({x, y});
    }
  }
  return found;
}

bool Overlap(const Rect& a, const Rect& b) { return !a.Intersect(b).empty(); }

class CompositorFeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto font = FindNotoSansCjkSc(FontWeight::kRegular); !font.ok()) {
      GTEST_SKIP() << "fonts-noto-cjk is not installed: " << font.status().message();
    }
  }
  static std::unique_ptr<Compositor> Make(CompositorOptions options) {
    auto compositor = Compositor::Create(options);
    EXPECT_OK(compositor);
    return compositor.ok() ? std::move(*compositor) : nullptr;
  }
};

TEST(SubtitleLookTest, ParsesTheThreeNames) {
  EXPECT_EQ(ParseSubtitleLook("outline").value(), SubtitleLook::kOutline);
  EXPECT_EQ(ParseSubtitleLook("box").value(), SubtitleLook::kBox);
  EXPECT_EQ(ParseSubtitleLook("shadow").value(), SubtitleLook::kShadow);
  auto bad = ParseSubtitleLook("glow");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("glow"), std::string::npos);
}

TEST_F(CompositorFeaturesTest, EachLookDrawsItsOwnWay) {
  const SubtitleCue cue = WordCue();
  std::vector<std::vector<uint8_t>> sprites;
  for (SubtitleLook look : {SubtitleLook::kOutline, SubtitleLook::kBox, SubtitleLook::kShadow}) {
    CompositorOptions options;
    options.width = 640;
    options.height = 360;
    options.subtitles.look = look;
    auto compositor = Make(options);
    ASSERT_NE(compositor, nullptr);
    auto sprite = compositor->SubtitleFor(cue);
    ASSERT_TRUE(sprite.ok() && *sprite != nullptr);
    const VideoFrame& image = (*sprite)->image;
    // Left of the centred line, inside the sprite's margin: the box look's
    // per-line box is there (translucent), the others leave it clear.
    const int em = (*sprite)->primary_pixel_size;
    const int mid_row = static_cast<int>(std::lround(image.height * 0.22));
    int covered = 0;
    for (int x = 0; x < image.width / 2; ++x) covered += image.Row(mid_row)[x * 4 + 3] > 0;
    int left_box_edge = -1;
    for (int x = 0; x < image.width && left_box_edge < 0; ++x) {
      if (image.Row(mid_row)[x * 4 + 3] > 0) left_box_edge = x;
    }
    if (look == SubtitleLook::kBox) {
      EXPECT_EQ(image.Row(mid_row)[(left_box_edge + 2) * 4 + 3], 175) << "the box's own translucency";
    } else {
      EXPECT_LT(covered, image.width / 2) << SubtitleLookName(look) << ": no box between glyphs";
    }
    EXPECT_EQ(image.Row(0)[0 + 3], 0) << SubtitleLookName(look) << ": the sprite's corner is clear";
    EXPECT_GT(em, 0);
    sprites.push_back(image.rgba);
  }
  EXPECT_NE(sprites[0], sprites[1]);
  EXPECT_NE(sprites[0], sprites[2]);
  EXPECT_NE(sprites[1], sprites[2]);
}

TEST_F(CompositorFeaturesTest, OutlineWidthScalesWithTheFontSize) {
  // The ink of one outlined glyph grows with the frame; its stroke stays the
  // same fraction of the em, so the ink-to-em ratio barely moves.
  double ratios[2];
  int i = 0;
  for (int h : {360, 1080}) {
    CompositorOptions options;
    options.width = h * 16 / 9;
    options.height = h;
    auto compositor = Make(options);
    ASSERT_NE(compositor, nullptr);
    SubtitleCue cue;
    cue.start = MediaTime::Zero();
    cue.end = MediaTime::Seconds(1);
    cue.primary = {"I", Language::kEn};
    auto sprite = compositor->SubtitleFor(cue);
    ASSERT_TRUE(sprite.ok() && *sprite != nullptr);
    const VideoFrame& image = (*sprite)->image;
    int ink = 0;
    for (int x = 0; x < image.width; ++x) ink += image.Row(image.height / 2)[x * 4 + 3] > 0;
    ratios[i++] = static_cast<double>(ink) / (*sprite)->primary_pixel_size;
  }
  EXPECT_NEAR(ratios[0], ratios[1], 0.12) << "stroke + stem as a fraction of the em, 360p vs 1080p";
}

TEST_F(CompositorFeaturesTest, SpokenWordsAreHighlightedWithoutNewLayouts) {
  CompositorOptions options;
  options.width = 640;
  options.height = 360;
  options.fade = MediaTime::Zero();
  options.highlight_words = true;
  auto compositor = Make(options);
  ASSERT_NE(compositor, nullptr);
  const SubtitleCue cue = WordCue();
  const Rgba highlight = options.subtitles.highlight_color;
  int previous_right = -1;
  size_t previous_count = 0;
  // A word starts every 500 ms from 1.0 s (with the cue); the sixth at 3.5 s.
  for (int ms : {1000, 1600, 2100, 2600, 3100, 3600}) {
    VideoFrame frame;
    ASSERT_OK(compositor->Compose(MediaTime::Millis(ms), &cue, frame));
    const auto lit = PixelsOf(frame, highlight);
    ASSERT_FALSE(lit.empty()) << ms << " ms: the word being said is coloured";
    int right = 0;
    for (auto [x, y] : lit) right = std::max(right, x);
    EXPECT_GT(lit.size(), previous_count) << ms << " ms: more words coloured than before";
    EXPECT_GT(right, previous_right) << ms << " ms: the coloured part reaches further right";
    previous_right = right;
    previous_count = lit.size();
  }
  EXPECT_EQ(compositor->subtitle_layouts_built(), 1) << "the line is shaped once";
  EXPECT_EQ(compositor->highlight_redraws(), 6) << "one redraw per word, none per frame";
  EXPECT_EQ(compositor->HighlightEnd(cue, MediaTime::Millis(2100)), 13) << "\"one two three\"";
  EXPECT_EQ(compositor->HighlightEnd(cue, MediaTime::Millis(999)), 0);

  // Only the spoken line is highlighted, and only when asked.
  options.highlight_words = false;
  auto plain = Make(options);
  ASSERT_NE(plain, nullptr);
  VideoFrame frame;
  ASSERT_OK(plain->Compose(MediaTime::Millis(3100), &cue, frame));
  EXPECT_TRUE(PixelsOf(frame, highlight).empty());
}

// Re-colouring a word in place gives the bytes of drawing the sprite anew, for
// every look, on a spoken line long enough to wrap, forwards and backwards.
TEST_F(CompositorFeaturesTest, RehighlightInPlaceEqualsAFullRedraw) {
  const std::string spoken =
      "Hello everyone, welcome to the live stream! Today we have a new product for you, and it lasts long.";
  const std::vector<int> ends = {5, 15, 23, 26, 43, 49, 57, 64, 80, 99, 43, 5, 0, 99};
  for (SubtitleLook look : {SubtitleLook::kOutline, SubtitleLook::kBox, SubtitleLook::kShadow}) {
    SubtitleStyle style;
    style.look = look;
    auto renderer = SubtitleRenderer::Create(FontOptions{}, style, 640, 360);
    ASSERT_OK(renderer);
    auto layout = (*renderer)->Layout({spoken, Language::kEn}, {"今天给大家介绍一款新产品。", Language::kZh});
    ASSERT_TRUE(layout.ok() && *layout != nullptr);
    ASSERT_EQ((*layout)->top.lines.size(), 2u) << "the test wants a wrapped spoken line";
    auto sprite = (*renderer)->Draw(**layout, 0);
    ASSERT_OK(sprite);
    int previous = 0;
    for (int end : ends) {
      auto changed = (*renderer)->Rehighlight(**layout, previous, end, **sprite);
      ASSERT_OK(changed);
      auto fresh = (*renderer)->Draw(**layout, end);
      ASSERT_OK(fresh);
      ASSERT_EQ((*sprite)->image.rgba, (*fresh)->image.rgba)
          << SubtitleLookName(look) << ": highlight " << previous << " -> " << end << " bytes";
      EXPECT_EQ(changed->empty(), previous == end || (previous == 0 && end == 0));
      previous = end;
    }
  }
}

TEST_F(CompositorFeaturesTest, HighlightFollowsByteOffsetsInChinese) {
  CompositorOptions options;
  options.width = 640;
  options.height = 360;
  options.highlight_words = true;
  options.fade = MediaTime::Zero();
  auto compositor = Make(options);
  ASSERT_NE(compositor, nullptr);
  SubtitleCue cue;
  cue.start = MediaTime::Zero();
  cue.end = MediaTime::Seconds(4);
  cue.primary = {"大家好，欢迎光临", Language::kZh};
  // 大家 (bytes 0-5), 好 (6-8), 欢迎 (12-17), 光临 (18-23).
  cue.words = {{0, 6, MediaTime::Zero(), MediaTime::Seconds(1)},
               {6, 3, MediaTime::Seconds(1), MediaTime::Seconds(2)},
               {12, 6, MediaTime::Seconds(2), MediaTime::Seconds(3)},
               {18, 6, MediaTime::Seconds(3), MediaTime::Seconds(4)}};
  VideoFrame two_chars, five_chars, all;
  ASSERT_OK(compositor->Compose(MediaTime::Millis(500), &cue, two_chars));
  ASSERT_OK(compositor->Compose(MediaTime::Millis(2500), &cue, five_chars));
  ASSERT_OK(compositor->Compose(MediaTime::Millis(3500), &cue, all));
  const size_t a = PixelsOf(two_chars, options.subtitles.highlight_color).size();
  const size_t b = PixelsOf(five_chars, options.subtitles.highlight_color).size();
  const size_t c = PixelsOf(all, options.subtitles.highlight_color).size();
  EXPECT_GT(a, 0u);
  EXPECT_GT(b, a * 3 / 2) << "大家好，欢迎 has far more ink than 大家";
  EXPECT_GT(c, b);
  EXPECT_EQ(compositor->HighlightEnd(cue, MediaTime::Millis(2500)), 18);
}

TEST_F(CompositorFeaturesTest, LowerThirdSitsInTheSafeAreaAboveAnySubtitle) {
  const std::string long_zh(std::string("这是一段很长很长的字幕，用来测试自动换行和省略。") + "这是一段很长很长的字幕，用来测试自动换行和省略。");
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1920, 1080}, std::pair{3840, 2160}}) {
    CompositorOptions options;
    options.width = w;
    options.height = h;
    const LowerThird title{"李娜 Li Na", "Host, Lingcast Live 主播", MediaTime::Zero(), MediaTime::Seconds(6)};
    options.titles = {title};
    auto compositor = Make(options);
    ASSERT_NE(compositor, nullptr);
    auto sprite = compositor->TitleSprite(title);
    ASSERT_TRUE(sprite.ok() && *sprite != nullptr) << sprite.status();
    const Rect bar = (*sprite)->area;
    EXPECT_GE(bar.x, static_cast<int>(w * 0.05)) << "title-safe left edge";
    EXPECT_LE(bar.right(), w / 2 + 1) << "the lower left";
    EXPECT_GT(bar.y, h / 3) << "in the lower part";
    for (const std::string& text : {std::string("短"), long_zh}) {
      SubtitleCue cue;
      cue.start = MediaTime::Zero();
      cue.end = MediaTime::Seconds(2);
      cue.primary = {text, Language::kZh};
      cue.secondary = {text, Language::kZh};
      auto subtitle = compositor->SubtitleFor(cue);
      ASSERT_TRUE(subtitle.ok() && *subtitle != nullptr);
      EXPECT_FALSE(Overlap(bar, (*subtitle)->area)) << w << "x" << h << ": title over the subtitle";
    }
  }
}

TEST_F(CompositorFeaturesTest, LowerThirdSlidesAndFadesInAndOut) {
  const LowerThird title{"Li Na", "Host", MediaTime::Seconds(1), MediaTime::Seconds(5)};
  const LowerThirdStyle style;
  EXPECT_EQ(LowerThirdPoseAt(title, style, MediaTime::Millis(999), 200).opacity, 0);
  EXPECT_EQ(LowerThirdPoseAt(title, style, MediaTime::Seconds(1), 200).opacity, 0);
  const LowerThirdPose entering = LowerThirdPoseAt(title, style, MediaTime::Millis(1150), 200);
  EXPECT_GT(entering.opacity, 0);
  EXPECT_LT(entering.opacity, 255);
  EXPECT_LT(entering.dx, 0) << "coming in from the left";
  const LowerThirdPose resting = LowerThirdPoseAt(title, style, MediaTime::Seconds(3), 200);
  EXPECT_EQ(resting.opacity, 255);
  EXPECT_EQ(resting.dx, 0);
  const LowerThirdPose leaving = LowerThirdPoseAt(title, style, MediaTime::Millis(4900), 200);
  EXPECT_GT(leaving.opacity, 0);
  EXPECT_LT(leaving.opacity, 255);
  EXPECT_LT(leaving.dx, 0);
  EXPECT_EQ(LowerThirdPoseAt(title, style, MediaTime::Seconds(5), 200).opacity, 0);

  CompositorOptions options;
  options.width = 640;
  options.height = 360;
  options.titles = {title};
  auto compositor = Make(options);
  ASSERT_NE(compositor, nullptr);
  VideoFrame before, during;
  ASSERT_OK(compositor->Compose(MediaTime::Millis(500), nullptr, before));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(3), nullptr, during));
  EXPECT_NE(before.rgba, during.rgba);
}

// The script's `@title`: a title added while rendering shows until ended; ending
// it slides it out over slide_out; the next title starts when it is gone; a
// title that ends before it starts is refused and changes nothing.
TEST_F(CompositorFeaturesTest, TitlesAddedAndEndedWhileRendering) {
  CompositorOptions options;
  options.width = 640;
  options.height = 360;
  auto compositor = Make(options);
  ASSERT_NE(compositor, nullptr);
  VideoFrame plain, first_shown, ending, gone, second_shown;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(1), nullptr, plain));

  const absl::Status backwards =
      compositor->AddTitle(LowerThird{"Li Na", "Host", MediaTime::Seconds(3), MediaTime::Seconds(2)});
  EXPECT_EQ(backwards.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(backwards.message().find("\"Li Na\" ends"), std::string::npos) << backwards;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), nullptr, first_shown));
  EXPECT_EQ(first_shown.rgba, plain.rgba) << "the refused title is not drawn";

  ASSERT_OK(compositor->AddTitle(LowerThird{"Li Na", "Host", MediaTime::Seconds(2), MediaTime::Max()}));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(100), nullptr, first_shown));
  EXPECT_NE(first_shown.rgba, plain.rgba) << "an open-ended title stays";

  const MediaTime gone_at = compositor->EndTitles(MediaTime::Seconds(200));
  EXPECT_EQ(gone_at, MediaTime::Seconds(200) + options.title_style.slide_out);
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(200) + options.title_style.slide_out / 2, nullptr, ending));
  EXPECT_NE(ending.rgba, plain.rgba);
  EXPECT_NE(ending.rgba, first_shown.rgba) << "sliding out";
  ASSERT_OK(compositor->Compose(gone_at, nullptr, gone));
  EXPECT_EQ(gone.rgba, plain.rgba);

  ASSERT_OK(compositor->AddTitle(LowerThird{"Wang Wei", "Guest", gone_at, MediaTime::Max()}));
  ASSERT_OK(compositor->Compose(gone_at + MediaTime::Seconds(2), nullptr, second_shown));
  EXPECT_NE(second_shown.rgba, plain.rgba);
  EXPECT_NE(second_shown.rgba, first_shown.rgba) << "another name";
  // Ending before a title's start drops it.
  ASSERT_OK(compositor->AddTitle(LowerThird{"Later", "", MediaTime::Seconds(500), MediaTime::Max()}));
  compositor->EndTitles(MediaTime::Seconds(400));
  VideoFrame later;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(600), nullptr, later));
  EXPECT_EQ(later.rgba, plain.rgba);
}

TEST(LowerThirdParseTest, NameAndSubtitle) {
  auto both = ParseLowerThird(" Li Na | Host ", MediaTime::Zero(), MediaTime::Seconds(1));
  ASSERT_OK(both);
  EXPECT_EQ(both->name, "Li Na");
  EXPECT_EQ(both->subtitle, "Host");
  auto name_only = ParseLowerThird("Li Na", MediaTime::Zero(), MediaTime::Seconds(1));
  ASSERT_OK(name_only);
  EXPECT_EQ(name_only->subtitle, "");
  for (const char* bad : {"|Host", "  ", "a|b|c"}) {
    auto parsed = ParseLowerThird(bad, MediaTime::Zero(), MediaTime::Seconds(1));
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos) << parsed.status();
  }
}

TEST_F(CompositorFeaturesTest, TitleEndingBeforeItStartsIsRejected) {
  CompositorOptions options;
  options.titles = {{"Li Na", "Host", MediaTime::Seconds(3), MediaTime::Seconds(2)}};
  auto compositor = Compositor::Create(options);
  EXPECT_EQ(compositor.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(compositor.status().message().find("Li Na"), std::string::npos) << compositor.status();
}

TEST_F(CompositorFeaturesTest, ColourAndVideoBackgrounds) {
  CompositorOptions options;
  options.width = 320;
  options.height = 180;
  options.background_source.kind = BackgroundKind::kColor;
  options.background_source.color = {0x20, 0x80, 0x40, 255};
  auto solid = Make(options);
  ASSERT_NE(solid, nullptr);
  VideoFrame frame;
  ASSERT_OK(solid->Compose(MediaTime::Zero(), nullptr, frame));
  EXPECT_EQ(frame.Row(2)[2 * 4 + 1], 0x80);

  ScratchDir dir;
  const std::string path = dir.File("loop.mkv");
  ASSERT_OK(testing_media::WriteSolidVideo(path, 32, 18, 5, 10, testing_media::FrameColor));
  options.background_source.kind = BackgroundKind::kVideo;
  options.background_source.path = path;
  auto video = Make(options);
  ASSERT_NE(video, nullptr);
  ASSERT_NE(video->video_background(), nullptr);
  // Frame i of the 0.5 s loop is shown from i * 100 ms, in every loop; a
  // subtitle goes over the moving background (no cached composite).
  const SubtitleCue cue = WordCue();
  for (int ms : {0, 120, 470, 520, 1330, 1000, 2990}) {
    ASSERT_OK(video->Compose(MediaTime::Millis(ms), &cue, frame));
    const Rgba expected = testing_media::FrameColor((ms / 100) % 5);
    const uint8_t* corner = frame.Row(1) + 1 * 4;
    EXPECT_NEAR(corner[0], expected.r, 1) << ms << " ms";
    EXPECT_NEAR(corner[1], expected.g, 1) << ms << " ms";
    EXPECT_NEAR(corner[2], expected.b, 1) << ms << " ms";
  }
}

// A missing or broken background fails the compositor's creation with one line
// naming the file: a render stops before it writes anything.
TEST_F(CompositorFeaturesTest, BadBackgroundFilesFailCreation) {
  ScratchDir dir;
  const std::string broken = dir.File("broken.jpg");
  { std::ofstream(broken, std::ios::binary) << "\xff\xd8\xff\xe0 not a jpeg at all"; }
  for (BackgroundKind kind : {BackgroundKind::kImage, BackgroundKind::kVideo}) {
    for (const std::string& path : {dir.File("missing.png"), broken}) {
      CompositorOptions options;
      options.width = 320;
      options.height = 180;
      options.background_source.kind = kind;
      options.background_source.path = path;
      auto compositor = Compositor::Create(options);
      ASSERT_FALSE(compositor.ok()) << path;
      EXPECT_TRUE(compositor.status().code() == absl::StatusCode::kNotFound ||
                  compositor.status().code() == absl::StatusCode::kInvalidArgument)
          << compositor.status();
      EXPECT_NE(compositor.status().message().find(path), std::string::npos) << compositor.status();
    }
  }
  EXPECT_EQ(dir.Entries().size(), 1u) << "nothing written beside the inputs";
}

}  // namespace
}  // namespace lingcast::compose
