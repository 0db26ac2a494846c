#include "compose/compositor.h"

#include <algorithm>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "compose/font.h"
#include "core/status_matchers.h"

namespace lingcast::compose {
namespace {

constexpr char kZh[] = "大家好，欢迎来到直播间！今天给大家介绍一款新产品。";
constexpr char kEn[] = "Hello everyone, welcome to the live stream! Today we have a new product for you.";

SubtitleCue MakeCue(std::string primary, std::string secondary) {
  SubtitleCue cue;
  cue.start = MediaTime::Seconds(1);
  cue.end = MediaTime::Seconds(4);
  cue.primary = {std::move(primary), Language::kZh};
  cue.secondary = {std::move(secondary), Language::kEn};
  return cue;
}

std::string LongText(const std::string& piece, int repeat) {
  std::string s;
  for (int i = 0; i < repeat; ++i) s += piece;
  return s;
}

// The smallest rectangle holding every pixel where `a` and `b` differ.
Rect DiffBounds(const VideoFrame& a, const VideoFrame& b) {
  int x0 = a.width, y0 = a.height, x1 = -1, y1 = -1;
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      if (std::memcmp(a.Row(y) + x * 4, b.Row(y) + x * 4, 4) != 0) {
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
      }
    }
  }
  if (x1 < 0) return {};
  return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

bool Contains(const Rect& outer, const Rect& inner) {
  return inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() &&
         inner.bottom() <= outer.bottom();
}

class CompositorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto font = FindNotoSansCjkSc(FontWeight::kRegular); !font.ok()) {
      GTEST_SKIP() << "fonts-noto-cjk is not installed: " << font.status().message();
    }
  }

  static std::unique_ptr<Compositor> Make(int width, int height, SubtitleLook look = SubtitleLook::kBox) {
    CompositorOptions options;
    options.width = width;
    options.height = height;
    options.subtitles.look = look;
    auto compositor = Compositor::Create(options);
    EXPECT_OK(compositor);
    return compositor.ok() ? std::move(*compositor) : nullptr;
  }
};

TEST(CompositorOptionsTest, RejectsAbsurdSizes) {
  for (auto [w, h] : {std::pair{0, 0}, std::pair{100000, 100000}, std::pair{1280, 10}}) {
    CompositorOptions options;
    options.width = w;
    options.height = h;
    auto compositor = Compositor::Create(options);
    ASSERT_EQ(compositor.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(compositor.status().message().find(std::to_string(w) + "x" + std::to_string(h)),
              std::string::npos)
        << compositor.status().message();
  }
}

TEST(CompositorOptionsTest, MissingExplicitFontIsNotFound) {
  CompositorOptions options;
  options.fonts.regular_path = "/nonexistent/font.otf";
  auto compositor = Compositor::Create(options);
  ASSERT_EQ(compositor.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(compositor.status().message().find("/nonexistent/font.otf"), std::string::npos);
}

TEST(AvatarAreaTest, CentredOnTheBottomAndInsideTheFrame) {
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}, std::pair{3840, 2160}, std::pair{360, 640}}) {
    const Rect area = AvatarArea(w, h, AvatarPlacement{});
    EXPECT_TRUE(Contains({0, 0, w, h}, area)) << w << "x" << h;
    EXPECT_EQ(area.bottom(), h);
    EXPECT_LE(std::abs(area.x + area.width / 2 - w / 2), 1);
    EXPECT_GT(area.height, h / 2);
  }
}

