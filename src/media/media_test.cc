#include <gtest/gtest.h>

#include <thread>

#include "media/audio_buffer.h"
#include "media/language.h"
#include "media/video_frame.h"
#include "media/viseme.h"

namespace lingcast {
namespace {

TEST(LanguageTest, ParsesCodes) {
  EXPECT_EQ(*ParseLanguage("zh"), Language::kZh);
  EXPECT_EQ(*ParseLanguage("zh-CN"), Language::kZh);
  EXPECT_EQ(*ParseLanguage("EN"), Language::kEn);
  EXPECT_EQ(ParseLanguage("fr").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LanguageCode(Language::kZh), "zh");
}

TEST(AudioBufferTest, SilenceHasDuration) {
  const AudioBuffer b = AudioBuffer::Silence(MediaTime::Millis(600), 22050);
  EXPECT_EQ(b.frames(), 13230);
  EXPECT_EQ(b.duration(), MediaTime::Millis(600));
}

TEST(VisemeTest, LettersRoundTrip) {
  for (int i = 0; i < kVisemeCount; ++i) {
    const Viseme v = static_cast<Viseme>(i);
    EXPECT_EQ(VisemeFromLetter(VisemeLetter(v)), v);
  }
  EXPECT_FALSE(VisemeFromLetter('Z').has_value());
  EXPECT_GT(PoseOf(Viseme::kD).open, PoseOf(Viseme::kA).open);
  EXPECT_GT(PoseOf(Viseme::kF).round, PoseOf(Viseme::kC).round);
}

TEST(VisemeTest, TrackLookupTreatsGapsAsRest) {
  VisemeTrack track;
  track.cues = {{MediaTime::Millis(0), MediaTime::Millis(100), Viseme::kA},
                {MediaTime::Millis(200), MediaTime::Millis(300), Viseme::kD}};
  EXPECT_EQ(track.At(MediaTime::Millis(50)), Viseme::kA);
  EXPECT_EQ(track.At(MediaTime::Millis(150)), Viseme::kX);
  EXPECT_EQ(track.At(MediaTime::Millis(200)), Viseme::kD);
  EXPECT_EQ(track.At(MediaTime::Millis(300)), Viseme::kX);
  EXPECT_EQ(track.At(MediaTime::Millis(-1)), Viseme::kX);
}

TEST(VideoFramePoolTest, RecyclesAndBoundsFrames) {
  auto pool = VideoFramePool::Create(8, 4, 2);
  auto a = pool->Acquire();
  auto b = pool->Acquire();
  EXPECT_EQ(a->width, 8);
  EXPECT_EQ(a->stride, 32);
  const VideoFrame* first = a.get();
  a.reset();
  auto c = pool->Acquire();  // reuses the released frame instead of allocating
  EXPECT_EQ(c.get(), first);
  EXPECT_EQ(pool->allocated(), 2);
}

TEST(VideoFramePoolTest, AcquireWaitsForARelease) {
  auto pool = VideoFramePool::Create(2, 2, 1);
  auto held = pool->Acquire();
  std::thread releaser([&] { held.reset(); });
  auto next = pool->Acquire();  // blocks until the other thread releases
  releaser.join();
  EXPECT_NE(next, nullptr);
}

TEST(VideoFramePoolTest, FramesOutliveThePool) {
  std::shared_ptr<VideoFrame> frame;
  {
    auto pool = VideoFramePool::Create(2, 2, 1);
    frame = pool->Acquire();
  }
  EXPECT_EQ(frame->width, 2);  // freed normally when released after the pool is gone
}

}  // namespace
}  // namespace lingcast
