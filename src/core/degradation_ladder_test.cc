#include "core/degradation_ladder.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::lingcast::testing_util::StatusIs;
using ::testing::HasSubstr;

MediaTime S(double seconds) { return MediaTime::Seconds(seconds); }
PressureReading Lag(double seconds) { return PressureReading{.lag = S(seconds)}; }

DegradationLadder MakeLadder(PressureLimits limits = {}) {
  absl::StatusOr<DegradationLadder> ladder = DegradationLadder::Create(limits);
  EXPECT_TRUE(ladder.ok()) << ladder.status();
  return *std::move(ladder);
}

TEST(DegradationLadder, StaysAtTheTopWithoutPressure) {
  DegradationLadder ladder = MakeLadder();
  for (int t = 0; t < 120; ++t) EXPECT_FALSE(ladder.Observe(S(t), Lag(0.5)).has_value());
  EXPECT_EQ(ladder.level(), 0);
}

TEST(DegradationLadder, StepsDownOneRungPerIntervalWhilePressureLasts) {
  DegradationLadder ladder = MakeLadder();  // lag 3 s high, 5 s between rungs, deepest rung 3
  std::optional<DegradationChange> first = ladder.Observe(S(10), Lag(3.5));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->from, 0);
  EXPECT_EQ(first->to, 1);
  EXPECT_EQ(first->reason, "lag 3.50 s above 3.00 s");
  EXPECT_TRUE(ladder.at_least(DegradationRung::kDropProvisionalCaptions));
  EXPECT_FALSE(ladder.at_least(DegradationRung::kLowerVideo));

  EXPECT_FALSE(ladder.Observe(S(14.9), Lag(4)).has_value());  // the first rung has not had its time
  ASSERT_TRUE(ladder.Observe(S(15), Lag(4)).has_value());
  EXPECT_EQ(ladder.level(), 2);
  ASSERT_TRUE(ladder.Observe(S(20), Lag(5)).has_value());
  EXPECT_EQ(ladder.level(), 3);
  for (int t = 25; t < 100; t += 5) EXPECT_FALSE(ladder.Observe(S(t), Lag(6)).has_value());
  EXPECT_EQ(ladder.level(), 3);  // a session's ladder never refuses sessions
  EXPECT_EQ(ladder.taken()[0], 1);
  EXPECT_EQ(ladder.taken()[2], 1);
  EXPECT_EQ(ladder.taken()[3], 0);
}

TEST(DegradationLadder, TheServersLadderGoesOnToRefusingSessions) {
  DegradationLadder ladder = MakeLadder({.rss_high_mb = 1000, .rss_low_mb = 800, .max_level = 4});
  for (int t = 0; t <= 15; t += 5) ladder.Observe(S(t), PressureReading{.rss_mb = 1200});
  EXPECT_EQ(ladder.level(), 4);
  EXPECT_TRUE(ladder.at_least(DegradationRung::kRefuseNewSessions));
  EXPECT_EQ(ladder.recent_changes().back().reason, "memory 1200 MB above 1000 MB");
  EXPECT_EQ(DegradationRungName(ladder.level()), "refuse_new_sessions");
}

TEST(DegradationLadder, GivesRungsBackOneAtATimeAfterALongCalm) {
  DegradationLadder ladder = MakeLadder();
  ladder.Observe(S(0), Lag(4));
  ladder.Observe(S(5), Lag(4));
  ASSERT_EQ(ladder.level(), 2);
  // Between the marks (1 s < lag < 3 s): held where it is, however long.
  for (int t = 6; t < 100; ++t) EXPECT_FALSE(ladder.Observe(S(t), Lag(2)).has_value());
  // Low from 100 s: nothing for 30 s, then one rung, then another 30 s for the next.
  for (int t = 100; t < 130; ++t) EXPECT_FALSE(ladder.Observe(S(t), Lag(0.2)).has_value()) << t;
  std::optional<DegradationChange> back = ladder.Observe(S(130), Lag(0.2));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->from, 2);
  EXPECT_EQ(back->to, 1);
  EXPECT_EQ(back->reason, "every reading low for 30.0 s");
  for (int t = 131; t < 160; ++t) EXPECT_FALSE(ladder.Observe(S(t), Lag(0.2)).has_value()) << t;
  ASSERT_TRUE(ladder.Observe(S(160), Lag(0.2)).has_value());
  EXPECT_EQ(ladder.level(), 0);
  EXPECT_EQ(ladder.given_back()[0], 1);
  EXPECT_EQ(ladder.given_back()[1], 1);
}

