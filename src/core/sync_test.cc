// core/sync.h: the locks and waits that replace absl's (for ThreadSanitizer).
// Each wait is released by another thread's change, never by time passing, so
// no test here depends on how fast the machine is.
#include "core/sync.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace lingcast {
namespace {

// Both orders happen: the other thread may wait before this one sets stage 1
// and then waits itself, in which case only this Await's release wakes it.
TEST(SyncTest, AwaitReturnsOnceAnotherThreadMadeTheConditionTrue) {
  Mutex mu;
  int stage = 0;
  std::thread other([&] {
    MutexLock lock(&mu);
    mu.Await([&] { return stage == 1; });
    stage = 2;
  });
  {
    MutexLock lock(&mu);
    stage = 1;  // no Unlock before the Await below
    mu.Await([&] { return stage == 2; });
    EXPECT_EQ(stage, 2);
  }
  other.join();
}

TEST(SyncTest, AwaitWithTimeoutSaysWhetherTheConditionHeld) {
  Mutex mu;
  bool ready = false;
  MutexLock lock(&mu);
  EXPECT_FALSE(mu.AwaitWithTimeout([&] { return ready; }, absl::ZeroDuration()));
  EXPECT_FALSE(mu.AwaitWithDeadline([&] { return ready; }, absl::InfinitePast()));
  ready = true;
  EXPECT_TRUE(mu.AwaitWithTimeout([&] { return ready; }, absl::ZeroDuration()));
  EXPECT_TRUE(mu.AwaitWithTimeout([&] { return ready; }, absl::InfiniteDuration()));
  EXPECT_TRUE(mu.AwaitWithDeadline([&] { return ready; }, absl::InfiniteFuture()));
}

TEST(SyncTest, ANotificationWakesEveryWaiterAndStaysGiven) {
  Notification given;
  EXPECT_FALSE(given.HasBeenNotified());
  EXPECT_FALSE(given.WaitForNotificationWithTimeout(absl::ZeroDuration()));
  std::vector<std::thread> waiters;
  for (int i = 0; i < 3; ++i) waiters.emplace_back([&] { given.WaitForNotification(); });
  given.Notify();
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_TRUE(given.HasBeenNotified());
  EXPECT_TRUE(given.WaitForNotificationWithTimeout(absl::ZeroDuration()));
}

// Two readers hold a SharedMutex at once: each waits, holding it, until the
// other has taken it too. Exclusive, this would never end.
TEST(SyncTest, ReadersShareASharedMutexAndAWriterExcludesThem) {
  SharedMutex shared;
  Mutex count_mu;
  int readers_in = 0;
  auto reader = [&] {
    ReaderMutexLock read(&shared);
    MutexLock lock(&count_mu);
    ++readers_in;
    count_mu.Await([&] { return readers_in == 2; });
  };
  std::thread first(reader);
  std::thread second(reader);
  first.join();
  second.join();
  WriterMutexLock write(&shared);
  EXPECT_EQ(readers_in, 2);
}

}  // namespace
}  // namespace lingcast
