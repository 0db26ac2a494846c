#include "compose/media_background.h"

#include <gtest/gtest.h>

#include <fstream>

#include "avatar/golden_image.h"
#include "compose/background.h"
#include "compose/test_media.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast::compose {
namespace {

using testing_media::FrameColor;
using testing_util::ScratchDir;

Rgba PixelAt(const VideoFrame& frame, int x, int y) {
  const uint8_t* p = frame.Row(y) + static_cast<size_t>(x) * 4;
  return Rgba{p[0], p[1], p[2], p[3]};
}

void ExpectNear(Rgba actual, Rgba expected, int tolerance, const std::string& where) {
  EXPECT_LE(std::abs(actual.r - expected.r), tolerance) << where;
  EXPECT_LE(std::abs(actual.g - expected.g), tolerance) << where;
  EXPECT_LE(std::abs(actual.b - expected.b), tolerance) << where;
  EXPECT_EQ(actual.a, 255) << where;
}

// A 40x20 RGBA picture: left half red, right half blue, a 2-pixel green frame,
// and a transparent square at the centre.
VideoFrame TestPicture() {
  VideoFrame picture;
  picture.Allocate(40, 20);
  for (int y = 0; y < 20; ++y) {
    for (int x = 0; x < 40; ++x) {
      uint8_t* p = picture.Row(y) + x * 4;
      const bool border = x < 2 || y < 2 || x >= 38 || y >= 18;
      const bool hole = x >= 18 && x < 22 && y >= 8 && y < 12;
      const Rgba c = border ? Rgba{0, 255, 0, 255} : x < 20 ? Rgba{255, 0, 0, 255} : Rgba{0, 0, 255, 255};
      p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = hole ? 0 : 255;
      if (hole) p[0] = p[1] = p[2] = 0;
    }
  }
  return picture;
}

TEST(BackgroundArgumentTest, StudioColourAndErrors) {
  auto studio = ParseBackgroundArgument("studio", BackgroundFit::kCover);
  ASSERT_OK(studio);
  EXPECT_EQ(studio->kind, BackgroundKind::kStudio);
  auto color = ParseBackgroundArgument("#1a2B3c", BackgroundFit::kCover);
  ASSERT_OK(color);
  EXPECT_EQ(color->kind, BackgroundKind::kColor);
  EXPECT_EQ(color->color, (Rgba{0x1a, 0x2b, 0x3c, 255}));
  for (const char* bad : {"#12345", "#12345G", "#1234567"}) {
    auto parsed = ParseBackgroundArgument(bad, BackgroundFit::kCover);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos) << parsed.status();
  }
  EXPECT_EQ(ParseBackgroundFit("contain").value(), BackgroundFit::kContain);
  auto fit = ParseBackgroundFit("zoom");
  EXPECT_EQ(fit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(fit.status().message().find("zoom"), std::string::npos);
}

TEST(BackgroundArgumentTest, FilesAreProbedIntoImageOrVideo) {
  ScratchDir dir;
  ASSERT_OK(golden::WritePng(TestPicture(), dir.File("still.png")));
  ASSERT_OK(testing_media::WriteSolidVideo(dir.File("loop.mkv"), 32, 18, 6, 10, FrameColor));
  auto image = ParseBackgroundArgument(dir.File("still.png"), BackgroundFit::kContain);
  ASSERT_OK(image);
  EXPECT_EQ(image->kind, BackgroundKind::kImage);
  EXPECT_EQ(image->fit, BackgroundFit::kContain);
  auto video = ParseBackgroundArgument(dir.File("loop.mkv"), BackgroundFit::kCover);
  ASSERT_OK(video);
  EXPECT_EQ(video->kind, BackgroundKind::kVideo);
}

TEST(ImageBackgroundTest, FitModesPlaceThePicture) {
  ScratchDir dir;
  const std::string path = dir.File("picture.png");
  ASSERT_OK(golden::WritePng(TestPicture(), path));
  // The frame is 2:1 like the picture's 40x20 only for stretch's sake: use a 4:3 frame.
  const int w = 160, h = 120;
  auto cover = LoadImageBackground(path, w, h, BackgroundFit::kCover);
  auto contain = LoadImageBackground(path, w, h, BackgroundFit::kContain);
  auto stretch = LoadImageBackground(path, w, h, BackgroundFit::kStretch);
  ASSERT_OK(cover);
  ASSERT_OK(contain);
  ASSERT_OK(stretch);
  for (const VideoFrame* f : {&*cover, &*contain, &*stretch}) {
    ASSERT_EQ(f->width, w);
    ASSERT_EQ(f->height, h);
  }
  // cover: scaled x6 to 240x120, 40 px cropped each side: the green frame is
  // gone left and right but shows at the top; red left of centre, blue right.
  ExpectNear(PixelAt(*cover, 2, 60), {255, 0, 0, 255}, 8, "cover, left edge is red, not the green border");
  ExpectNear(PixelAt(*cover, 157, 60), {0, 0, 255, 255}, 8, "cover, right edge is blue");
  ExpectNear(PixelAt(*cover, 40, 3), {0, 255, 0, 255}, 8, "cover, top border kept");
  // contain: scaled x4 to 160x80, bars of 20 rows above and below.
  ExpectNear(PixelAt(*contain, 80, 5), {0, 0, 0, 255}, 0, "contain, black bar above");
  ExpectNear(PixelAt(*contain, 80, 114), {0, 0, 0, 255}, 0, "contain, black bar below");
  ExpectNear(PixelAt(*contain, 2, 60), {0, 255, 0, 255}, 8, "contain, the whole picture: left border shows");
  // stretch: 4x horizontally, 6x vertically: every edge shows the border.
  ExpectNear(PixelAt(*stretch, 2, 60), {0, 255, 0, 255}, 8, "stretch, left border");
  ExpectNear(PixelAt(*stretch, 80, 3), {0, 255, 0, 255}, 8, "stretch, top border");
  // Transparent pixels are composed over black: the background stays opaque.
  ExpectNear(PixelAt(*stretch, 80, 60), {0, 0, 0, 255}, 24, "stretch, transparent hole shows black");
}

TEST(ImageBackgroundTest, JpegDecodesToItsColour) {
  ScratchDir dir;
  const std::string path = dir.File("solid.jpg");
  const Rgba color{200, 120, 40, 255};
  ASSERT_OK(testing_media::WriteSolidJpeg(path, 64, 48, color));
  auto frame = LoadImageBackground(path, 320, 180, BackgroundFit::kCover);
  ASSERT_OK(frame);
  ExpectNear(PixelAt(*frame, 160, 90), color, 4, "jpeg centre");
  ExpectNear(PixelAt(*frame, 0, 0), color, 4, "jpeg corner");
}

// Bad files: one line naming the file, and the kind of error a user can act on.
TEST(ImageBackgroundTest, BadFilesAreClearErrors) {
  ScratchDir dir;
  const std::string missing = dir.File("missing.png");
  auto absent = LoadImageBackground(missing, 320, 180, BackgroundFit::kCover);
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(absent.status().message().find(missing), std::string::npos) << absent.status();

  const std::string corrupt = dir.File("corrupt.png");
  {
    std::ofstream out(corrupt, std::ios::binary);
    out << "\x89PNG\r\n\x1a\n this is not really a PNG, just its signature and noise";
  }
  const std::string text = dir.File("notes.txt");
  { std::ofstream(text) << "hello\n"; }
  const std::string audio = dir.File("tone.wav");
  ASSERT_OK(testing_media::WriteToneWav(audio));
  for (const std::string& path : {corrupt, text, audio, dir.path()}) {
    auto loaded = LoadImageBackground(path, 320, 180, BackgroundFit::kCover);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << path << ": " << loaded.status();
    EXPECT_NE(loaded.status().message().find(path), std::string::npos) << loaded.status();
    EXPECT_EQ(loaded.status().message().find('\n'), std::string::npos) << "one line";
    auto video = VideoBackground::Open(path, 320, 180, BackgroundFit::kCover);
    EXPECT_EQ(video.status().code(), absl::StatusCode::kInvalidArgument) << path << ": " << video.status();
  }
  auto no_video = LoadImageBackground(audio, 320, 180, BackgroundFit::kCover);
  EXPECT_NE(no_video.status().message().find("no video stream"), std::string::npos) << no_video.status();
}

class VideoBackgroundTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("loop.mkv");
    // 10 frames at 10 fps: one loop is exactly 1 s, frame i shown for [i/10, (i+1)/10).
    ASSERT_OK(testing_media::WriteSolidVideo(path_, 64, 36, kFrames, 10, FrameColor));
  }
  static constexpr int kFrames = 10;
  ScratchDir dir_;
  std::string path_;
};

