#include "core/media_time.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(MediaTimeTest, ConvertsUnits) {
  EXPECT_EQ(MediaTime::Millis(1500).micros(), 1'500'000);
  EXPECT_EQ(MediaTime::Seconds(0.25).micros(), 250'000);
  EXPECT_EQ(MediaTime::FromSamples(22050, 22050), MediaTime::Seconds(1));
  EXPECT_EQ(MediaTime::Seconds(2).ToSamples(48000), 96000);
  EXPECT_EQ(MediaTime::FromFrameIndex(3, 30).micros(), 100'000);
  EXPECT_EQ(MediaTime::FromFrameIndex(30, 30000, 1001).micros(), 1'001'000);
}

TEST(MediaTimeTest, StaysExactOverDaysOfTimeline) {
  // 2^31 ms is ~24.8 days; integer microseconds keep every sample boundary exact.
  const MediaTime start = MediaTime::Millis(int64_t{1} << 31);
  const MediaTime later = start + MediaTime::FromSamples(1024, 48000);
  EXPECT_EQ((later - start).micros(), 21'333);
  EXPECT_LT(start, later);
}

TEST(MediaTimeTest, FormatsSeconds) {
  EXPECT_EQ(MediaTime::Millis(12345).ToString(), "12.345000s");
  EXPECT_EQ(MediaTime::Millis(-500).ToString(), "-0.500000s");
}

}  // namespace
}  // namespace lingcast
