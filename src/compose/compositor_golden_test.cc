// The composed frame (studio background, built-in avatar, bilingual subtitles
// with long lines) against golden PNGs under src/compose/testdata/, and the
// same frames from any thread count. Tolerance: golden_image.h; subtitles allow
// 0.5 % outlier pixels for other FreeType/HarfBuzz versions' glyph edges.
// LINGCAST_UPDATE_GOLDEN=1 rewrites the goldens.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "avatar/golden_image.h"
#include "compose/blend.h"
#include "compose/compositor.h"
#include "compose/test_media.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast::compose {
namespace {

constexpr char kLongZh[] =
    "大家好，欢迎来到直播间！今天给大家介绍一款新产品：这款耳机的续航时间长达三十个小时，支持快速充电，"
    "现在下单还可以享受八折优惠，数量有限，先到先得。";
constexpr char kLongEn[] =
    "Hello everyone, welcome to the live stream! Today we have a new product for you: these earphones last up "
    "to thirty hours and support fast charging, and if you order now you get twenty percent off.";

SubtitleCue Cue(const char* primary, Language primary_language, const char* secondary,
                Language secondary_language) {
  return SubtitleCue{MediaTime::Seconds(1), MediaTime::Seconds(5), {primary, primary_language},
                     {secondary, secondary_language}};
}

// A compositor with the real avatar, drawing the state `*state`.
struct Scene {
  std::unique_ptr<Compositor> compositor;
  AvatarRenderer avatar;
  AvatarState state;

  Scene(int width, int height, int threads) : Scene([&] {
    CompositorOptions options;
    options.width = width;
    options.height = height;
    options.threads = threads;
    return options;
  }()) {}
  explicit Scene(const CompositorOptions& options) {
    auto created = Compositor::Create(options);
    EXPECT_OK(created);
    if (!created.ok()) return;
    compositor = std::move(*created);
    compositor->SetAvatarRenderer(
        [this](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar.Render(state, frame, area, clip); });
  }
};

void ExpectGolden(const VideoFrame& frame, const std::string& name) {
  golden::Tolerance tolerance;
  tolerance.max_outlier_fraction = 0.005;
  const absl::Status status = golden::CompareWithGolden(frame, LINGCAST_SOURCE_DIR "/src/compose/testdata/" + name,
                                                        tolerance, LINGCAST_BINARY_DIR "/golden-diff");
  EXPECT_OK(status);
}

TEST(CompositorGoldenTest, LongChineseOverEnglish) {
  Scene scene(320, 180, 0);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  VideoFrame frame;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, frame));
  ExpectGolden(frame, "subtitles_zh_en_320x180.png");
}

TEST(CompositorGoldenTest, LongEnglishOverChinese) {
  Scene scene(320, 180, 0);
  ASSERT_NE(scene.compositor, nullptr);
  scene.state.mouth = MouthParamsOf(Viseme::kD);
  const SubtitleCue cue = Cue(kLongEn, Language::kEn, kLongZh, Language::kZh);
  VideoFrame frame;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, frame));
  ExpectGolden(frame, "subtitles_en_zh_320x180.png");
}

TEST(CompositorGoldenTest, LongLinesAtA640x360Frame) {
  Scene scene(640, 360, 0);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  VideoFrame frame;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, frame));
  ExpectGolden(frame, "subtitles_zh_en_640x360.png");
}

// Frames of a speaking, blinking avatar under a cue that fades in, holds and
// fades out, drawn with 1, 2, 3 and 8 threads: every byte the same.
TEST(CompositorDeterminismTest, AnyThreadCountGivesTheSameBytes) {
  VisemeTrack track;
  for (int i = 0; i < 60; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 70), MediaTime::Millis(i * 70 + 70), static_cast<Viseme>(i % 9)});
  }
  AnimatorOptions animation;
  animation.blink_min_gap = MediaTime::Millis(300);
  animation.blink_max_gap = MediaTime::Millis(600);
  const Animator animator(track, animation);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  std::vector<MediaTime> times;
  for (int ms : {0, 500, 1000, 1040, 1100, 1500, 2000, 2210, 3000, 4900, 4950}) times.push_back(MediaTime::Millis(ms));
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}}) {
    std::vector<VideoFrame> reference;
    for (int threads : {1, 2, 3, 8}) {
      Scene scene(w, h, threads);
      ASSERT_NE(scene.compositor, nullptr);
      EXPECT_EQ(scene.compositor->threads(), threads);
      VideoFrame frame;
      for (size_t i = 0; i < times.size(); ++i) {
        scene.state = animator.StateAt(times[i]);
        ASSERT_OK(scene.compositor->Compose(times[i], &cue, frame));
        if (threads == 1) {
          reference.push_back(frame);
        } else {
          ASSERT_EQ(frame.rgba, reference[i].rgba) << w << "x" << h << ", " << threads << " threads, frame at "
                                                   << times[i].micros() / 1000 << " ms";
        }
      }
    }
  }
}