TEST_F(CompositorTest, SubtitlePixelsStayInTheBottomRegion) {
  auto compositor = Make(1280, 720);
  const SubtitleCue cue = MakeCue(kZh, kEn);
  VideoFrame without, with;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), nullptr, without));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), &cue, with));
  const Rect drawn = DiffBounds(without, with);
  ASSERT_FALSE(drawn.empty()) << "no subtitle was drawn";
  EXPECT_GE(drawn.y, 720 / 2) << "subtitle reaches into the top half";
  EXPECT_LE(drawn.bottom(), 720 - static_cast<int>(720 * 0.05)) << "subtitle in the bottom margin";
  EXPECT_GE(drawn.x, static_cast<int>(1280 * 0.05));
  EXPECT_LE(drawn.right(), 1280 - static_cast<int>(1280 * 0.05));
  auto sprite = compositor->SubtitleFor(cue);
  ASSERT_TRUE(sprite.ok() && *sprite != nullptr);
  EXPECT_TRUE(Contains((*sprite)->area, drawn));
  EXPECT_EQ((*sprite)->primary_lines, 1);
  EXPECT_EQ((*sprite)->secondary_lines, 1);
  EXPECT_GT((*sprite)->primary_pixel_size, (*sprite)->secondary_pixel_size);
}

TEST_F(CompositorTest, NothingOverflowsAtSmallestAndLargestSizes) {
  const std::string long_zh = LongText("这是一段很长很长的字幕，用来测试自动换行和省略。", 8);
  const std::string long_en = LongText("This is a very long subtitle line to test wrapping. ", 10);
  for (auto [w, h] : {std::pair{640, 360}, std::pair{3840, 2160}}) {
    // Outlined (no box), clipped glyphs or strokes would show as ink on the sprite's edge.
    auto compositor = Make(w, h, SubtitleLook::kOutline);
    for (const SubtitleCue& cue : {MakeCue(kZh, kEn), MakeCue(long_zh, long_en)}) {
      auto sprite = compositor->SubtitleFor(cue);
      ASSERT_OK(sprite);
      ASSERT_NE(*sprite, nullptr);
      const SubtitleSprite& s = **sprite;
      EXPECT_TRUE(Contains({0, h / 2, w, h / 2}, s.area)) << w << "x" << h;
      EXPECT_LE(s.primary_lines, 2);
      EXPECT_LE(s.secondary_lines, 2);
      int ink_on_edge = 0;
      for (int y = 0; y < s.image.height; ++y) {
        for (int x : {0, s.image.width - 1}) ink_on_edge += s.image.Row(y)[x * 4 + 3] != 0;
      }
      for (int x = 0; x < s.image.width; ++x) {
        for (int y : {0, s.image.height - 1}) ink_on_edge += s.image.Row(y)[x * 4 + 3] != 0;
      }
      EXPECT_EQ(ink_on_edge, 0) << "text clipped at " << w << "x" << h;
      VideoFrame frame;
      ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), &cue, frame));
    }
  }
}

TEST_F(CompositorTest, VeryLongLineIsShrunkThenEllipsized) {
  auto compositor = Make(1280, 720);
  const std::string long_zh = LongText("这是一段很长很长的字幕，用来测试自动换行和省略。", 10);
  auto sprite = compositor->SubtitleFor(MakeCue(long_zh, ""));
  ASSERT_TRUE(sprite.ok() && *sprite != nullptr);
  EXPECT_TRUE((*sprite)->ellipsized);
  EXPECT_EQ((*sprite)->primary_lines, 2);
  EXPECT_LT((*sprite)->primary_pixel_size, 36) << "shrinks before cutting";
  EXPECT_GE((*sprite)->primary_pixel_size, static_cast<int>(36 * 0.8));

  // A line that wraps to two lines keeps its nominal size and is not cut.
  auto two_lines = compositor->SubtitleFor(MakeCue(LongText("欢迎来到直播间，", 4), ""));
  ASSERT_TRUE(two_lines.ok() && *two_lines != nullptr);
  EXPECT_EQ((*two_lines)->primary_lines, 2);
  EXPECT_FALSE((*two_lines)->ellipsized);
  EXPECT_EQ((*two_lines)->primary_pixel_size, 36);
}

