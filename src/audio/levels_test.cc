#include "audio/levels.h"

#include <cmath>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(LevelsTest, FullScaleSineIsMinus3DbRmsAnd0DbPeak) {
  std::vector<float> sine(16000);
  for (size_t i = 0; i < sine.size(); ++i) {
    sine[i] = static_cast<float>(std::sin(2 * std::numbers::pi * 1000.0 * static_cast<double>(i) / 16000.0));
  }
  const AudioLevels levels = MeasureLevels(sine);
  EXPECT_NEAR(levels.rms_dbfs, -3.01, 0.02);
  EXPECT_NEAR(levels.peak_dbfs, 0.0, 0.01);
}

TEST(LevelsTest, HalfAmplitudeIsSixDbLower) {
  std::vector<float> square(1000);
  for (size_t i = 0; i < square.size(); ++i) square[i] = (i % 2) ? 0.5f : -0.5f;
  EXPECT_NEAR(RmsDbfs(square), -6.02, 0.01);
  EXPECT_NEAR(PeakDbfs(square), -6.02, 0.01);
}

TEST(LevelsTest, SilenceAndEmptyReadTheFloorNotInfinity) {
  std::vector<float> zeros(480, 0.0f);
  EXPECT_EQ(RmsDbfs(zeros), kSilenceDbfs);
  EXPECT_EQ(PeakDbfs(zeros), kSilenceDbfs);
  EXPECT_EQ(RmsDbfs({}), kSilenceDbfs);
  EXPECT_EQ(PeakDbfs({}), kSilenceDbfs);
  std::vector<float> tiny(100, 1e-9f);
  EXPECT_EQ(RmsDbfs(tiny), kSilenceDbfs);  // below the floor is clamped to it
}

}  // namespace
}  // namespace lingcast
