// The eviction rule of the caches that keep CUDA-graph state across calls
// (GraphCache: VITS stages and Whisper's encoder; MarianDecoderCache: kept
// Marian decoders): at most `max_entries` entries AND at most `max_bytes` bytes,
// least recently used freed first. The count alone bounded them before, but an
// entry's size varies a hundredfold (a Marian decoder at batch 1 holds ~10 MB, at
// batch 32 ~200 MB), so a count that suits small entries lets big ones fill the
// GPU. Pure arithmetic, so the policy is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace lingcast::neural {

struct CacheBudget {
  std::size_t max_entries = 1;  // at least 1 is kept
  std::int64_t max_bytes = 0;   // 0 (or less): no bound in bytes
};

// How many entries to free from the front of `bytes_lru_first` (each entry's
// bytes, least recently used first, the one just used last) so that the rest
// fits `budget`. The last entry is never freed, even when it alone is over
// max_bytes: it is the one the caller is using (and its graph would otherwise be
// recorded on every call and never replayed).
std::size_t EntriesToEvict(const std::vector<std::int64_t>& bytes_lru_first, const CacheBudget& budget);

// Bytes of the distinct storages behind `tensors` (views of one storage counted
// once; undefined tensors skipped).
std::int64_t StorageBytes(const std::vector<torch::Tensor>& tensors);

// What PyTorch's caching allocator has reserved on `device` (cudaMalloc'd
// segments, graph pools included); 0 on the CPU or without CUDA in this build.
// The caches count an entry's graph pool as the growth of this across its capture.
std::int64_t ReservedDeviceBytes(const torch::Device& device);

// Gives the blocks PyTorch's caching allocator holds but no tensor uses back to
// the device (emptyCache): after a warm-up or a graph capture, whose eager runs
// leave their peak cached though replays never need it again. It waits for the
// device, so it is called once per capture or warm-up, never per call. A no-op on
// the CPU or without CUDA.
void ReleaseCachedDeviceMemory(const torch::Device& device);

}  // namespace lingcast::neural