TEST(DegradationLadder, ACalmInterruptedStartsAgain) {
  DegradationLadder ladder = MakeLadder();
  ladder.Observe(S(0), Lag(4));
  for (int t = 1; t < 25; ++t) ladder.Observe(S(t), Lag(0.5));
  ladder.Observe(S(25), Lag(1.5));  // above the low mark once
  for (int t = 26; t < 56; ++t) EXPECT_FALSE(ladder.Observe(S(t), Lag(0.5)).has_value()) << t;
  EXPECT_TRUE(ladder.Observe(S(56), Lag(0.5)).has_value());
  EXPECT_EQ(ladder.level(), 0);
}

TEST(DegradationLadder, PressureRightAfterARungIsGivenBackWaitsTheInterval) {
  DegradationLadder ladder = MakeLadder({.recover_after = S(10)});
  ladder.Observe(S(0), Lag(4));
  ladder.Observe(S(1), Lag(0));
  ASSERT_TRUE(ladder.Observe(S(11), Lag(0)).has_value());
  EXPECT_EQ(ladder.level(), 0);
  EXPECT_FALSE(ladder.Observe(S(12), Lag(4)).has_value());  // no flapping: 5 s from the last change
  EXPECT_TRUE(ladder.Observe(S(16), Lag(4)).has_value());
  EXPECT_EQ(ladder.level(), 1);
}

TEST(DegradationLadder, AnyWatchedReadingCanTakeARungAndAllMustBeLowToGiveItBack) {
  DegradationLadder ladder = MakeLadder(
      {.rss_high_mb = 2000, .rss_low_mb = 1500, .gpu_high_mb = 1800, .gpu_low_mb = 1200, .recover_after = S(10)});
  std::optional<DegradationChange> gpu = ladder.Observe(S(0), {.rss_mb = 100, .gpu_mb = 1900, .lag = S(0)});
  ASSERT_TRUE(gpu.has_value());
  EXPECT_EQ(gpu->reason, "GPU memory 1900 MB above 1800 MB");
  // Lag and memory low, GPU memory between its marks: held.
  for (int t = 1; t < 40; ++t) EXPECT_FALSE(ladder.Observe(S(t), {.rss_mb = 100, .gpu_mb = 1500, .lag = S(0)}));
  EXPECT_EQ(ladder.level(), 1);
  ladder.Observe(S(40), {.rss_mb = 100, .gpu_mb = 1000, .lag = S(0)});
  EXPECT_TRUE(ladder.Observe(S(50), {.rss_mb = 100, .gpu_mb = 1000, .lag = S(0)}).has_value());
  EXPECT_EQ(ladder.level(), 0);
}

TEST(DegradationLadder, UnwatchedReadingsAreIgnored) {
  // Memory has no mark (0): any figure is fine. A missing lag is not pressure either.
  DegradationLadder ladder = MakeLadder();
  EXPECT_FALSE(ladder.Observe(S(0), {.rss_mb = 1e9, .gpu_mb = 1e9}).has_value());
  EXPECT_FALSE(ladder.Observe(S(1), PressureReading{}).has_value());
  EXPECT_EQ(ladder.level(), 0);
}

TEST(DegradationLadder, KeepsOnlyTheLatestChanges) {
  DegradationLadder ladder = MakeLadder({.step_interval = S(1), .recover_after = S(1), .max_level = 1});
  for (int cycle = 0; cycle < 100; ++cycle) {
    ladder.Observe(S(cycle * 10), Lag(4));
    ladder.Observe(S(cycle * 10 + 1), Lag(0));
    ladder.Observe(S(cycle * 10 + 2), Lag(0));
  }
  EXPECT_EQ(ladder.taken()[0], 100);
  EXPECT_EQ(ladder.given_back()[0], 100);
  EXPECT_EQ(ladder.recent_changes().size(), DegradationLadder::kKeptChanges);
  EXPECT_EQ(ladder.recent_changes().back().at, S(992));
}

TEST(DegradationLadder, RefusesLimitsThatCannotWork) {
  EXPECT_THAT(DegradationLadder::Create({.rss_high_mb = 1000, .rss_low_mb = 1000}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("memory (MB): the low mark (1000) must be below the high mark (1000)")));
  EXPECT_THAT(DegradationLadder::Create({.gpu_high_mb = -1}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("GPU memory (MB): a mark cannot be negative")));
  EXPECT_THAT(DegradationLadder::Create({.lag_high = S(1), .lag_low = S(2)}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lag (s)")));
  EXPECT_THAT(DegradationLadder::Create({.step_interval = S(0)}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be positive")));
  EXPECT_THAT(DegradationLadder::Create({.max_level = 5}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the deepest rung must be 1 to 4, not 5")));
}

}  // namespace
}  // namespace lingcast