TEST_F(CompositorTest, SameCueGivesIdenticalPixelsAndIsLaidOutOnce) {
  auto compositor = Make(1280, 720);
  const SubtitleCue cue = MakeCue(kZh, kEn);
  VideoFrame first, second;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), &cue, first));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), &cue, second));
  EXPECT_EQ(first.rgba, second.rgba);
  EXPECT_EQ(compositor->subtitle_layouts_built(), 1);
  // A fresh compositor draws the same pixels too (deterministic, no hidden state).
  auto other = Make(1280, 720);
  VideoFrame third;
  ASSERT_OK(other->Compose(MediaTime::Seconds(2), &cue, third));
  EXPECT_EQ(first.rgba, third.rgba);
}

TEST_F(CompositorTest, EmptySecondaryLineGivesASmallerBox) {
  auto compositor = Make(1280, 720);
  auto both = compositor->SubtitleFor(MakeCue(kZh, kEn));
  ASSERT_TRUE(both.ok() && *both != nullptr);
  const Rect both_area = (*both)->area;
  auto primary_only = compositor->SubtitleFor(MakeCue(kZh, ""));
  ASSERT_TRUE(primary_only.ok() && *primary_only != nullptr);
  EXPECT_EQ((*primary_only)->secondary_lines, 0);
  EXPECT_LT((*primary_only)->area.height, both_area.height);
  EXPECT_EQ((*primary_only)->area.bottom(), both_area.bottom()) << "boxes share a baseline";
  auto secondary_only = compositor->SubtitleFor(MakeCue("", kEn));
  ASSERT_TRUE(secondary_only.ok() && *secondary_only != nullptr);
  EXPECT_EQ((*secondary_only)->primary_lines, 0);
  EXPECT_EQ((*secondary_only)->secondary_lines, 1);
  auto nothing = compositor->SubtitleFor(MakeCue(" \u3000\n", "\t"));
  ASSERT_OK(nothing);
  EXPECT_EQ(*nothing, nullptr);
}

TEST_F(CompositorTest, CueShowsOnlyInItsTimeAndFades) {
  auto compositor = Make(640, 360);
  const SubtitleCue cue = MakeCue(kZh, kEn);
  VideoFrame plain, before, at_start, fading, full, after;
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), nullptr, plain));
  ASSERT_OK(compositor->Compose(MediaTime::Millis(999), &cue, before));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(1), &cue, at_start));
  ASSERT_OK(compositor->Compose(MediaTime::Millis(1075), &cue, fading));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(2), &cue, full));
  ASSERT_OK(compositor->Compose(MediaTime::Seconds(4), &cue, after));
  EXPECT_EQ(before.rgba, plain.rgba);
  EXPECT_EQ(at_start.rgba, plain.rgba) << "opacity is zero at the cue start";
  EXPECT_EQ(after.rgba, plain.rgba) << "the cue end is exclusive";
  EXPECT_NE(fading.rgba, plain.rgba);
  EXPECT_NE(fading.rgba, full.rgba);
}

TEST_F(CompositorTest, AvatarIsDrawnIntoItsAreaBandByBand) {
  auto compositor = Make(1280, 720);
  std::mutex mu;
  std::vector<Rect> clips;
  Rect seen;
  compositor->SetAvatarRenderer([&](VideoFrame& frame, const Rect& area, const Rect& clip) {
    {
      std::lock_guard<std::mutex> lock(mu);
      clips.push_back(clip);
      seen = area;
    }
    const Rect r = area.Intersect(clip);
    for (int y = r.y; y < r.bottom(); ++y) {
      for (int x = r.x; x < r.right(); ++x) {
        uint8_t* p = frame.Row(y) + x * 4;
        p[0] = 255, p[1] = 0, p[2] = 0, p[3] = 255;
      }
    }
  });
  VideoFrame frame;
  ASSERT_OK(compositor->Compose(MediaTime::Zero(), nullptr, frame));
  EXPECT_EQ(seen, compositor->avatar_area());
  // The clips are disjoint bands inside the area that together cover it.
  int64_t covered = 0;
  for (size_t i = 0; i < clips.size(); ++i) {
    EXPECT_EQ(clips[i].Intersect(seen), clips[i]) << "band " << i << " reaches outside the avatar's area";
    for (size_t j = i + 1; j < clips.size(); ++j) EXPECT_TRUE(clips[i].Intersect(clips[j]).empty());
    covered += int64_t{clips[i].width} * clips[i].height;
  }
  EXPECT_EQ(covered, int64_t{seen.width} * seen.height);
  EXPECT_GT(clips.size(), 1u) << "a 720p frame is drawn in several bands";
  const uint8_t* centre = frame.Row(seen.y + seen.height / 2) + (seen.x + seen.width / 2) * 4;
  EXPECT_EQ(centre[0], 255);
  EXPECT_EQ(centre[1], 0);
  const uint8_t* outside = frame.Row(seen.y + seen.height / 2) + (seen.x - 1) * 4;
  EXPECT_NE(outside[0], 255) << "nothing is drawn left of the avatar's area";
}

