// CUDA graphs for VITS synthesis. A synthesis is a few hundred small kernels
// (relative attention, spline flows, WaveNet, 70-odd HiFi-GAN convolutions), so
// on a GPU the host's launches, not the arithmetic, set its time. Each stage is
// recorded once per padded length ("bucket") and replayed with one launch.
//
// Lengths vary with every sentence (and with the noise), so a graph per exact
// length would rarely be used twice: lengths are rounded up to buckets (about
// 8 per doubling, at most 1/8 wasted) and the stages compute exactly what they
// compute unpadded on the real positions (vits_model.cc masks the padding).
//
// Built when libtorch has CUDA (LINGCAST_HAVE_CUDA_GRAPHS); elsewhere
// Supported() is false and VitsModel runs eagerly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

namespace lingcast::neural::vits {

// `length` rounded up to its bucket: a multiple of `step` below 16 * step, then
// of `step` times the largest power of two that is at most an eighth of the
// length (so at most 1/8 is padding). Returns `length` for lengths below 1.
std::int64_t BucketLength(std::int64_t length, std::int64_t step);

struct GraphCacheStats {
  std::int64_t eager = 0;     // first call of a key: run eagerly (warm-up)
  std::int64_t captured = 0;  // second call: recorded, then replayed
  std::int64_t replayed = 0;  // later calls
  std::int64_t evicted = 0;   // graphs dropped past the capacity (least recently used)
  std::int64_t failed = 0;    // captures that failed (that key then runs eagerly)
};

// Graphs keyed by a string (stage and padded shape), all in one memory pool
// (stages replay one after another, never at once, so they can share it; the
// pool holds about the largest stage's activations, not the sum). Not
// thread-safe: the owner serializes calls.
class GraphCache {
 public:
  using Body = std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>;

  explicit GraphCache(std::size_t capacity);
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
  std::size_t capacity_;
  std::vector<std::unique_ptr<Entry>> entries_;  // most recently used last
  std::unique_ptr<Pool> pool_;
  GraphCacheStats stats_;
};

}  // namespace lingcast::neural::vits
