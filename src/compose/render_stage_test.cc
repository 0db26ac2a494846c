#include "compose/render_stage.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <utility>

#include "avatar/cuda_support.h"
#include "core/status_matchers.h"
#include "graph/harness.h"

namespace lingcast {
namespace {

class RenderStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<RenderStage> MakeStage(bool burn_subtitles) {
    compose::CompositorOptions options;
    options.width = 320;
    options.height = 180;
    auto compositor = compose::Compositor::Create(options);
    EXPECT_OK(compositor);
    return std::make_unique<RenderStage>(std::move(*compositor), std::make_unique<AvatarRenderer>(),
                                         AnimatorOptions{}, /*fps=*/10, burn_subtitles,
                                         /*frames_in_flight=*/64);  // the test holds every frame
  }

  // A stretch of speech: one open vowel held (the mouth wide open), or silence.
  static Packet<SpeechTiming> Speech(MediaTime pts, MediaTime duration, bool mouth_open, bool with_cue) {
    SpeechTiming timing;
    if (mouth_open) timing.phonemes.phonemes.push_back(PhonemeEvent{"a", MediaTime::Zero(), duration});
    if (with_cue) timing.cue = SubtitleCue{pts, pts + duration, {"大家好", Language::kZh}, {"Hello", Language::kEn}};
    return Packet<SpeechTiming>{std::move(timing), pts, duration, pts};
  }
};

TEST_F(RenderStageTest, RendersEveryFrameOfTheSpeechTimelineInOrder) {
  StageHarness<RenderStage> h(MakeStage(true));
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  ASSERT_OK(h.Open());
  feed.Push(Speech(MediaTime::Zero(), MediaTime::Millis(1000), true, true));
  feed.Push(Speech(MediaTime::Millis(1000), MediaTime::Millis(450), false, false));
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const auto frames = sink.Packets();
  // 1.45 s at 10 fps: frames 0..14 (the last one starts at 1.4 s, inside the audio).
  ASSERT_EQ(frames.size(), 15u);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].pts, MediaTime::Millis(100 * static_cast<int64_t>(i)));
    EXPECT_EQ(frames[i].duration, MediaTime::Millis(100));
    EXPECT_EQ(frames[i].value->width, 320);
  }
  EXPECT_EQ(h.stage().frames_rendered(), 15);
}

TEST_F(RenderStageTest, TheMouthFollowsThePhonemesAndSubtitlesFollowTheCue) {
  StageHarness<RenderStage> h(MakeStage(true));
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  ASSERT_OK(h.Open());
  feed.Push(Speech(MediaTime::Zero(), MediaTime::Millis(500), true, true));     // wide open, subtitled
  feed.Push(Speech(MediaTime::Millis(500), MediaTime::Millis(500), false, false));  // rest, no subtitle
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const auto frames = sink.Packets();
  ASSERT_EQ(frames.size(), 10u);
  const VideoFrame& open = *frames[3].value;  // 0.3 s: inside the open vowel, past the cross-fade
  const VideoFrame& rest = *frames[8].value;  // 0.8 s: at rest
  const Rect mouth = AvatarRenderer::MouthRegion(compose::AvatarArea(320, 180, compose::AvatarPlacement{}));
  int mouth_differences = 0;
  for (int y = mouth.y; y < mouth.bottom(); ++y) {
    for (int x = mouth.x; x < mouth.right(); ++x) {
      mouth_differences += std::memcmp(open.Row(y) + 4 * x, rest.Row(y) + 4 * x, 4) != 0;
    }
  }
  EXPECT_GT(mouth_differences, mouth.width * mouth.height / 10) << "the mouth did not move";
  // The bottom band carries the subtitle only while the cue is on.
  int subtitle_differences = 0;
  for (int y = 150; y < 180; ++y) {
    for (int x = 0; x < 320; ++x) subtitle_differences += std::memcmp(open.Row(y) + 4 * x, rest.Row(y) + 4 * x, 4) != 0;
  }
  EXPECT_GT(subtitle_differences, 200);
}

// --renderer cuda: the stage runs two frames in flight on the GPU and sends
// the frames the CPU stage sends, in order, each with its yuv420p picture.
TEST_F(RenderStageTest, TheCudaRendererSendsTheFramesOfTheCpuRenderer) {
  if (const absl::Status usable = CudaDeviceUsable(); !usable.ok()) GTEST_SKIP() << usable.message();
  auto run = [&](bool cuda) {
    compose::CompositorOptions options;
    options.width = 320;
    options.height = 180;
    auto compositor = compose::Compositor::Create(options);
    EXPECT_OK(compositor);
    std::unique_ptr<compose::GpuCompositor> gpu;
    if (cuda) {
      auto created = compose::CreateGpuCompositor(**compositor, compose::GpuCompositorOptions{.download_rgba = true});
      EXPECT_OK(created);
      if (created.ok()) gpu = std::move(*created);
    }
    StageHarness<RenderStage> h(std::make_unique<RenderStage>(std::move(*compositor), std::make_unique<AvatarRenderer>(),
                                                              AnimatorOptions{}, /*fps=*/10, true,
                                                              /*frames_in_flight=*/64, std::move(gpu)));
    auto feed = h.Feed(h.stage().in);
    auto sink = h.Collect(h.stage().out);
    EXPECT_OK(h.Open());
    feed.Push(Speech(MediaTime::Zero(), MediaTime::Millis(1000), true, true));
    feed.Push(Speech(MediaTime::Millis(1000), MediaTime::Millis(450), false, false));
    feed.End();
    EXPECT_OK(h.RunUntilFinished());
    EXPECT_EQ(h.stage().frames_rendered(), 15);
    return sink.Packets();
  };
  const auto cpu = run(false);
  const auto cuda = run(true);
  ASSERT_EQ(cpu.size(), 15u);
  ASSERT_EQ(cuda.size(), cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    EXPECT_EQ(cuda[i].pts, cpu[i].pts);
    EXPECT_EQ(cuda[i].duration, cpu[i].duration);
    EXPECT_EQ(cuda[i].value->rgba, cpu[i].value->rgba) << "frame " << i;
    EXPECT_NE(cuda[i].value->yuv420, nullptr) << "frame " << i;
    EXPECT_EQ(cpu[i].value->yuv420, nullptr) << "frame " << i;
  }
}