TEST_F(CompositorTest, BackgroundIsOpaqueAndFrameSizeIsChecked) {
  auto compositor = Make(640, 360);
  VideoFrame frame;
  ASSERT_OK(compositor->Compose(MediaTime::Zero(), nullptr, frame));
  for (int y = 0; y < frame.height; y += 7) {
    for (int x = 0; x < frame.width; x += 5) ASSERT_EQ(frame.Row(y)[x * 4 + 3], 255);
  }
  // Brighter near the top than in the bottom corners: gradient and vignette.
  EXPECT_GT(frame.Row(10)[320 * 4 + 2], frame.Row(355)[5 * 4 + 2]);
  VideoFrame wrong;
  wrong.Allocate(320, 180);
  const absl::Status status = compositor->Compose(MediaTime::Zero(), nullptr, wrong);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("320x180"), std::string::npos);
}

// What the CUDA compositor draws from: the layers at t, and versions that
// move exactly when a sprite's pixels may have changed.
TEST(CompositorLayersTest, NamesWhatTheFrameShowsAndWhenSpritesChange) {
  CompositorOptions options;
  options.width = 320;
  options.height = 180;
  options.highlight_words = true;
  options.titles = {{"Li Na", "Host", MediaTime::Zero(), MediaTime::Seconds(10)}};
  auto compositor = Compositor::Create(options);
  ASSERT_OK(compositor);
  SubtitleCue cue = MakeCue(kEn, kZh);
  cue.primary.language = Language::kEn;
  cue.secondary.language = Language::kZh;
  cue.words = {{0, 5, MediaTime::Seconds(1), MediaTime::Millis(1500)},
               {6, 9, MediaTime::Millis(1500), MediaTime::Seconds(2)}};  // "Hello", "everyone,"

  auto before = (*compositor)->LayersAt(MediaTime::Millis(500), &cue);
  ASSERT_OK(before);
  EXPECT_EQ(before->subtitle, nullptr);
  EXPECT_NE(before->title, nullptr);
  EXPECT_EQ(before->background, &(*compositor)->background());
  EXPECT_FALSE(before->background_is_video);

  auto fading_in = (*compositor)->LayersAt(MediaTime::Millis(1050), &cue);
  ASSERT_OK(fading_in);
  ASSERT_NE(fading_in->subtitle, nullptr);
  EXPECT_GT(fading_in->subtitle_opacity, 0);
  EXPECT_LT(fading_in->subtitle_opacity, 255);
  EXPECT_NE(fading_in->subtitle_version, before->subtitle_version);  // a sprite was made

  auto first_word = (*compositor)->LayersAt(MediaTime::Millis(1300), &cue);
  ASSERT_OK(first_word);
  auto same_word = (*compositor)->LayersAt(MediaTime::Millis(1400), &cue);
  ASSERT_OK(same_word);
  EXPECT_EQ(same_word->subtitle_opacity, 255);
  EXPECT_EQ(same_word->subtitle, first_word->subtitle);
  EXPECT_EQ(same_word->subtitle_version, first_word->subtitle_version);
  auto second_word = (*compositor)->LayersAt(MediaTime::Millis(1600), &cue);
  ASSERT_OK(second_word);
  EXPECT_NE(second_word->subtitle_version, same_word->subtitle_version);  // re-highlighted in place
  EXPECT_EQ(second_word->title_version, before->title_version);          // the title did not change
  EXPECT_EQ(second_word->title, before->title);

  auto after = (*compositor)->LayersAt(MediaTime::Millis(4000), &cue);
  ASSERT_OK(after);
  EXPECT_EQ(after->subtitle, nullptr);
}

