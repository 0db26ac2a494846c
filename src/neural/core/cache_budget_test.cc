#include "neural/core/cache_budget.h"

#include <torch/cuda.h>

#include "gtest/gtest.h"
#include "neural/core/graph_cache.h"

namespace lingcast::neural {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

TEST(CacheBudget, CountAloneFreesTheOldestPastIt) {
  EXPECT_EQ(EntriesToEvict({1, 1, 1}, {3, 0}), 0u);
  EXPECT_EQ(EntriesToEvict({1, 1, 1, 1, 1}, {3, 0}), 2u);
  EXPECT_EQ(EntriesToEvict({}, {3, 0}), 0u);
  EXPECT_EQ(EntriesToEvict({5, 5}, {0, 0}), 1u);  // a count of 0 keeps one
}

TEST(CacheBudget, BytesFreeTheLeastRecentlyUsedUntilTheRestFits) {
  // 10 + 20 + 30 + 40 = 100 MiB against 75: dropping 10 and 20 leaves 70.
  EXPECT_EQ(EntriesToEvict({10 * kMiB, 20 * kMiB, 30 * kMiB, 40 * kMiB}, {16, 75 * kMiB}), 2u);
  EXPECT_EQ(EntriesToEvict({10 * kMiB, 20 * kMiB, 30 * kMiB, 40 * kMiB}, {16, 100 * kMiB}), 0u);
  // A big old entry goes first even when small new ones would have sufficed.
  EXPECT_EQ(EntriesToEvict({200 * kMiB, 1 * kMiB, 1 * kMiB}, {16, 100 * kMiB}), 1u);
}

TEST(CacheBudget, TheEntryJustUsedIsKeptEvenWhenAloneOverTheBound) {
  EXPECT_EQ(EntriesToEvict({1 * kMiB, 500 * kMiB}, {16, 100 * kMiB}), 1u);
  EXPECT_EQ(EntriesToEvict({500 * kMiB}, {16, 100 * kMiB}), 0u);
}

TEST(CacheBudget, BothBoundsApply) {
  // Count 2 frees one; the bytes of the two left (60 + 50) still exceed 100.
  EXPECT_EQ(EntriesToEvict({10 * kMiB, 60 * kMiB, 50 * kMiB}, {2, 100 * kMiB}), 2u);
  EXPECT_EQ(EntriesToEvict({10 * kMiB, 60 * kMiB, 50 * kMiB}, {2, 0}), 1u);  // 0: no byte bound
}

TEST(CacheBudget, StorageBytesCountsASharedStorageOnce) {
  const torch::Tensor whole = torch::zeros({4, 8}, torch::kFloat);  // 128 bytes
  EXPECT_EQ(StorageBytes({whole, whole.narrow(0, 1, 2), torch::Tensor(), torch::zeros({3}, torch::kHalf)}), 128 + 6);
  EXPECT_EQ(ReservedDeviceBytes(torch::kCPU), 0);
}

// On a GPU: graphs keyed by size under a byte bound keep the most recent that
// fit; a bound that leaves no graph at all starts a fresh pool (PyTorch refuses
// to capture into a pool whose last graph is gone), and so does a pool that
// alone reaches the bound.
TEST(GraphCacheOnGpu, FreesTheLeastRecentlyUsedPastItsByteBound) {
  if (!torch::cuda::is_available() || !GraphCache::Supported(torch::kCUDA)) {
    GTEST_SKIP() << "no CUDA device: the graph cache's byte bound is tested on the GPU machine";
  }
  // Each key holds a 16 MiB fp32 input and a 16 MiB output.
  for (const std::int64_t bound : {100 * kMiB, 50 * kMiB, 20 * kMiB}) {
    SCOPED_TRACE("bound " + std::to_string(bound / kMiB) + " MiB");
    GraphCache cache(16, bound);
    const auto body = [](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{in[0] * 2.0f + 1.0f}; };
    for (int key = 0; key < 5; ++key) {
      const torch::Tensor input = torch::full({4 * kMiB}, static_cast<float>(key), torch::Device(torch::kCUDA));
      for (int call = 0; call < 3; ++call) {
        const torch::Tensor out = cache.Run("key " + std::to_string(key), {input}, body)[0];
        EXPECT_FLOAT_EQ(out[0].item<float>(), 2.0f * static_cast<float>(key) + 1.0f);
      }
    }
    const GraphCacheStats stats = cache.stats();
    EXPECT_EQ(stats.failed, 0);
    EXPECT_EQ(stats.captured, 5);
    EXPECT_EQ(stats.replayed, 5);
    // 32 MiB a key: at most 3 fit 100 MiB, 1 the others (the one just used stays);
    // the shared pool's growth can drop more (a fresh pool), never the last.
    const std::int64_t kept = stats.bytes / (32 * kMiB);
    EXPECT_EQ(stats.bytes % (32 * kMiB), 0);
    EXPECT_GE(kept, 1);
    EXPECT_LE(kept, bound >= 96 * kMiB ? 3 : 1);
    EXPECT_EQ(stats.evicted, 5 - kept);
    // The pool restarts once it alone reaches the bound: past it by at most one
    // capture's growth (here at most 32 MiB: an intermediate and the output).
    EXPECT_LE(stats.pool_bytes, bound + 48 * kMiB);
  }
}

}  // namespace
}  // namespace lingcast::neural