// The cached background-with-subtitle composite gives the bytes of blending the
// sprite over each frame: compare with the blend done by hand.
TEST(CompositorDeterminismTest, CachedSubtitleCompositeEqualsBlendingEachFrame) {
  Scene scene(640, 360, 2);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  VideoFrame with, without;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, with));
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), nullptr, without));
  auto sprite = scene.compositor->SubtitleFor(cue);
  ASSERT_TRUE(sprite.ok() && *sprite != nullptr);
  BlitOver(without, (*sprite)->image, (*sprite)->area.x, (*sprite)->area.y, 255);
  EXPECT_EQ(with.rgba, without.rgba);
}

// --- Looks, word highlight, lower third, image and video backgrounds --------

CompositorOptions SmallOptions(int width, int height, SubtitleLook look) {
  CompositorOptions options;
  options.width = width;
  options.height = height;
  options.subtitles.look = look;
  return options;
}

TEST(CompositorGoldenTest, BoxAndShadowLooksWithLongLines) {
  for (SubtitleLook look : {SubtitleLook::kBox, SubtitleLook::kShadow}) {
    Scene scene(SmallOptions(320, 180, look));
    ASSERT_NE(scene.compositor, nullptr);
    const std::string name = SubtitleLookName(look);
    VideoFrame frame;
    const SubtitleCue zh_en = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
    ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &zh_en, frame));
    ExpectGolden(frame, name + "_zh_en_320x180.png");
    const SubtitleCue en_zh = Cue(kLongEn, Language::kEn, kLongZh, Language::kZh);
    ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &en_zh, frame));
    ExpectGolden(frame, name + "_en_zh_320x180.png");
  }
}

// The spoken line's words with word timing: each word 0.4 s from the cue start.
SubtitleCue TimedCue(const char* primary, Language primary_language, const char* secondary,
                     Language secondary_language) {
  SubtitleCue cue = Cue(primary, primary_language, secondary, secondary_language);
  const std::string text = primary;
  int i = 0;
  for (size_t at = 0; at < text.size(); ++i) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    cue.words.push_back({static_cast<int>(at), static_cast<int>(end - at), cue.start + MediaTime::Millis(400 * i),
                         cue.start + MediaTime::Millis(400 * i + 400)});
    at = end + 1;
  }
  return cue;
}

constexpr char kMidEn[] = "Today we have a new product for you: earphones that last thirty hours.";

TEST(CompositorGoldenTest, WordHighlightMidLine) {
  CompositorOptions options = SmallOptions(480, 270, SubtitleLook::kOutline);
  options.highlight_words = true;
  Scene scene(options);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = TimedCue(kMidEn, Language::kEn, "今天给大家介绍一款新产品：续航三十个小时的耳机。", Language::kZh);
  VideoFrame frame;
  // 2.5 s into the cue: the seventh word ("for") is being said.
  ASSERT_OK(scene.compositor->Compose(cue.start + MediaTime::Millis(2500), &cue, frame));
  ExpectGolden(frame, "highlight_en_zh_480x270.png");
}

TEST(CompositorGoldenTest, LowerThirdWithSubtitles) {
  CompositorOptions options = SmallOptions(480, 270, SubtitleLook::kOutline);
  options.titles = {{"李娜 Li Na", "主播 · Host, Lingcast Live", MediaTime::Zero(), MediaTime::Seconds(10)}};
  Scene scene(options);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  VideoFrame frame;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, frame));
  ExpectGolden(frame, "lower_third_480x270.png");
}

