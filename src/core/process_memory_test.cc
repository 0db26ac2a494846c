#include "core/process_memory.h"

#include <signal.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace lingcast {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kGlibcMalloc = false;  // the sanitizer's allocator replaces glibc's
#else
constexpr bool kGlibcMalloc = true;
#endif

TEST(ProcessMemoryTest, ReleaseFreedMemoryGivesBackTheGapsFreedInsideTheHeap) {
  if (!kGlibcMalloc) GTEST_SKIP() << "needs glibc's allocator; a sanitizer build replaces it";
  // 1,024 blocks of 48 KB (under any mmap threshold, so they come from the
  // heap), each followed by a small block kept alive: freeing the large ones
  // leaves 48 MB of gaps that cannot merge into the heap's top, which is all
  // glibc gives back on its own.
  constexpr size_t kBlocks = 1024, kBlockBytes = 48 * 1024;
  std::vector<void*> large, pins;
  for (size_t i = 0; i < kBlocks; ++i) {
    large.push_back(std::malloc(kBlockBytes));
    std::memset(large.back(), 0x5a, kBlockBytes);  // resident
    pins.push_back(std::malloc(32));
  }
  for (void* block : large) std::free(block);
  const double released = ReleaseFreedMemory();
  for (void* pin : pins) std::free(pin);
  EXPECT_GE(released, 24.0) << "MiB given back of the 48 freed";
}

TEST(ProcessMemoryTest, ReleaserStopsAtOnceWithoutWaitingOutItsPeriod) {
  // Were the destructor to wait for the period, the test would hang past
  // ctest's timeout.
  FreedMemoryReleaser releaser(absl::Hours(24));
  EXPECT_EQ(releaser.releases(), 0);
}

std::set<std::string> ThreadIds() {
  std::set<std::string> ids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    ids.insert(entry.path().filename().string());
  }
  return ids;
}

// The mask of signals the thread blocks (SigBlk in /proc), bit N-1 for signal N.
uint64_t BlockedSignals(const std::string& thread_id) {
  std::ifstream status("/proc/self/task/" + thread_id + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigBlk:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  }
  ADD_FAILURE() << "no SigBlk for thread " << thread_id;
  return 0;
}

TEST(ProcessMemoryTest, ReleasersThreadTakesNoSignal) {
  // A command blocks SIGINT and SIGTERM and waits for them (app/signals.h);
  // the releaser, started before, must not take them and die of them.
  const std::set<std::string> before = ThreadIds();
  FreedMemoryReleaser releaser(absl::Hours(24));
  int checked = 0;
  for (const std::string& id : ThreadIds()) {
    if (before.count(id) > 0) continue;
    const uint64_t blocked = BlockedSignals(id);
    EXPECT_NE(blocked & (uint64_t{1} << (SIGINT - 1)), 0u) << "thread " << id;
    EXPECT_NE(blocked & (uint64_t{1} << (SIGTERM - 1)), 0u) << "thread " << id;
    ++checked;
  }
  EXPECT_EQ(checked, 1) << "the releaser's one thread";
}

TEST(ProcessMemoryTest, ReleaserReleasesOncePerPeriod) {
  FreedMemoryReleaser releaser(absl::Milliseconds(1));
  while (releaser.releases() < 3) std::this_thread::yield();
  EXPECT_GE(releaser.releases(), 3);
}

}  // namespace
}  // namespace lingcast
