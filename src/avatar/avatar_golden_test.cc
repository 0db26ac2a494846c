// Golden images of the built-in avatar: each mouth shape A-H and X and each
// expression at a small size, compared with src/avatar/testdata/avatar_<letter>.png
// and avatar_<expression>.png (tolerance in golden_image.h;
// LINGCAST_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "avatar/avatar_renderer.h"
#include "avatar/golden_image.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

constexpr int kWidth = 160, kHeight = 208;

// The avatar at rest with the given mouth, on an opaque backdrop so the PNG
// looks as it would in a video.
VideoFrame RenderState(const AvatarState& state) {
  VideoFrame frame;
  frame.Allocate(kWidth, kHeight);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      uint8_t* p = frame.Row(y) + x * 4;
      p[0] = 58, p[1] = 70, p[2] = 96, p[3] = 255;
    }
  }
  AvatarRenderer renderer;
  renderer.Render(state, frame, Rect{0, 0, kWidth, kHeight});
  return frame;
}

VideoFrame RenderMouth(Viseme shape) {
  AvatarState state;
  state.mouth = MouthParamsOf(shape);
  return RenderState(state);
}

class AvatarGoldenTest : public testing::TestWithParam<Viseme> {};

TEST_P(AvatarGoldenTest, MatchesGolden) {
  const std::string name = std::string("avatar_") + VisemeLetter(GetParam()) + ".png";
  const absl::Status status = golden::CompareWithGolden(RenderMouth(GetParam()),
                                                        LINGCAST_SOURCE_DIR "/src/avatar/testdata/" + name, {},
                                                        LINGCAST_BINARY_DIR "/golden-diff");
  EXPECT_OK(status);
}

INSTANTIATE_TEST_SUITE_P(EveryMouthShape, AvatarGoldenTest,
                         testing::Values(Viseme::kA, Viseme::kB, Viseme::kC, Viseme::kD, Viseme::kE, Viseme::kF,
                                         Viseme::kG, Viseme::kH, Viseme::kX),
                         [](const testing::TestParamInfo<Viseme>& info) {
                           return std::string(1, VisemeLetter(info.param));
                         });

class ExpressionGoldenTest : public testing::TestWithParam<Expression> {};

TEST_P(ExpressionGoldenTest, MatchesGolden) {
  AvatarState state;
  state.expression = ExpressionWeights::Of(GetParam());
  const std::string name = std::string("avatar_") + ExpressionName(GetParam()) + ".png";
  const absl::Status status = golden::CompareWithGolden(RenderState(state),
                                                        LINGCAST_SOURCE_DIR "/src/avatar/testdata/" + name, {},
                                                        LINGCAST_BINARY_DIR "/golden-diff");
  EXPECT_OK(status);
}

INSTANTIATE_TEST_SUITE_P(EveryExpression, ExpressionGoldenTest,
                         testing::Values(Expression::kNeutral, Expression::kSmile, Expression::kSurprised,
                                         Expression::kThinking),
                         [](const testing::TestParamInfo<Expression>& info) {
                           return std::string(ExpressionName(info.param));
                         });

TEST(AvatarGoldenTest, EveryExpressionHasItsOwnPicture) {
  std::vector<VideoFrame> frames;
  for (int e = 0; e < kExpressionCount; ++e) {
    AvatarState state;
    state.expression = ExpressionWeights::Of(static_cast<Expression>(e));
    frames.push_back(RenderState(state));
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    for (size_t j = i + 1; j < frames.size(); ++j) {
      EXPECT_NE(frames[i].rgba, frames[j].rgba) << ExpressionName(static_cast<Expression>(i)) << " and "
                                                << ExpressionName(static_cast<Expression>(j)) << " look the same";
    }
  }
}

TEST(AvatarGoldenTest, EveryShapeHasItsOwnPicture) {
  // A golden set where two shapes render alike would hide a broken mouth.
  std::vector<VideoFrame> frames;
  for (int v = 0; v < kVisemeCount; ++v) frames.push_back(RenderMouth(static_cast<Viseme>(v)));
  for (size_t i = 0; i < frames.size(); ++i) {
    for (size_t j = i + 1; j < frames.size(); ++j) {
      EXPECT_NE(frames[i].rgba, frames[j].rgba) << VisemeLetter(static_cast<Viseme>(i)) << " and "
                                                << VisemeLetter(static_cast<Viseme>(j)) << " look the same";
    }
  }
}

TEST(AvatarGoldenTest, GoldenFilesRoundTripThroughPng) {
  const VideoFrame frame = RenderMouth(Viseme::kC);
  const std::string path = testing::TempDir() + "/avatar_roundtrip.png";
  ASSERT_OK(golden::WritePng(frame, path));
  absl::StatusOr<VideoFrame> back = golden::ReadPng(path);
  ASSERT_OK(back);
  EXPECT_EQ(back->rgba, frame.rgba);
}

TEST(AvatarGoldenTest, AMissingGoldenSaysHowToCreateIt) {
  if (golden::UpdatingGoldens()) GTEST_SKIP() << "updating goldens writes instead of reading";
  const absl::Status status = golden::CompareWithGolden(RenderMouth(Viseme::kX), testing::TempDir() + "/no/such.png",
                                                        {}, testing::TempDir());
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("LINGCAST_UPDATE_GOLDEN=1"), std::string::npos) << status;
}

TEST(AvatarGoldenTest, ADifferentPictureFailsAndNamesTheDifference) {
  if (golden::UpdatingGoldens()) GTEST_SKIP() << "updating goldens writes instead of reading";
  const std::string dir = testing::TempDir() + "/golden-mismatch";
  const std::string path = dir + "/mouth.png";
  ASSERT_OK(golden::WritePng(RenderMouth(Viseme::kX), path));
  EXPECT_OK(golden::CompareWithGolden(RenderMouth(Viseme::kX), path, {}, dir + "/diff"));
  const absl::Status status = golden::CompareWithGolden(RenderMouth(Viseme::kD), path, {}, dir + "/diff");
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("pixels differ"), std::string::npos) << status;
  EXPECT_OK(golden::ReadPng(dir + "/diff/mouth.png")) << "the differing frame is written to look at";
}

// Tiles of one frame drawn at once by several threads sharing one renderer give
// exactly the bytes of one whole render, whatever the thread count.
TEST(AvatarDeterminismTest, ConcurrentTilesMatchOneWholeRender) {
  const Rect area{7, 5, 300, 390};
  AvatarState state;
  state.mouth = MouthParamsOf(Viseme::kD);
  state.eye_open = 0.4f;
  state.head_roll = 0.03f;
  state.breath = 0.7f;
  VideoFrame whole;
  whole.Allocate(320, 400);
  AvatarRenderer().Render(state, whole, area);
  for (int threads : {1, 2, 3, 8}) {
    VideoFrame tiled;
    tiled.Allocate(320, 400);
    AvatarRenderer shared;
    constexpr int kBand = 23;  // uneven on purpose
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (int y = t * kBand; y < 400; y += threads * kBand) shared.Render(state, tiled, area, Rect{0, y, 320, kBand});
      });
    }
    for (std::thread& w : workers) w.join();
    EXPECT_EQ(tiled.rgba, whole.rgba) << threads << " threads";
  }
}

}  // namespace
}  // namespace lingcast
