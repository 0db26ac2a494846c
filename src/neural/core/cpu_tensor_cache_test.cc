#include "neural/core/cpu_tensor_cache.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <thread>
#include <vector>

#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

namespace lingcast::neural {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;

TEST(CpuTensorCacheTest, SizeClassesRoundUpByAnEighthOfThePowerOfTwo) {
  EXPECT_EQ(CpuTensorCache::SizeClass(1000), 1000u);  // too small to keep: as asked
  EXPECT_EQ(CpuTensorCache::SizeClass(kSmallestCachedTensorBytes - 1), kSmallestCachedTensorBytes - 1);
  EXPECT_EQ(CpuTensorCache::SizeClass(kSmallestCachedTensorBytes), kSmallestCachedTensorBytes);
  // Below 1 MB the step is 64 KB; from there an eighth of the power of two.
  EXPECT_EQ(CpuTensorCache::SizeClass(300'000), 5u * 64 * 1024);
  EXPECT_EQ(CpuTensorCache::SizeClass(4 * kMiB), 4 * kMiB);
  EXPECT_EQ(CpuTensorCache::SizeClass(4 * kMiB + 1), 4 * kMiB + kMiB / 2);
  for (std::size_t bytes = kSmallestCachedTensorBytes; bytes < 64 * kMiB; bytes = bytes * 5 / 4 + 12345) {
    const std::size_t size_class = CpuTensorCache::SizeClass(bytes);
    EXPECT_GE(size_class, bytes);
    EXPECT_LE(size_class - bytes, bytes / 8 + 64 * 1024) << bytes;
    EXPECT_EQ(CpuTensorCache::SizeClass(size_class), size_class) << "a class is its own class";
  }
}

TEST(CpuTensorCacheTest, AFreedBlockServesTheNextRequestOfItsSizeClass) {
  CpuTensorCache cache(64 * kMiB);
  void* first = nullptr;
  {
    c10::DataPtr block = cache.allocate(300'000);
    first = block.get();
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % 64, 0u);
    std::memset(first, 1, 300'000);  // the whole request is writable
    EXPECT_EQ(cache.stats().cached_bytes, 0u);
  }
  EXPECT_EQ(cache.stats().cached_bytes, CpuTensorCache::SizeClass(300'000));
  {
    // A little longer, the same class: the same memory, nothing new mapped.
    c10::DataPtr again = cache.allocate(310'000);
    EXPECT_EQ(again.get(), first);
    EXPECT_EQ(cache.stats().cached_bytes, 0u);
    // Another class while that one is in use: fresh memory.
    c10::DataPtr other = cache.allocate(2 * kMiB);
    EXPECT_NE(other.get(), first);
  }
  const CpuTensorCacheStats stats = cache.stats();
  EXPECT_EQ(stats.requests, 3);
  EXPECT_EQ(stats.hits, 1);
  EXPECT_EQ(stats.evictions, 0);
  EXPECT_EQ(stats.cached_bytes, CpuTensorCache::SizeClass(300'000) + 2 * kMiB);
}

TEST(CpuTensorCacheTest, SmallRequestsAreNotKept) {
  CpuTensorCache cache(64 * kMiB);
  { c10::DataPtr small = cache.allocate(4096); std::memset(small.get(), 0, 4096); }
  EXPECT_EQ(cache.stats().requests, 0);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  c10::DataPtr none = cache.allocate(0);
  EXPECT_EQ(none.get(), nullptr);
}

TEST(CpuTensorCacheTest, KeepsWithinItsCapacityGivingBackTheLeastRecentlyFreedFirst) {
  CpuTensorCache cache(3 * kMiB);
  std::vector<void*> addresses;
  {
    std::vector<c10::DataPtr> blocks;
    for (int i = 0; i < 4; ++i) {
      blocks.push_back(cache.allocate(kMiB));
      addresses.push_back(blocks.back().get());
    }
    // Freed in order 0, 1, 2, 3: the fourth pushes the first out.
    for (auto& block : blocks) block.clear();
  }
  CpuTensorCacheStats stats = cache.stats();
  EXPECT_EQ(stats.cached_bytes, 3 * kMiB);
  EXPECT_EQ(stats.evictions, 1);
  // The three kept are handed out again, the most recently freed first; the
  // first one's memory was given back.
  std::vector<c10::DataPtr> again;
  for (int i = 0; i < 3; ++i) again.push_back(cache.allocate(kMiB));
  EXPECT_EQ(again[0].get(), addresses[3]);
  EXPECT_EQ(again[1].get(), addresses[2]);
  EXPECT_EQ(again[2].get(), addresses[1]);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  EXPECT_EQ(cache.stats().hits, 3);
}

TEST(CpuTensorCacheTest, ABlockLargerThanTheCapacityIsFreedAtOnce) {
  CpuTensorCache cache(kMiB);
  { c10::DataPtr large = cache.allocate(2 * kMiB); std::memset(large.get(), 0, 2 * kMiB); }
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
  EXPECT_EQ(cache.stats().requests, 0);
  CpuTensorCache off(0);
  { c10::DataPtr block = off.allocate(kMiB); }
  EXPECT_EQ(off.stats().cached_bytes, 0u);
}

TEST(CpuTensorCacheTest, ARequestNoMemoryCanHoldIsRefusedWithoutTouchingTheCache) {
  CpuTensorCache cache(64 * kMiB);
  EXPECT_THROW((void)cache.allocate(std::numeric_limits<std::size_t>::max() - 10), std::bad_alloc);
  EXPECT_THROW((void)cache.allocate(std::numeric_limits<std::size_t>::max() / 2), std::bad_alloc);
  EXPECT_EQ(cache.stats().requests, 0);
  EXPECT_EQ(cache.stats().cached_bytes, 0u);
}

TEST(CpuTensorCacheTest, RawAllocationsComeBackThroughTheRawDeleter) {
  CpuTensorCache cache(8 * kMiB);
  void* raw = cache.raw_allocate(kMiB);
  ASSERT_NE(raw, nullptr);
  cache.raw_deallocate(raw);
  EXPECT_EQ(cache.stats().cached_bytes, kMiB);
}

TEST(CpuTensorCacheTest, ThreadsAllocatingAndFreeingAtOnceLoseNothing) {
  CpuTensorCache cache(16 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 200; ++i) {
        const std::size_t bytes = (kSmallestCachedTensorBytes << (i % 4)) + static_cast<std::size_t>(t) * 1000;
        c10::DataPtr block = cache.allocate(bytes);
        std::memset(block.get(), t, bytes);
        const auto* bytes_seen = static_cast<const unsigned char*>(block.get());
        ASSERT_EQ(bytes_seen[bytes - 1], static_cast<unsigned char>(t));  // no other thread wrote here
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const CpuTensorCacheStats stats = cache.stats();
  EXPECT_EQ(stats.requests, 800);
  EXPECT_GT(stats.hits, 0);
  EXPECT_LE(stats.cached_bytes, 16 * kMiB);
}

TEST(CpuTensorCacheTest, ParsesItsSettingAndRefusesAnythingButWholeMegabytes) {
  EXPECT_EQ(ParseCpuTensorCacheMegabytes("0"), std::size_t{0});
  EXPECT_EQ(ParseCpuTensorCacheMegabytes("128"), std::size_t{128});
  for (const char* bad : {"", "-1", "12MB", " 12", "1.5", "abc", "99999999", "2000000"}) {
    EXPECT_FALSE(ParseCpuTensorCacheMegabytes(bad).has_value()) << '"' << bad << '"';
  }
}

// Last in the file: it changes this process's CPU allocator for good, as the
// plug-in does when it loads. Tensors made before keep their own deleter.
TEST(CpuTensorCacheTest, InstalledItServesLibtorchsTensors) {
  const torch::Tensor before = torch::ones({100'000});
  const CpuTensorCache* cache = InstallCpuTensorCache();
  if (cache == nullptr) GTEST_SKIP() << "LINGCAST_CPU_TENSOR_CACHE_MB=0 in this environment: no cache to check";
  EXPECT_EQ(InstallCpuTensorCache(), cache) << "once per process";
  EXPECT_EQ(c10::GetCPUAllocator(), cache);
  const CpuTensorCacheStats start = cache->stats();
  for (int i = 0; i < 3; ++i) {
    const torch::Tensor a = torch::randn({512, 512});  // 1 MB each
    const torch::Tensor b = torch::matmul(a, a);
    EXPECT_EQ(b.sizes(), a.sizes());
  }
  const CpuTensorCacheStats end = cache->stats();
  EXPECT_GE(end.requests - start.requests, 6);
  EXPECT_GE(end.hits - start.hits, 4) << "the second and third rounds reuse the first round's blocks";
  EXPECT_FLOAT_EQ((before * 2).sum().item<float>(), 200'000.0f);
}

}  // namespace
}  // namespace lingcast::neural
