#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "media/audio_buffer.h"
#include "media/language.h"
#include "media/rect.h"
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

// A frame drawn on the GPU carries its yuv420p picture (and the pinned
// memory under it); back in the pool it carries none, so a frame drawn on the
// CPU next is not encoded from a stale picture.
TEST(VideoFramePoolTest, ARecycledFrameCarriesNoPicture) {
  auto pool = VideoFramePool::Create(8, 4, 1);
  auto owner = std::make_shared<int>(0);
  auto frame = pool->Acquire();
  auto picture = std::make_shared<Yuv420Picture>();
  picture->owner = owner;
  frame->yuv420 = picture;
  picture.reset();
  frame.reset();
  EXPECT_EQ(owner.use_count(), 1) << "the pool still holds the picture's memory";
  EXPECT_EQ(pool->Acquire()->yuv420, nullptr);
  VideoFrame allocated;
  allocated.yuv420 = std::make_shared<Yuv420Picture>();
  allocated.Allocate(4, 2);
  EXPECT_EQ(allocated.yuv420, nullptr);
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

TEST(RectTest, UnionHoldsBothAndAnEmptyOneAddsNothing) {
  const Rect a{10, 20, 30, 40}, b{35, 5, 10, 10};
  EXPECT_EQ(a.Union(b), (Rect{10, 5, 35, 55}));
  EXPECT_EQ(b.Union(a), a.Union(b));
  EXPECT_EQ(a.Union(Rect{}), a);
  EXPECT_EQ(Rect{}.Union(b), b);
  EXPECT_TRUE(Rect{}.Union(Rect{}).empty());
}

}  // namespace
}  // namespace lingcast