// The CUDA compositor keeps a copy of the subtitle sprite per frame in flight
// and brings an older copy up to date from the patches alone: the copy taken
// at one version, with the union of the later patches copied in, must be the
// sprite at the later version, byte for byte.
TEST(CompositorLayersTest, HighlightPatchesBringAnOlderCopyUpToDate) {
  CompositorOptions options;
  options.width = 640;
  options.height = 360;
  options.highlight_words = true;
  auto compositor = Compositor::Create(options);
  ASSERT_OK(compositor);
  SubtitleCue cue = MakeCue(kEn, kZh);
  cue.primary.language = Language::kEn;
  cue.secondary.language = Language::kZh;
  cue.words = {{0, 5, MediaTime::Seconds(1), MediaTime::Millis(1200)},     // "Hello"
               {6, 9, MediaTime::Millis(1200), MediaTime::Millis(1400)},  // "everyone,"
               {16, 7, MediaTime::Millis(1400), MediaTime::Millis(1600)}};  // "welcome"

  auto first = (*compositor)->LayersAt(MediaTime::Millis(1100), &cue);
  ASSERT_OK(first);
  ASSERT_NE(first->subtitle, nullptr);
  const VideoFrame copy = first->subtitle->image;  // a frame in flight's copy, at this version
  const int64_t copied_version = first->subtitle_version;
  ASSERT_OK((*compositor)->LayersAt(MediaTime::Millis(1300), &cue));  // seen by the other frame only
  auto now = (*compositor)->LayersAt(MediaTime::Millis(1500), &cue);
  ASSERT_OK(now);
  ASSERT_EQ(now->subtitle, first->subtitle);  // the same sprite, changed in place twice
  EXPECT_EQ(now->subtitle_version, copied_version + 2);
  ASSERT_GE(now->subtitle_patches.size(), 2u);
  EXPECT_EQ(now->subtitle_patches.back().version, now->subtitle_version);

  VideoFrame patched = copy;
  const VideoFrame& current = now->subtitle->image;
  ASSERT_NE(patched.rgba, current.rgba);  // the highlight did change pixels
  int64_t next = copied_version + 1;
  for (const Compositor::Layers::SpritePatch& patch : now->subtitle_patches) {
    if (patch.version < next) continue;
    ASSERT_EQ(patch.version, next) << "a version without its patch";
    ++next;
    const Rect area = patch.area.Intersect(Rect{0, 0, current.width, current.height});
    EXPECT_FALSE(area.empty());
    for (int y = area.y; y < area.bottom(); ++y) {
      std::copy_n(current.Row(y) + area.x * 4, area.width * 4, patched.Row(y) + area.x * 4);
    }
  }
  EXPECT_EQ(next, now->subtitle_version + 1);
  EXPECT_EQ(patched.rgba, current.rgba);

  // Another cue's sprite starts a new chain: no patch of the old one's changes is offered as its.
  SubtitleCue other = cue;
  other.primary.text = "Something else entirely";
  other.words.clear();
  auto switched = (*compositor)->LayersAt(MediaTime::Millis(1500), &other);
  ASSERT_OK(switched);
  EXPECT_NE(switched->subtitle, now->subtitle);
  EXPECT_TRUE(switched->subtitle_patches.empty());
}

}  // namespace
}  // namespace lingcast::compose
