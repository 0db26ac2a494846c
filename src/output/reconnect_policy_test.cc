#include "output/reconnect_policy.h"

#include "core/clock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

ReconnectOptions NoJitter() {
  ReconnectOptions options;
  options.jitter = 0;
  options.seed = 1;
  return options;
}

TEST(ReconnectPolicyTest, BacksOffTwoSecondsTimesOnePointFiveToTheCap) {
  ReconnectOptions options = NoJitter();
  options.max_delay = MediaTime::Seconds(10);
  ReconnectPolicy policy(options);
  SimulatedClock clock;
  const double expected[] = {2.0, 3.0, 4.5, 6.75, 10.0, 10.0};
  for (double seconds : expected) {
    const MediaTime now = clock.Now();
    auto next = policy.OnDisconnected(now);
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(*next - now, MediaTime::Seconds(seconds));
    clock.AdvanceTo(*next);
  }
}

TEST(ReconnectPolicyTest, GivesUpAfterMaxRetries) {
  ReconnectOptions options = NoJitter();
  options.max_retries = 3;
  ReconnectPolicy policy(options);
  SimulatedClock clock;
  for (int i = 0; i < 3; ++i) {
    auto next = policy.OnDisconnected(clock.Now());
    ASSERT_TRUE(next.has_value());
    clock.AdvanceTo(*next);
  }
  EXPECT_FALSE(policy.OnDisconnected(clock.Now()).has_value());
}

TEST(ReconnectPolicyTest, AStableConnectionResetsTheCountAShortOneDoesNot) {
  ReconnectPolicy policy(NoJitter());
  SimulatedClock clock;
  clock.AdvanceTo(*policy.OnDisconnected(clock.Now()));
  clock.AdvanceTo(*policy.OnDisconnected(clock.Now()));
  ASSERT_EQ(policy.consecutive_failures(), 2);

  // Accepted, then dropped after half a second: still backing off (4.5 s next).
  policy.OnConnected(clock.Now());
  clock.Advance(MediaTime::Millis(500));
  auto next = policy.OnDisconnected(clock.Now());
  EXPECT_EQ(*next - clock.Now(), MediaTime::Seconds(4.5));
  clock.AdvanceTo(*next);

  // Up for a second: the count starts again at 2 s.
  policy.OnConnected(clock.Now());
  clock.Advance(MediaTime::Seconds(1));
  next = policy.OnDisconnected(clock.Now());
  EXPECT_EQ(*next - clock.Now(), MediaTime::Seconds(2));
}

TEST(ReconnectPolicyTest, JitterOnlyShortensAndVaries) {
  ReconnectOptions options;
  options.jitter = 0.25;
  options.seed = 42;
  SimulatedClock clock;
  bool varied = false;
  MediaTime first_delay;
  for (int run = 0; run < 20; ++run) {
    options.seed = 42 + static_cast<uint64_t>(run);
    ReconnectPolicy policy(options);
    const MediaTime delay = *policy.OnDisconnected(clock.Now()) - clock.Now();
    EXPECT_LE(delay, MediaTime::Seconds(2));
    EXPECT_GE(delay, MediaTime::Seconds(1.5));
    if (run == 0) first_delay = delay;
    if (delay != first_delay) varied = true;
  }
  EXPECT_TRUE(varied);
}

TEST(ReconnectPolicyTest, AServerBackIsTriedWithinItsJitter) {
  ReconnectOptions options = NoJitter();
  options.server_back_jitter = MediaTime::Millis(500);
  ReconnectPolicy policy(options);
  const MediaTime now = MediaTime::Seconds(100);
  bool spread = false;
  for (int i = 0; i < 50; ++i) {
    const MediaTime at = policy.ServerBack(now);
    EXPECT_GE(at, now);
    EXPECT_LE(at, now + MediaTime::Millis(500));
    spread |= at != policy.ServerBack(now);
  }
  EXPECT_TRUE(spread);
  options.server_back_jitter = MediaTime::Zero();
  EXPECT_EQ(ReconnectPolicy(options).ServerBack(now), now);
}

}  // namespace
}  // namespace lingcast
