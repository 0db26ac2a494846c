#include "neural/core/cache_budget.h"

#include <algorithm>
#include <numeric>
#include <set>

#ifdef LINGCAST_HAVE_CUDA_GRAPHS
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace lingcast::neural {

std::size_t EntriesToEvict(const std::vector<std::int64_t>& bytes_lru_first, const CacheBudget& budget) {
  const std::size_t n = bytes_lru_first.size();
  if (n <= 1) return 0;
  const std::size_t max_entries = std::max<std::size_t>(budget.max_entries, 1);
  std::size_t evict = n > max_entries ? n - max_entries : 0;
  if (budget.max_bytes > 0) {
    std::int64_t kept = std::accumulate(bytes_lru_first.begin() + static_cast<std::ptrdiff_t>(evict),
                                        bytes_lru_first.end(), std::int64_t{0});
    while (evict + 1 < n && kept > budget.max_bytes) kept -= bytes_lru_first[evict++];
  }
  return evict;
}

std::int64_t StorageBytes(const std::vector<torch::Tensor>& tensors) {
  std::set<const void*> seen;
  std::int64_t bytes = 0;
  for (const torch::Tensor& t : tensors) {
    if (!t.defined()) continue;
    const c10::Storage& storage = t.storage();
    if (seen.insert(storage.data()).second) bytes += static_cast<std::int64_t>(storage.nbytes());
  }
  return bytes;
}

std::int64_t ReservedDeviceBytes(const torch::Device& device) {
#ifdef LINGCAST_HAVE_CUDA_GRAPHS
  if (!device.is_cuda()) return 0;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.has_index() ? device.index() : 0);
  const auto aggregate = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
  return stats.reserved_bytes[aggregate].current;
#else
  (void)device;
  return 0;
#endif
}

void ReleaseCachedDeviceMemory(const torch::Device& device) {
#ifdef LINGCAST_HAVE_CUDA_GRAPHS
  if (device.is_cuda()) c10::cuda::CUDACachingAllocator::emptyCache();
#else
  (void)device;
#endif
}

}  // namespace lingcast::neural
