#include "neural/core/cpu_tensor_cache.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <new>

#include <c10/core/CPUAllocator.h>

namespace lingcast::neural {
namespace {

// In front of every block: what the deleter needs. 64 bytes keep the data at
// the 64-byte alignment libtorch's vectorized kernels expect.
struct BlockHeader {
  const CpuTensorCache* owner;  // null: not kept, freed at once
  std::size_t bytes;            // the block's size class
};
constexpr std::size_t kHeaderBytes = 64;
static_assert(sizeof(BlockHeader) <= kHeaderBytes);

constexpr std::size_t kSmallestStep = 64 * 1024;
constexpr std::size_t kLargestMegabytes = std::size_t{1} << 20;  // 1 TB: beyond any machine

void* AllocateBase(std::size_t bytes) {
  // Past any x86-64 or arm64 address space (128 TB): refused here, before the
  // header's bytes could wrap and before a sanitizer's allocator aborts on it.
  if (bytes > (std::size_t{1} << 47)) throw std::bad_alloc();
  void* base = nullptr;
  if (posix_memalign(&base, kHeaderBytes, bytes + kHeaderBytes) != 0) throw std::bad_alloc();
  return base;
}

BlockHeader* HeaderOf(void* data) { return static_cast<BlockHeader*>(static_cast<void*>(static_cast<char*>(data) - kHeaderBytes)); }

}  // namespace

CpuTensorCache::~CpuTensorCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const FreeBlock& block : free_blocks_) std::free(block.base);
}

std::size_t CpuTensorCache::SizeClass(std::size_t bytes) {
  if (bytes < kSmallestCachedTensorBytes) return bytes;
  const std::size_t step = std::max(kSmallestStep, std::bit_floor(bytes) / 8);
  return (bytes + step - 1) / step * step;
}

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
c10::DataPtr CpuTensorCache::allocate(std::size_t bytes) {
#else
c10::DataPtr CpuTensorCache::allocate(std::size_t bytes) const {
#endif
  const c10::Device cpu(c10::DeviceType::CPU);
  if (bytes == 0) return {nullptr, nullptr, &Release, cpu};
  // Capacity first: a request near SIZE_MAX must not round (and wrap) to a small class.
  const bool kept = bytes >= kSmallestCachedTensorBytes && bytes <= capacity_bytes_ && SizeClass(bytes) <= capacity_bytes_;
  const std::size_t size_class = kept ? SizeClass(bytes) : bytes;
  void* base = kept ? TakeOrAllocate(size_class) : AllocateBase(bytes);
  auto* header = static_cast<BlockHeader*>(base);
  header->owner = kept ? this : nullptr;
  header->bytes = size_class;
  void* data = static_cast<char*>(base) + kHeaderBytes;
  return {data, data, &Release, cpu};
}

void* CpuTensorCache::TakeOrAllocate(std::size_t bytes) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.requests;
    if (auto same_size = free_by_size_.find(bytes); same_size != free_by_size_.end()) {
      // The most recently freed of the size: its pages are the likeliest still in a cache.
      const FreeList::iterator block = same_size->second.back();
      same_size->second.pop_back();
      if (same_size->second.empty()) free_by_size_.erase(same_size);
      void* base = block->base;
      free_blocks_.erase(block);
      stats_.cached_bytes -= bytes;
      ++stats_.hits;
      return base;
    }
  }
  return AllocateBase(bytes);
}

void CpuTensorCache::Release(void* data) {
  if (data == nullptr) return;
  const BlockHeader* header = HeaderOf(data);
  void* base = static_cast<char*>(data) - kHeaderBytes;
  if (header->owner == nullptr) {
    std::free(base);
    return;
  }
  header->owner->Keep(base, header->bytes);
}

void CpuTensorCache::Keep(void* base, std::size_t bytes) const {
  std::vector<void*> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    free_blocks_.push_front({base, bytes});
    free_by_size_[bytes].push_back(free_blocks_.begin());
    stats_.cached_bytes += bytes;
    while (stats_.cached_bytes > capacity_bytes_) {
      const FreeList::iterator oldest = std::prev(free_blocks_.end());
      auto same_size = free_by_size_.find(oldest->bytes);
      auto& blocks = same_size->second;
      blocks.erase(std::find(blocks.begin(), blocks.end(), oldest));
      if (blocks.empty()) free_by_size_.erase(same_size);
      stats_.cached_bytes -= oldest->bytes;
      ++stats_.evictions;
      evicted.push_back(oldest->base);
      free_blocks_.erase(oldest);
    }
  }
  // Unmapping takes a while; no other thread waits for it.
  for (void* block : evicted) std::free(block);
}

CpuTensorCacheStats CpuTensorCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::optional<std::size_t> ParseCpuTensorCacheMegabytes(const std::string& text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  std::size_t megabytes = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    megabytes = megabytes * 10 + static_cast<std::size_t>(c - '0');
  }
  if (megabytes > kLargestMegabytes) return std::nullopt;
  return megabytes;
}

const CpuTensorCache* InstallCpuTensorCache() {
  static const CpuTensorCache* const installed = []() -> const CpuTensorCache* {
    std::size_t megabytes = kDefaultCpuTensorCacheMegabytes;
    if (const char* setting = std::getenv("LINGCAST_CPU_TENSOR_CACHE_MB"); setting != nullptr) {
      if (const std::optional<std::size_t> parsed = ParseCpuTensorCacheMegabytes(setting); parsed.has_value()) {
        megabytes = *parsed;
      } else {
        std::fprintf(stderr,
                     "lingcast: LINGCAST_CPU_TENSOR_CACHE_MB=\"%s\" is not a whole number of MB (0 turns the cache "
                     "off); using %zu\n",
                     setting, megabytes);
      }
    }
    if (megabytes == 0) return nullptr;
    // Never destroyed: tensors can outlive every static object (a model freed
    // at exit), and each one's deleter comes back here.
    auto* cache = new CpuTensorCache(megabytes * 1024 * 1024);
    // Above the default allocator's priority (0), so libtorch takes this one.
    c10::SetCPUAllocator(cache, /*priority=*/1);
    return cache;
  }();
  return installed;
}

}  // namespace lingcast::neural
