// Greedy Marian decoders kept across calls on the static path, one per padded
// shape ("bucket"), so that on CUDA a new line replays the decode-step graph an
// earlier line of its bucket captured instead of capturing one of its own.
//
// Why: on an H200 a batch-1 OPUS-MT line costs ~160 ms the first time its exact
// input shape is seen, against ~32 ms for a seen one (measured: a graph captured
// per call costs ~35 ms at a seen shape, so the dear part is the first meeting
// of a shape, not the capture; src/neural/README.md). Lines are padded to buckets (source length: a multiple of 8 up to 128, then at most
// 1/8 padding, as core/graph_cache.h's BucketLength; batch: the next power of two,
// padded rows repeat the first line), the padding masked out of the encoder and
// the cross-attention, so the real rows decode exactly what they decode unpadded.
//
// A decoder in use is taken out of the cache, so concurrent calls of one bucket
// each get their own (the later one starts fresh); returned, it becomes the most
// recently used, and the least recently used beyond `capacity` decoders or
// `max_bytes` bytes are freed (cache_budget.h). Each holds its self-attention
// cache (layers x 2 x batch x d_model x capacity values), its cross-attention
// keys and values, the search's buffers and its graph's private memory pool:
// sizes vary a hundredfold with the batch, hence the byte bound. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "neural/core/cache_budget.h"
#include "neural/core/generation.h"
#include "neural/core/thread_annotations.h"

namespace lingcast::neural {

class MarianStaticDecoder;

// A source length rounded up to its bucket, at most `max_positions` (never below
// `length`: a longer line fails in the encoder with the model's own error).
std::int64_t MarianSourceBucket(std::int64_t length, std::int64_t max_positions);
// A batch rounded up to the next power of two.
std::int64_t MarianBatchBucket(std::int64_t batch);

struct MarianDecoderKey {
  std::int64_t batch = 0;           // padded rows
  std::int64_t source_length = 0;   // padded source positions
  std::int64_t max_new_tokens = 0;  // sets the self-attention cache's size
  bool operator==(const MarianDecoderKey&) const = default;
};

struct MarianDecoderCacheStats {
  std::int64_t decodes = 0;   // decoders handed out
  std::int64_t reused = 0;    // ... that an earlier call had left (its graph, if any, replays)
  std::int64_t evicted = 0;   // freed past the count or byte bound (least recently used)
  std::int64_t bytes = 0;     // what the idle decoders hold (Entry::bytes)
};

class MarianDecoderCache {
 public:
  struct Entry {
    Entry();
    ~Entry();
    MarianDecoderKey key;
    std::unique_ptr<MarianStaticDecoder> decoder;
    StaticSearchKeep search;  // StaticGreedySearch's buffers and captured step
    std::int64_t bytes = 0;   // device memory it holds, set by the owner before Return
  };

  // At most `capacity` idle decoders and `max_bytes` bytes of them (0: no byte bound).
  explicit MarianDecoderCache(std::size_t capacity, std::int64_t max_bytes = 0);
  ~MarianDecoderCache();
  MarianDecoderCache(const MarianDecoderCache&) = delete;
  MarianDecoderCache& operator=(const MarianDecoderCache&) = delete;

  // The idle decoder of `key`, taken out of the cache; a new empty Entry (no
  // decoder yet: the caller makes one) when there is none.
  std::unique_ptr<Entry> Take(const MarianDecoderKey& key);
  // Puts a decoder back as the most recently used (after a call that finished;
  // one whose call failed is simply dropped).
  void Return(std::unique_ptr<Entry> entry);

  MarianDecoderCacheStats stats() const;
  std::size_t capacity() const { return budget_.max_entries; }
  std::int64_t max_bytes() const { return budget_.max_bytes; }

 private:
  const CacheBudget budget_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> idle_ ABSL_GUARDED_BY(mutex_);  // most recently used last
  MarianDecoderCacheStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace lingcast::neural