// A picture the test makes: diagonal colour bands, a light disc and a dark
// frame, so cropping and scaling errors show.
VideoFrame MadePicture(int width, int height) {
  VideoFrame picture;
  picture.Allocate(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = picture.Row(y) + x * 4;
      const int band = ((x + y) / 24) % 3;
      const double dx = x - width * 0.7, dy = y - height * 0.35;
      const bool disc = dx * dx + dy * dy < (height * 0.2) * (height * 0.2);
      const bool edge = x < 6 || y < 6 || x >= width - 6 || y >= height - 6;
      p[0] = static_cast<uint8_t>(edge ? 20 : disc ? 250 : 60 + 70 * band);
      p[1] = static_cast<uint8_t>(edge ? 20 : disc ? 235 : 90 + 40 * band);
      p[2] = static_cast<uint8_t>(edge ? 20 : disc ? 190 : 150 - 30 * band);
      p[3] = 255;
    }
  }
  return picture;
}

TEST(CompositorGoldenTest, ImageBackgroundCover) {
  testing_util::ScratchDir dir;
  const std::string path = dir.File("backdrop.png");
  ASSERT_OK(golden::WritePng(MadePicture(400, 300), path));  // 4:3 into 16:9: cropped top and bottom
  CompositorOptions options = SmallOptions(320, 180, SubtitleLook::kOutline);
  options.background_source.kind = BackgroundKind::kImage;
  options.background_source.path = path;
  Scene scene(options);
  ASSERT_NE(scene.compositor, nullptr);
  const SubtitleCue cue = Cue(kLongZh, Language::kZh, kLongEn, Language::kEn);
  VideoFrame frame;
  ASSERT_OK(scene.compositor->Compose(MediaTime::Seconds(3), &cue, frame));
  ExpectGolden(frame, "image_background_320x180.png");
}

// Every new layer at once (video background, box look, word highlight, a
// sliding title, subtitle fades), drawn with 1, 2, 3 and 8 threads.
TEST(CompositorDeterminismTest, AllLayersGiveTheSameBytesOnAnyThreadCount) {
  testing_util::ScratchDir dir;
  const std::string path = dir.File("loop.mkv");
  ASSERT_OK(testing_media::WriteSolidVideo(path, 48, 27, 7, 10, testing_media::FrameColor));
  VisemeTrack track;
  for (int i = 0; i < 60; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 70), MediaTime::Millis(i * 70 + 70), static_cast<Viseme>(i % 9)});
  }
  const Animator animator(track, AnimatorOptions{});
  const SubtitleCue cue = TimedCue(kMidEn, Language::kEn, kLongZh, Language::kZh);
  std::vector<MediaTime> times;
  for (int ms : {0, 150, 400, 1000, 1050, 1500, 2210, 3000, 4700, 4950}) times.push_back(MediaTime::Millis(ms));
  for (SubtitleLook look : {SubtitleLook::kBox, SubtitleLook::kOutline}) {
    for (bool video : {true, false}) {
      std::vector<VideoFrame> reference;
      for (int threads : {1, 2, 3, 8}) {
        CompositorOptions options = SmallOptions(640, 360, look);
        options.threads = threads;
        options.highlight_words = true;
        options.titles = {{"李娜 Li Na", "Host", MediaTime::Zero(), MediaTime::Seconds(5)}};
        if (video) {
          options.background_source.kind = BackgroundKind::kVideo;
          options.background_source.path = path;
        }
        Scene scene(options);
        ASSERT_NE(scene.compositor, nullptr);
        VideoFrame frame;
        for (size_t i = 0; i < times.size(); ++i) {
          scene.state = animator.StateAt(times[i]);
          ASSERT_OK(scene.compositor->Compose(times[i], &cue, frame));
          if (threads == 1) {
            reference.push_back(frame);
          } else {
            ASSERT_EQ(frame.rgba, reference[i].rgba) << SubtitleLookName(look) << (video ? ", video" : ", studio")
                                                     << ", " << threads << " threads, frame at "
                                                     << times[i].micros() / 1000 << " ms";
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace lingcast::compose
