#include "output/bitrate_controller.h"

#include <vector>

#include "core/clock.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::StatusIs;

const MediaTime kFrame = MediaTime::FromFrameIndex(1, 30);

// Feeds one sample per frame for `duration` on `clock`; returns the steps taken.
std::vector<BitrateStep> Feed(BitrateController& controller, SimulatedClock& clock, MediaTime duration,
                             MediaTime queued, int64_t* dropped = nullptr, int drops_per_frame = 0) {
  std::vector<BitrateStep> steps;
  const MediaTime end = clock.Now() + duration;
  int64_t no_drops = 0;
  int64_t& drops = dropped ? *dropped : no_drops;
  while (clock.Now() < end) {
    drops += drops_per_frame;
    if (auto step = controller.Update(clock.Now(), {queued, drops})) steps.push_back(*step);
    clock.Advance(kFrame);
  }
  return steps;
}

std::vector<int64_t> Targets(const std::vector<BitrateStep>& steps) {
  std::vector<int64_t> to;
  for (const BitrateStep& s : steps) to.push_back(s.to);
  return to;
}

TEST(BitrateControllerTest, SustainedCongestionStepsDownOncePerSecondToTheFloor) {
  BitrateController controller(2'000'000, {});
  SimulatedClock clock;
  const std::vector<BitrateStep> steps = Feed(controller, clock, MediaTime::Seconds(10), MediaTime::Millis(500));
  // x0.7 each second, clamped at the floor (a quarter of 2 Mbit/s), then no more.
  EXPECT_THAT(Targets(steps), ElementsAre(1'400'000, 980'000, 686'000, 500'000));
  ASSERT_EQ(steps.size(), 4u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_TRUE(steps[i].down());
    EXPECT_NEAR(steps[i].at.seconds(), static_cast<double>(i + 1), 0.2) << i;
  }
  EXPECT_EQ(controller.bitrate(), controller.floor());
  EXPECT_EQ(controller.steps_down(), 4);
  EXPECT_EQ(controller.steps_up(), 0);
}

TEST(BitrateControllerTest, ABlipShorterThanDownAfterChangesNothing) {
  BitrateController controller(2'000'000, {});
  SimulatedClock clock;
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Millis(900), MediaTime::Millis(500)).empty());
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Millis(200), MediaTime::Millis(200)).empty());  // between the marks
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Millis(900), MediaTime::Millis(500)).empty());
  EXPECT_EQ(controller.bitrate(), 2'000'000);
}

TEST(BitrateControllerTest, CongestionDropsCountEvenWithAShortQueue) {
  BitrateController controller(1'000'000, {});
  SimulatedClock clock;
  int64_t dropped = 0;
  const auto steps = Feed(controller, clock, MediaTime::Millis(1100), MediaTime::Millis(50), &dropped, 1);
  EXPECT_THAT(Targets(steps), ElementsAre(700'000));
}

TEST(BitrateControllerTest, ACleanPeriodStepsBackUpInStepsToTheCeiling) {
  AdaptiveBitrateOptions options;
  options.up_after = MediaTime::Seconds(5);
  BitrateController controller(2'000'000, options);
  SimulatedClock clock;
  Feed(controller, clock, MediaTime::Millis(3500), MediaTime::Millis(500));
  ASSERT_EQ(controller.bitrate(), 686'000);
  // Clean for 4.9 s: not yet.
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Millis(4900), MediaTime::Millis(20)).empty());
  const auto steps = Feed(controller, clock, MediaTime::Seconds(60), MediaTime::Millis(20));
  // x1.15 every 5 s of clean link, the last one clamped at the configured rate.
  EXPECT_THAT(Targets(steps), ElementsAre(788'900, 907'235, 1'043'320, 1'199'818, 1'379'791, 1'586'760,
                                          1'824'774, 2'000'000));
  EXPECT_EQ(controller.bitrate(), 2'000'000);
  EXPECT_EQ(controller.steps_up(), 8);
}

TEST(BitrateControllerTest, CongestionRestartsTheCleanCount) {
  AdaptiveBitrateOptions options;
  options.up_after = MediaTime::Seconds(5);
  BitrateController controller(2'000'000, options);
  SimulatedClock clock;
  Feed(controller, clock, MediaTime::Millis(1100), MediaTime::Millis(500));
  ASSERT_EQ(controller.bitrate(), 1'400'000);
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Seconds(4), MediaTime::Millis(20)).empty());
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Millis(300), MediaTime::Millis(500)).empty());  // a short relapse
  EXPECT_TRUE(Feed(controller, clock, MediaTime::Seconds(4), MediaTime::Millis(20)).empty());    // counts again
  EXPECT_EQ(Feed(controller, clock, MediaTime::Millis(1100), MediaTime::Millis(20)).size(), 1u);
}

TEST(BitrateControllerTest, TheFloorIsNeverBelowTheMinimumNorAboveTheCeiling) {
  BitrateController low(400'000, {});  // a quarter would be 100 kbit/s
  EXPECT_EQ(low.floor(), 150'000);
  BitrateController tiny(120'000, {});  // below the minimum: it never moves
  EXPECT_EQ(tiny.floor(), 120'000);
  SimulatedClock clock;
  EXPECT_TRUE(Feed(tiny, clock, MediaTime::Seconds(5), MediaTime::Seconds(2)).empty());
}

TEST(BitrateControllerTest, BadOptionsAreNamed) {
  EXPECT_OK(ValidateAdaptiveBitrate({}));
  AdaptiveBitrateOptions o;
  o.down_factor = 1.0;
  EXPECT_THAT(ValidateAdaptiveBitrate(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("down_factor 1")));
  o = {};
  o.up_factor = 0.9;
  EXPECT_THAT(ValidateAdaptiveBitrate(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("up_factor 0.9")));
  o = {};
  o.floor_fraction = 0;
  EXPECT_THAT(ValidateAdaptiveBitrate(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("floor_fraction 0")));
  o = {};
  o.congested_queue = MediaTime::Millis(50);
  EXPECT_THAT(ValidateAdaptiveBitrate(o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be above clean_queue")));
  o = {};
  o.up_after = MediaTime::Zero();
  EXPECT_THAT(ValidateAdaptiveBitrate(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("up_after")));
  o = {};
  o.min_bitrate = 10;
  EXPECT_THAT(ValidateAdaptiveBitrate(o), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("min_bitrate 10")));
}

}  // namespace
}  // namespace lingcast
