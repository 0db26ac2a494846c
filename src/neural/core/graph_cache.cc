#include "neural/core/graph_cache.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "neural/core/cuda_graph.h"
#include "neural/core/neural_error.h"

#ifdef LINGCAST_HAVE_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <cuda_runtime_api.h>
#endif

namespace lingcast::neural {

std::int64_t BucketLength(std::int64_t length, std::int64_t step) {
  if (length < 1 || step < 1) return length;
  std::int64_t granule = step;
  while (granule * 16 <= length) granule *= 2;  // granule <= length / 8 past 8 steps
  return (length + granule - 1) / granule * granule;
}

#ifdef LINGCAST_HAVE_CUDA_GRAPHS

struct GraphCache::Pool {
  at::cuda::MempoolId_t id = at::cuda::graph_pool_handle();
};

struct GraphCache::Entry {
  std::string key;
  std::vector<torch::Tensor> inputs, outputs;
  std::int64_t calls = 0;
  std::int64_t bytes = 0;
  bool failed = false;
  std::unique_ptr<at::cuda::CUDAGraph> graph;
};

bool GraphCache::Supported(const torch::Device& device) { return device.is_cuda(); }

GraphCache::GraphCache(std::size_t capacity, std::int64_t max_bytes)
    : budget_{std::max<std::size_t>(capacity, 1), max_bytes} {}

void GraphCache::Evict() {
  std::vector<std::int64_t> bytes;
  for (const auto& e : entries_) bytes.push_back(e->bytes);
  const std::size_t evict = EntriesToEvict(bytes, budget_);
  for (std::size_t i = 0; i < evict; ++i) stats_.bytes -= entries_[i]->bytes;
  entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(evict));
  stats_.evicted += static_cast<std::int64_t>(evict);
  // The pool dies with its last graph: a later capture must not name it again
  // (PyTorch asserts), so it gets a fresh one.
  if (evict > 0 && std::none_of(entries_.begin(), entries_.end(), [](const auto& e) { return e->graph != nullptr; })) {
    pool_.reset();
    stats_.pool_bytes = 0;
  }
}

// Graphs first: they hold the pool, whose memory goes when the last one does.
GraphCache::~GraphCache() { entries_.clear(); }

std::vector<torch::Tensor> GraphCache::Run(const std::string& key, const std::vector<torch::Tensor>& inputs,
                                           const Body& body) {
  auto found = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e->key == key; });
  if (found == entries_.end()) {
    auto entry = std::make_unique<Entry>();
    entry->key = key;
    for (const torch::Tensor& input : inputs) entry->inputs.push_back(torch::empty(input.sizes(), input.options()));
    entry->bytes = StorageBytes(entry->inputs);
    stats_.bytes += entry->bytes;
    entries_.push_back(std::move(entry));
    Evict();
  } else {
    std::rotate(found, found + 1, entries_.end());  // most recently used last
  }
  Entry& e = *entries_.back();
  if (e.inputs.size() != inputs.size()) Fail(ErrorCode::kInternal, "graph " + key + ": inputs changed between calls");
  for (std::size_t i = 0; i < inputs.size(); ++i) e.inputs[i].copy_(inputs[i]);
  ++e.calls;
  if (e.failed || e.calls == 1) {
    // The first call warms up (cuDNN and cuBLAS pick their kernels and
    // workspaces outside the capture); a key whose capture failed stays eager.
    ++stats_.eager;
    return body(e.inputs);
  }
  if (!e.graph) {
    if (budget_.max_bytes > 0 && stats_.pool_bytes >= budget_.max_bytes) {
      // The shared pool alone fills the budget, and no eviction short of every
      // graph frees any of it: all the others go (recorded again when they come
      // back), and this capture starts a fresh pool.
      stats_.evicted += static_cast<std::int64_t>(entries_.size() - 1);
      for (std::size_t i = 0; i + 1 < entries_.size(); ++i) stats_.bytes -= entries_[i]->bytes;
      entries_.erase(entries_.begin(), entries_.end() - 1);
      pool_.reset();
      stats_.pool_bytes = 0;
      ++stats_.pool_restarts;
    }
    if (!pool_) pool_ = std::make_unique<Pool>();
    e.graph = std::make_unique<at::cuda::CUDAGraph>();
    const torch::Device device = inputs.empty() ? torch::Device(torch::kCUDA) : inputs[0].device();
    const std::int64_t reserved_before = ReservedDeviceBytes(device);
    std::string why;
    try {
      // Captured on a side stream (not the default stream); replayed on the caller's.
      SideStreamScope side_stream(device);
      // Thread-local: other threads' CUDA work (another engine's decode) may go on.
      e.graph->capture_begin(pool_->id, cudaStreamCaptureModeThreadLocal);
      try {
        e.outputs = body(e.inputs);
        e.graph->capture_end();
      } catch (const std::exception& inner) {
        why = inner.what();
        try {
          e.graph->capture_end();
        } catch (const std::exception&) {
          // The capture was already invalid: ending it is all that was needed.
        }
      }
    } catch (const std::exception& begin) {
      why = begin.what();
    }
    if (!why.empty()) {
      e.graph.reset();
      e.outputs.clear();
      cudaGetLastError();  // clears the capture's error state
      e.failed = true;
      ++stats_.failed;
      std::fprintf(stderr, "lingcast neural: CUDA graph capture of %s failed (%s); running it eagerly\n",
                   key.c_str(), why.c_str());
      ++stats_.eager;
      return body(e.inputs);
    }
    ++stats_.captured;
    stats_.pool_bytes += std::max<std::int64_t>(ReservedDeviceBytes(device) - reserved_before, 0);
    const std::int64_t outputs = StorageBytes(e.outputs);
    e.bytes += outputs;
    stats_.bytes += outputs;
    Evict();  // the key just captured is last: never itself evicted
    ReleaseCachedDeviceMemory(device);
  } else {
    ++stats_.replayed;
  }
  e.graph->replay();
  return e.outputs;
}

#else  // no CUDA graphs in this libtorch: every call is eager

struct GraphCache::Pool {};
struct GraphCache::Entry {};

bool GraphCache::Supported(const torch::Device&) { return false; }
GraphCache::GraphCache(std::size_t capacity, std::int64_t max_bytes) : budget_{capacity, max_bytes} {}
void GraphCache::Evict() {}
GraphCache::~GraphCache() = default;

std::vector<torch::Tensor> GraphCache::Run(const std::string&, const std::vector<torch::Tensor>& inputs,
                                           const Body& body) {
  ++stats_.eager;
  return body(inputs);
}

#endif

}  // namespace lingcast::neural
