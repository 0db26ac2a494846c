#include "core/session_start.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace lingcast {
namespace {

TEST(SessionStartTest, TheFirstReaderFixesItForEveryLaterOne) {
  SimulatedClock clock;
  clock.AdvanceTo(MediaTime::Seconds(5));  // the engines and outputs took 5 s to open
  SessionStart start;
  EXPECT_EQ(start.Get(clock), MediaTime::Seconds(5));
  clock.AdvanceTo(MediaTime::Seconds(9));
  EXPECT_EQ(start.Get(clock), MediaTime::Seconds(5));
}

TEST(SessionStartTest, ReadersOnManyThreadsAgree) {
  SimulatedClock clock;
  clock.AdvanceTo(MediaTime::Millis(250));
  SessionStart start;
  std::vector<MediaTime> seen(8);
  std::vector<std::thread> readers;
  for (size_t i = 0; i < seen.size(); ++i) {
    readers.emplace_back([&, i] { seen[i] = start.Get(clock); });
  }
  for (std::thread& t : readers) t.join();
  for (const MediaTime& t : seen) EXPECT_EQ(t, MediaTime::Millis(250));
}

}  // namespace
}  // namespace lingcast
