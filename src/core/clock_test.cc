#include "core/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace lingcast {
namespace {

TEST(SimulatedClockTest, ManualModeBlocksUntilAdvanced) {
  SimulatedClock clock;
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.SleepUntil(MediaTime::Millis(100));
    woke = true;
  });
  while (clock.sleepers() == 0) std::this_thread::yield();
  clock.Advance(MediaTime::Millis(50));
  EXPECT_FALSE(woke.load());
  clock.Advance(MediaTime::Millis(50));
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(clock.Now(), MediaTime::Millis(100));
}

TEST(SimulatedClockTest, AutoAdvanceJumpsToDeadline) {
  SimulatedClock clock(MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance);
  clock.SleepUntil(MediaTime::Seconds(3600));
  EXPECT_EQ(clock.Now(), MediaTime::Seconds(3600));
  clock.SleepUntil(MediaTime::Seconds(10));  // past deadlines never move time back
  EXPECT_EQ(clock.Now(), MediaTime::Seconds(3600));
}

TEST(SimulatedClockTest, AdvanceToNeverGoesBackwards) {
  SimulatedClock clock(MediaTime::Seconds(5));
  clock.AdvanceTo(MediaTime::Seconds(1));
  EXPECT_EQ(clock.Now(), MediaTime::Seconds(5));
}

TEST(SystemClockTest, IsMonotonic) {
  SystemClock clock;
  const MediaTime a = clock.Now();
  const MediaTime b = clock.Now();
  EXPECT_LE(a, b);
}

}  // namespace
}  // namespace lingcast
