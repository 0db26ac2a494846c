#include "compose/picture_in_picture.h"

#include "compose/blend.h"
#include "compose/test_media.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast::compose {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;
namespace tm = testing_media;

Rgba PixelAt(const VideoFrame& frame, int x, int y) {
  const uint8_t* p = frame.Row(y) + static_cast<size_t>(x) * 4;
  return Rgba{p[0], p[1], p[2], p[3]};
}

VideoFrame Grey(int width, int height) {
  VideoFrame frame;
  frame.Allocate(width, height);
  for (size_t i = 0; i < frame.rgba.size(); i += 4) {
    frame.rgba[i] = frame.rgba[i + 1] = frame.rgba[i + 2] = 40;
    frame.rgba[i + 3] = 255;
  }
  return frame;
}

TEST(PictureInPictureTest, ShowsTheHostFrameOfEachMomentInTheTopRightCorner) {
  ScratchDir dir;
  // 10 frames at 10 fps, one colour per frame, 4:3.
  ASSERT_OK(tm::WriteSolidVideo(dir.File("host.mkv"), 64, 48, 10, 10, tm::FrameColor));
  absl::StatusOr<std::unique_ptr<PictureInPicture>> pip =
      PictureInPicture::Open(dir.File("host.mkv"), 320, 180, PictureInPictureOptions{});
  ASSERT_OK(pip);
  const Rect area = (*pip)->area();
  EXPECT_EQ(area.width, 90);  // 28% of 320, even
  EXPECT_EQ(area.height, 68);  // the source's 4:3
  EXPECT_EQ(area.right(), 320 - 5);
  EXPECT_EQ(area.y, 5);

  for (int i : {0, 3, 9}) {
    VideoFrame frame = Grey(320, 180);
    ASSERT_OK((*pip)->DrawOver(MediaTime::Millis(100 * i + 50), frame));
    EXPECT_EQ(PixelAt(frame, area.x + area.width / 2, area.y + area.height / 2), tm::FrameColor(i)) << "frame " << i;
    // Outside the inset and its border the frame is untouched.
    EXPECT_EQ(PixelAt(frame, 10, 100), (Rgba{40, 40, 40, 255}));
    EXPECT_EQ(PixelAt(frame, area.x - 1, area.y + 10), (Rgba{255, 255, 255, 255})) << "border";
  }
  // Past the end of the source it holds the last frame instead of looping.
  VideoFrame frame = Grey(320, 180);
  ASSERT_OK((*pip)->DrawOver(MediaTime::Seconds(25), frame));
  EXPECT_EQ(PixelAt(frame, area.x + 10, area.y + 10), tm::FrameColor(9));
}

// The CUDA compositor draws the inset as two blits, the border sprite and the
// picture; on the CPU they give DrawOver's bytes exactly.
TEST(PictureInPictureTest, TheBorderSpriteAndThePictureBlittedAreWhatDrawOverDraws) {
  ScratchDir dir;
  ASSERT_OK(tm::WriteSolidVideo(dir.File("host.mkv"), 64, 36, 10, 10, tm::FrameColor));
  for (const auto& [width, height] : std::vector<std::pair<int, int>>{{320, 180}, {1280, 720}, {1920, 1080}}) {
    PictureInPictureOptions options;
    options.border = Rgba{250, 200, 40, 180};  // translucent: the blend shows through the edge
    auto drawn = PictureInPicture::Open(dir.File("host.mkv"), width, height, options);
    auto blitted = PictureInPicture::Open(dir.File("host.mkv"), width, height, options);
    ASSERT_OK(drawn);
    ASSERT_OK(blitted);
    const Rect border = (*blitted)->border_area();
    EXPECT_EQ((*blitted)->border_sprite().width, border.width);
    EXPECT_EQ((*blitted)->border_sprite().height, border.height);
    EXPECT_EQ(border.x, (*blitted)->area().x - std::max(1, height / 360));
    for (int ms : {0, 450, 990}) {
      VideoFrame expected = Grey(width, height), actual = Grey(width, height);
      ASSERT_OK((*drawn)->DrawOver(MediaTime::Millis(ms), expected));
      absl::StatusOr<const VideoFrame*> picture = (*blitted)->PictureAt(MediaTime::Millis(ms));
      ASSERT_OK(picture);
      BlitOver(actual, (*blitted)->border_sprite(), border.x, border.y);
      BlitOver(actual, **picture, (*blitted)->area().x, (*blitted)->area().y);
      EXPECT_TRUE(actual.rgba == expected.rgba) << width << "x" << height << " at " << ms << " ms";
    }
    EXPECT_TRUE((*blitted)->moving());
  }
}

TEST(PictureInPictureTest, ADelayShowsAnEarlierFrame) {
  ScratchDir dir;
  ASSERT_OK(tm::WriteSolidVideo(dir.File("host.mkv"), 64, 36, 10, 10, tm::FrameColor));
  PictureInPictureOptions options;
  options.delay = MediaTime::Millis(200);
  absl::StatusOr<std::unique_ptr<PictureInPicture>> pip = PictureInPicture::Open(dir.File("host.mkv"), 320, 180, options);
  ASSERT_OK(pip);
  VideoFrame frame = Grey(320, 180);
  ASSERT_OK((*pip)->DrawOver(MediaTime::Millis(550), frame));
  EXPECT_EQ(PixelAt(frame, (*pip)->area().x + 5, (*pip)->area().y + 5), tm::FrameColor(3));
}

TEST(PictureInPictureTest, AStillPictureIsShownAsIs) {
  ScratchDir dir;
  ASSERT_OK(tm::WriteSolidJpeg(dir.File("cover.jpg"), 64, 64, Rgba{200, 30, 30, 255}));
  absl::StatusOr<std::unique_ptr<PictureInPicture>> pip =
      PictureInPicture::Open(dir.File("cover.jpg"), 320, 180, PictureInPictureOptions{});
  ASSERT_OK(pip);
  EXPECT_FALSE((*pip)->moving());
  VideoFrame frame = Grey(320, 180);
  ASSERT_OK((*pip)->DrawOver(MediaTime::Seconds(3), frame));
  const Rgba p = PixelAt(frame, (*pip)->area().x + 20, (*pip)->area().y + 20);
  EXPECT_NEAR(p.r, 200, 8);
  EXPECT_NEAR(p.g, 30, 8);
}

TEST(PictureInPictureTest, ASourceWithoutVideoIsNamed) {
  ScratchDir dir;
  ASSERT_OK(tm::WriteToneWav(dir.File("voice.wav")));
  absl::StatusOr<std::unique_ptr<PictureInPicture>> pip =
      PictureInPicture::Open(dir.File("voice.wav"), 320, 180, PictureInPictureOptions{});
  ASSERT_FALSE(pip.ok());
  EXPECT_EQ(pip.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(pip.status().message()), HasSubstr("voice.wav"));
}

}  // namespace
}  // namespace lingcast::compose
