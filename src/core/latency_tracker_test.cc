#include "core/latency_tracker.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace lingcast {
namespace {

TEST(LatencyHistogramTest, PercentilesWithinBucketResolution) {
  LatencyHistogram h;
  for (int ms = 1; ms <= 1000; ++ms) h.Record(MediaTime::Millis(ms));
  EXPECT_EQ(h.count(), 1000);
  EXPECT_NEAR(h.Percentile(0.50).millis(), 500, 500 * 0.04);
  EXPECT_NEAR(h.Percentile(0.95).millis(), 950, 950 * 0.04);
  EXPECT_NEAR(h.Percentile(0.99).millis(), 990, 990 * 0.04);
  EXPECT_EQ(h.Percentile(1.0), MediaTime::Millis(1000));
  EXPECT_EQ(h.min(), MediaTime::Millis(1));
  EXPECT_EQ(h.mean().micros(), 500'500);
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  h.Record(MediaTime::Micros(7));
  EXPECT_EQ(h.Percentile(0.5).micros(), 7);
}

TEST(LatencyHistogramTest, EmptyAndNegative) {
  LatencyHistogram h;
  EXPECT_EQ(h.Percentile(0.99), MediaTime::Zero());
  h.Record(MediaTime::Millis(-5));
  EXPECT_EQ(h.max(), MediaTime::Zero());
}

TEST(LatencyTrackerTest, SeparatesBoundariesAndIsThreadSafe) {
  LatencyTracker tracker;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&tracker, t] {
      for (int i = 0; i < 1000; ++i) tracker.Record(t % 2 ? "a" : "b", MediaTime::Millis(10));
    });
  }
  for (auto& th : threads) th.join();
  const auto all = tracker.Summaries();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].boundary, "a");
  EXPECT_EQ(all[0].count, 2000);
  EXPECT_EQ(tracker.Summary("b").p99, MediaTime::Millis(10));
  EXPECT_EQ(tracker.Summary("missing").count, 0);
}

}  // namespace
}  // namespace lingcast
