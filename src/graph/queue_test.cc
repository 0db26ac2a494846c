#include "graph/queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace lingcast {
namespace {

TEST(BoundedQueueTest, BlockPolicyNeverLosesAnItemUnderASlowConsumer) {
  BoundedQueue<int> q({4, QueuePolicy::kBlock});
  constexpr int kItems = 20000;
  std::thread producer([&] {
    for (int i = 0; i < kItems; ++i) ASSERT_EQ(q.Push(i), PushResult::kPushed);
    q.Close();
  });
  std::vector<int> got;
  while (auto v = q.Pop()) {
    got.push_back(*v);
    // A slow consumer: give the producer every chance to overrun the queue.
    for (int spin = 0; spin < 3; ++spin) std::this_thread::yield();
  }
  producer.join();
  ASSERT_EQ(got.size(), static_cast<size_t>(kItems));
  for (int i = 0; i < kItems; ++i) ASSERT_EQ(got[i], i);
  const QueueCounters c = q.counters();
  EXPECT_EQ(c.pushed, kItems);
  EXPECT_EQ(c.popped, kItems);
  EXPECT_EQ(c.dropped, 0);
  EXPECT_LE(c.high_water, 4u);
}

TEST(BoundedQueueTest, DropOldestNeverBlocksAndCountsDrops) {
  BoundedQueue<int> q({3, QueuePolicy::kDropOldest});
  // No consumer at all: a blocking push would hang this test.
  for (int i = 0; i < 1000; ++i) q.Push(i);
  const QueueCounters c = q.counters();
  EXPECT_EQ(c.pushed, 1000);
  EXPECT_EQ(c.dropped, 997);
  EXPECT_EQ(c.high_water, 3u);
  EXPECT_EQ(*q.Pop(), 997);  // the newest three survive, in order
  EXPECT_EQ(*q.Pop(), 998);
  EXPECT_EQ(*q.Pop(), 999);
}

TEST(BoundedQueueTest, LatestKeepsOnlyTheNewest) {
  BoundedQueue<int> q({8, QueuePolicy::kLatest});
  for (int i = 0; i < 100; ++i) q.Push(i);
  EXPECT_EQ(q.counters().dropped, 99);
  EXPECT_EQ(*q.TryPop(), 99);
  EXPECT_FALSE(q.TryPop().has_value());
}

TEST(BoundedQueueTest, DropNewestRejectsTheIncomingItem) {
  BoundedQueue<int> q({2, QueuePolicy::kDropNewest});
  EXPECT_EQ(q.Push(1), PushResult::kPushed);
  EXPECT_EQ(q.Push(2), PushResult::kPushed);
  EXPECT_EQ(q.Push(3), PushResult::kDroppedNewest);
  EXPECT_EQ(q.counters().dropped, 1);
  EXPECT_EQ(*q.Pop(), 1);
  EXPECT_EQ(*q.Pop(), 2);
}

TEST(BoundedQueueTest, PriorityLaneOvertakesDataAndPurges) {
  BoundedQueue<int> q({8, QueuePolicy::kBlock});
  for (int i = 1; i <= 5; ++i) q.Push(i);
  q.PushPriority(100, [](const int& v) { return v % 2 == 1; });  // purge odd items
  EXPECT_EQ(*q.Pop(), 100);
  EXPECT_EQ(*q.Pop(), 2);
  EXPECT_EQ(*q.Pop(), 4);
  EXPECT_EQ(q.counters().purged, 3);
  EXPECT_EQ(q.counters().dropped, 0);
}

TEST(BoundedQueueTest, PriorityPushNeverBlocksOnAFullQueue) {
  BoundedQueue<int> q({1, QueuePolicy::kBlock});
  q.Push(1);
  EXPECT_TRUE(q.PushPriority(2));
  EXPECT_EQ(*q.Pop(), 2);
}

TEST(BoundedQueueTest, CloseDrainsThenEnds) {
  BoundedQueue<int> q({4, QueuePolicy::kBlock});
  q.Push(1);
  q.Close();
  EXPECT_EQ(q.Push(2), PushResult::kClosed);
  EXPECT_EQ(*q.Pop(), 1);
  EXPECT_FALSE(q.Pop().has_value());
}

TEST(BoundedQueueTest, CancelWakesABlockedProducerAndConsumer) {
  BoundedQueue<int> full({1, QueuePolicy::kBlock});
  full.Push(0);
  BoundedQueue<int> empty({1, QueuePolicy::kBlock});
  std::atomic<int> woke{0};
  std::thread producer([&] {
    EXPECT_EQ(full.Push(1), PushResult::kClosed);  // blocked on a full queue
    ++woke;
  });
  std::thread consumer([&] {
    EXPECT_FALSE(empty.Pop().has_value());  // blocked on an empty queue
    ++woke;
  });
  full.Cancel();
  empty.Cancel();
  producer.join();
  consumer.join();
  EXPECT_EQ(woke.load(), 2);
  EXPECT_FALSE(full.TryPop().has_value());  // cancelled: queued items discarded
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(BoundedQueueTest, DrainedOnlyOnceClosedAndEmpty) {
  BoundedQueue<int> queue({4, QueuePolicy::kBlock});
  EXPECT_FALSE(queue.drained());
  ASSERT_EQ(queue.Push(1), PushResult::kPushed);
  queue.Close();
  EXPECT_FALSE(queue.drained()) << "an item is still queued";
  EXPECT_EQ(queue.TryPop(), 1);
  EXPECT_TRUE(queue.drained());
  EXPECT_EQ(queue.TryPop(), std::nullopt);
}

}  // namespace
}  // namespace lingcast
