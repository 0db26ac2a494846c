#include "neural/marian/marian_decoder_cache.h"

#include "gtest/gtest.h"

namespace lingcast::neural {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// The kept Marian decoders under a byte bound: the policy itself, on the CPU
// (entries sized by hand; the model sizes them from its tensors and graph pool).
TEST(MarianDecoderCache, FreesTheLeastRecentlyUsedPastItsByteBound) {
  MarianDecoderCache cache(16, 100 * kMiB);
  auto put = [&](std::int64_t length, std::int64_t bytes) {
    auto entry = cache.Take(MarianDecoderKey{1, length, 64});
    entry->bytes = bytes;
    cache.Return(std::move(entry));
  };
  put(8, 40 * kMiB);
  put(16, 40 * kMiB);
  EXPECT_EQ(cache.stats().bytes, 80 * kMiB);
  EXPECT_EQ(cache.stats().evicted, 0);
  put(24, 40 * kMiB);  // 120 MiB: the decoder of 8 goes
  MarianDecoderCacheStats stats = cache.stats();
  EXPECT_EQ(stats.evicted, 1);
  EXPECT_EQ(stats.bytes, 80 * kMiB);
  auto taken = cache.Take(MarianDecoderKey{1, 8, 64});
  EXPECT_EQ(taken->bytes, 0) << "the decoder of 8 should have been freed";
  auto kept = cache.Take(MarianDecoderKey{1, 16, 64});
  EXPECT_EQ(kept->bytes, 40 * kMiB);
  EXPECT_EQ(cache.stats().bytes, 40 * kMiB);  // what is taken out is not counted
  put(32, 300 * kMiB);                        // alone over the bound: kept, the rest freed
  stats = cache.stats();
  EXPECT_EQ(stats.bytes, 300 * kMiB);
  EXPECT_EQ(stats.evicted, 2);
  EXPECT_EQ(cache.max_bytes(), 100 * kMiB);
}

}  // namespace
}  // namespace lingcast::neural
