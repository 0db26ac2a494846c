#include "compose/tile_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace lingcast::compose {
namespace {

TEST(TilePoolTest, RunsEveryTileExactlyOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    TilePool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int tiles : {0, 1, 5, 64}) {
      // Many jobs in a row: a worker waking late must not run a tile of the
      // next job with the previous job's function.
      for (int job = 0; job < 200; ++job) {
        std::vector<std::atomic<int>> runs(static_cast<size_t>(tiles));
        pool.Run(tiles, [&](int tile) { runs[static_cast<size_t>(tile)].fetch_add(1 + job); });
        for (int t = 0; t < tiles; ++t) {
          ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1 + job) << threads << " threads, tile " << t;
        }
      }
    }
  }
}

TEST(TilePoolTest, ZeroThreadsMeansTheHardwareThreads) {
  TilePool pool(0);
  EXPECT_EQ(pool.threads(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(TilePoolTest, TilesRunOnSeveralThreadsWhenThereAreSeveral) {
  TilePool pool(3);
  std::atomic<int> running{0}, most{0};
  std::atomic<bool> release{false};
  // Each of the first three tiles waits until three run at once (no timing:
  // it would wait forever, and the test time out, if the pool were serial).
  pool.Run(3, [&](int) {
    const int now = running.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    if (now == 3) release = true;
    while (!release.load()) std::this_thread::yield();
  });
  EXPECT_EQ(most.load(), 3);
}

}  // namespace
}  // namespace lingcast::compose