TEST_F(RenderStageTest, AnEmotionChangesTheFaceFromItsLineOn) {
  // The same two seconds of rest, said neutral and then with a smile set on the
  // second line: the frames differ only after the smile's line begins.
  auto render = [&](std::optional<Expression> second_line) {
    StageHarness<RenderStage> h(MakeStage(false));
    auto feed = h.Feed(h.stage().in);
    auto sink = h.Collect(h.stage().out);
    EXPECT_OK(h.Open());
    Packet<SpeechTiming> first = Speech(MediaTime::Zero(), MediaTime::Millis(1000), false, false);
    first.value.expression = Expression::kNeutral;
    Packet<SpeechTiming> second = Speech(MediaTime::Millis(1000), MediaTime::Millis(1000), false, false);
    second.value.expression = second_line;
    feed.Push(std::move(first));
    feed.Push(std::move(second));
    feed.End();
    EXPECT_OK(h.RunUntilFinished());
    return sink.Packets();
  };
  const auto neutral = render(Expression::kNeutral);
  const auto smiling = render(Expression::kSmile);
  ASSERT_EQ(neutral.size(), 20u);
  ASSERT_EQ(smiling.size(), 20u);
  auto same = [](const VideoFrame& a, const VideoFrame& b) {
    for (int y = 0; y < a.height; ++y) {
      if (std::memcmp(a.Row(y), b.Row(y), static_cast<size_t>(4 * a.width)) != 0) return false;
    }
    return true;
  };
  EXPECT_TRUE(same(*neutral[5].value, *smiling[5].value)) << "before the smile's line";
  EXPECT_FALSE(same(*neutral[19].value, *smiling[19].value)) << "the smile should show by the end of its line";
}

TEST_F(RenderStageTest, ATitleShowsFromItsStretchUntilTurnedOff) {
  // Three seconds of rest: a title set at 1 s and turned off at 2 s changes
  // only the frames from 1 s on, on the left, and is gone by 2.5 s.
  auto render = [&](bool with_title) {
    StageHarness<RenderStage> h(MakeStage(false));
    auto feed = h.Feed(h.stage().in);
    auto sink = h.Collect(h.stage().out);
    EXPECT_OK(h.Open());
    Packet<SpeechTiming> first = Speech(MediaTime::Zero(), MediaTime::Millis(1000), false, false);
    Packet<SpeechTiming> second = Speech(MediaTime::Millis(1000), MediaTime::Millis(1000), false, false);
    Packet<SpeechTiming> third = Speech(MediaTime::Millis(2000), MediaTime::Millis(1000), false, false);
    if (with_title) {
      second.value.title = "Li Na|Host";
      third.value.title = "";
    }
    feed.Push(std::move(first));
    feed.Push(std::move(second));
    feed.Push(std::move(third));
    feed.End();
    EXPECT_OK(h.RunUntilFinished());
    return sink.Packets();
  };
  const auto plain = render(false);
  const auto titled = render(true);
  ASSERT_EQ(plain.size(), 30u);
  ASSERT_EQ(titled.size(), 30u);
  // Pixels that differ: on the left (where the bar rests, left of 60 % of the
  // width; at 320x180 it sits over the middle rows, above the subtitle zone) and elsewhere.
  auto differences = [](const VideoFrame& a, const VideoFrame& b) {
    std::pair<int, int> left_and_elsewhere{0, 0};
    for (int y = 0; y < a.height; ++y) {
      for (int x = 0; x < a.width; ++x) {
        if (std::memcmp(a.Row(y) + 4 * x, b.Row(y) + 4 * x, 4) == 0) continue;
        (x < a.width * 6 / 10 ? left_and_elsewhere.first : left_and_elsewhere.second)++;
      }
    }
    return left_and_elsewhere;
  };
  EXPECT_EQ(differences(*plain[9].value, *titled[9].value), std::make_pair(0, 0)) << "before the title";
  const auto shown = differences(*plain[18].value, *titled[18].value);
  EXPECT_GT(shown.first, 500) << "the bar is drawn by 1.8 s";
  EXPECT_EQ(shown.second, 0) << "only where the bar is";
  EXPECT_EQ(differences(*plain[26].value, *titled[26].value), std::make_pair(0, 0)) << "gone after @title off";
}

}  // namespace
}  // namespace lingcast
