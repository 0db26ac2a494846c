// CUDA graphs replayed by padded length, for models whose work is many small
// kernels: VITS synthesis (relative attention, spline flows, WaveNet, 70-odd
// HiFi-GAN convolutions: a few hundred kernels) and Whisper's encoder. On a GPU
// the host's launches, not the arithmetic, set their time. Each stage is
// recorded once per padded length ("bucket") and replayed with one launch.
//
// Lengths vary with every sentence (and with the noise), so a graph per exact
// length would rarely be used twice: lengths are rounded up to buckets (about
// 8 per doubling, at most 1/8 wasted) and the stages compute exactly what they
// compute unpadded on the real positions (the caller masks the padding, as
// vits/vits_model.cc does). Marian's kept decoders bucket by the same rule.
//
// Built when libtorch has CUDA (LINGCAST_HAVE_CUDA_GRAPHS); elsewhere
// Supported() is false and the models run eagerly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

#include "neural/core/cache_budget.h"

namespace lingcast::neural {

// `length` rounded up to its bucket: a multiple of `step` below 16 * step, then
// of `step` times the largest power of two that is at most an eighth of the
// length (so at most 1/8 is padding). Returns `length` for lengths below 1.
std::int64_t BucketLength(std::int64_t length, std::int64_t step);

struct GraphCacheStats {
  std::int64_t eager = 0;     // first call of a key: run eagerly (warm-up)
  std::int64_t captured = 0;  // second call: recorded, then replayed
  std::int64_t replayed = 0;  // later calls
  std::int64_t evicted = 0;   // graphs dropped past the count or byte bound (least recently used)
  std::int64_t failed = 0;    // captures that failed (that key then runs eagerly)
  std::int64_t bytes = 0;     // what the kept keys hold: their static inputs and outputs
  std::int64_t pool_bytes = 0;  // the shared pool's growth over the captures (its scratch: the largest stage's)
  std::int64_t pool_restarts = 0;  // times the pool alone reached the byte bound: every graph dropped, a fresh pool
};

// Graphs keyed by a string (stage and padded shape), all in one memory pool
// (stages replay one after another, never at once, so they can share it; the
// pool holds about the largest stage's activations, not the sum). Bounded by
// count and by bytes (cache_budget.h): a key's bytes are its static inputs and
// outputs, which evicting it frees (the outputs back into the pool, for later
// captures). The pool's scratch is shared and stays while any graph does
// (stats().pool_bytes, its growth over the captures: about the largest stage
// recorded, if the largest are recorded first); when eviction leaves no graph,
// the pool goes with the last one and a fresh one is started; and when the
// pool alone reaches the byte bound before a capture, every other graph is
// dropped so that the capture starts a fresh pool (pool_restarts). After each capture the blocks the key's eager first
// call left cached are given back to the device (ReleaseCachedDeviceMemory).
// Not thread-safe: the owner serializes calls.
class GraphCache {
 public:
  using Body = std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>;

  // At most `capacity` keys and `max_bytes` bytes (0: no byte bound).
  explicit GraphCache(std::size_t capacity, std::int64_t max_bytes = 0);
  ~GraphCache();
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  // Whether this build can capture graphs on `device` (CUDA, libtorch with CUDA).
  static bool Supported(const torch::Device& device);

  // `body` on copies of `inputs` kept in static buffers of the key (same shapes
  // and dtypes every call of a key): the first call of a key runs it eagerly, the
  // second records it and replays, later ones replay. The outputs are the key's
  // static buffers, valid until the next Run: copy what you keep.
  std::vector<torch::Tensor> Run(const std::string& key, const std::vector<torch::Tensor>& inputs, const Body& body);

  const GraphCacheStats& stats() const { return stats_; }

 private:
  struct Entry;
  struct Pool;
  // Frees the least recently used keys past the budget (never the last one).
  void Evict();

  CacheBudget budget_;
  std::vector<std::unique_ptr<Entry>> entries_;  // most recently used last
  std::unique_ptr<Pool> pool_;
  GraphCacheStats stats_;
};

}  // namespace lingcast::neural
