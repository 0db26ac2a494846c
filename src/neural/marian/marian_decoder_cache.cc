#include "neural/marian/marian_decoder_cache.h"

#include <algorithm>
#include <utility>

#include "neural/core/graph_cache.h"
#include "neural/marian/marian_model.h"

namespace lingcast::neural {

std::int64_t MarianSourceBucket(std::int64_t length, std::int64_t max_positions) {
  if (length >= max_positions) return length;
  return std::min(BucketLength(length, 8), max_positions);
}

std::int64_t MarianBatchBucket(std::int64_t batch) {
  std::int64_t bucket = 1;
  while (bucket < batch) bucket *= 2;
  return bucket;
}

MarianDecoderCache::Entry::Entry() = default;
MarianDecoderCache::Entry::~Entry() = default;

MarianDecoderCache::MarianDecoderCache(std::size_t capacity, std::int64_t max_bytes)
    : budget_{std::max<std::size_t>(capacity, 1), max_bytes} {}
MarianDecoderCache::~MarianDecoderCache() = default;

std::unique_ptr<MarianDecoderCache::Entry> MarianDecoderCache::Take(const MarianDecoderKey& key) {
  std::lock_guard lock(mutex_);
  ++stats_.decodes;
  auto found = std::find_if(idle_.begin(), idle_.end(), [&](const auto& e) { return e->key == key; });
  if (found != idle_.end()) {
    std::unique_ptr<Entry> entry = std::move(*found);
    idle_.erase(found);
    stats_.bytes -= entry->bytes;
    ++stats_.reused;
    return entry;
  }
  auto entry = std::make_unique<Entry>();
  entry->key = key;
  return entry;
}

void MarianDecoderCache::Return(std::unique_ptr<Entry> entry) {
  std::vector<std::unique_ptr<Entry>> freed;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  stats_.bytes += entry->bytes;
  idle_.push_back(std::move(entry));
  std::vector<std::int64_t> bytes;
  for (const auto& e : idle_) bytes.push_back(e->bytes);
  const auto evict = static_cast<std::ptrdiff_t>(EntriesToEvict(bytes, budget_));
  for (auto it = idle_.begin(); it != idle_.begin() + evict; ++it) {
    stats_.bytes -= (*it)->bytes;
    freed.push_back(std::move(*it));
  }
  idle_.erase(idle_.begin(), idle_.begin() + evict);
  stats_.evicted += evict;
}

MarianDecoderCacheStats MarianDecoderCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace lingcast::neural