TEST_F(VideoBackgroundTest, ProbeFindsExactFrameTimesAndDuration) {
  auto probe = ProbeBackgroundFile(path_);
  ASSERT_OK(probe);
  EXPECT_EQ(probe->frame_count, kFrames);
  EXPECT_EQ(probe->duration, MediaTime::Seconds(1));
  ASSERT_EQ(probe->frame_times.size(), static_cast<size_t>(kFrames));
  EXPECT_EQ(probe->frame_times[3], MediaTime::Millis(300));
}

TEST_F(VideoBackgroundTest, FrameChosenByPtsModuloDurationAndLoopsSeamlessly) {
  auto video = VideoBackground::Open(path_, 160, 90, BackgroundFit::kStretch, 3);
  ASSERT_OK(video);
  // 30 fps output over three loops: each output frame shows video frame
  // floor(t * 10) mod 10, the last frame followed directly by the first.
  for (int f = 0; f < 90; ++f) {
    const MediaTime t = MediaTime::FromFrameIndex(f, 30);
    const int expected = static_cast<int>((t.micros() / 100'000) % kFrames);
    EXPECT_EQ((*video)->FrameIndexAt(t), expected) << "t " << t.ToString();
    auto frame = (*video)->FrameAt(t);
    ASSERT_OK(frame);
    ExpectNear(PixelAt(**frame, 80, 45), FrameColor(expected), 1, "t " + t.ToString());
  }
  EXPECT_EQ((*video)->restarts(), 0) << "playing forwards never restarts the decoder";
}

TEST_F(VideoBackgroundTest, SameTimeGivesTheSameFrameWhateverCameBefore) {
  auto video = VideoBackground::Open(path_, 160, 90, BackgroundFit::kCover, 2);
  ASSERT_OK(video);
  const MediaTime times[] = {MediaTime::Millis(730), MediaTime::Millis(150), MediaTime::Millis(5730),
                             MediaTime::Millis(730), MediaTime::Millis(99'999), MediaTime::Millis(20)};
  for (const MediaTime t : times) {
    auto frame = (*video)->FrameAt(t);
    ASSERT_OK(frame);
    const int expected = static_cast<int>((t.micros() / 100'000) % kFrames);
    ExpectNear(PixelAt(**frame, 10, 10), FrameColor(expected), 1, "t " + t.ToString());
  }
  EXPECT_GE((*video)->restarts(), 2) << "going back and jumping far ahead restart the decoder";
}

TEST_F(VideoBackgroundTest, TheDecoderRunsAheadByAtMostTheQueue) {
  auto video = VideoBackground::Open(path_, 160, 90, BackgroundFit::kCover, 2);
  ASSERT_OK(video);
  ASSERT_OK((*video)->FrameAt(MediaTime::Zero()));
  // Frame 0 is taken; the queue (2) may hold frames 1 and 2, and the decoder
  // may have one more decoded and waiting for room: never the whole file.
  EXPECT_LE((*video)->frames_decoded(), 4);
}

TEST_F(VideoBackgroundTest, ASingleImageIsNotAVideo) {
  const std::string still = dir_.File("still.png");
  ASSERT_OK(golden::WritePng(TestPicture(), still));
  auto video = VideoBackground::Open(still, 160, 90, BackgroundFit::kCover);
  EXPECT_EQ(video.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(video.status().message().find("single picture"), std::string::npos) << video.status();
}

}  // namespace
}  // namespace lingcast::compose
