// CpuTensorCache: libtorch's CPU allocator, keeping freed tensor memory for
// the next tensor of about the same size, within a cap.
//
// Why: lingcast sets glibc's mmap threshold to 128 KB for runs of hours
// (core/process_memory.h), so every tensor past 128 KB is a fresh mapping that
// the kernel zero-fills page by page when it is first written, and unmaps when
// it is freed. An engine makes the same tensors again and again (a decode
// step's logits, an encoder's activations, a voice's layers). Measured on 2
// cores (2026-12-07), a 33 s `live` zh->en on the real clock, Whisper base int8
// and the Piper voice, two runs each: without the cache 2.0 million page
// faults, 6.6 s of system time, StartOffset p50 1.97 / 1.83 s, peak RSS 494
// MB; with 64 MB, 0.45 / 0.48 million, 2.5 s, 1.53 / 1.70 s, 557 / 559 MB;
// 128 MB: 0.40 million, 2.3 s, 1.63 / 1.60 s, 615 MB; glibc's own thresholds
// (which keep every activation size the show ever needed, growing over
// hours): 0.19 / 0.22 million, 1.4 s, 1.47 / 1.53 s, 642 / 649 MB. What the
// cache keeps is bounded by its capacity (the least recently freed blocks go
// first), so the process stays as flat over hours.
//
// - Size classes: a request of 128 KB or more is rounded up to 1/8 of its
//   power of two (at least 64 KB), so tensors whose lengths grow a little
//   (an encoder over a growing window) find a block: at most 1/8 wasted.
//   Smaller requests are plain allocations, freed at once (glibc's heap
//   serves those without faults).
// - Capacity: freed blocks are kept while their sum stays within it; a block
//   larger than the capacity is freed at once.
// - Every block is 64-byte aligned, as libtorch's own allocator aligns them.
//   A 64-byte header in front of it names its cache and size class, so the
//   deleter (a plain function pointer) needs no lookup.
// - Thread-safe: sessions allocate from their own threads; one mutex guards
//   the free lists (an uncontended lock is tens of ns, a page fault a few µs).
//
// Model code (neural_core, built on the GPU machine without absl): no
// absl::Status; a bad setting is reported by ParseCpuTensorCacheMegabytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <c10/core/Allocator.h>
#include <torch/version.h>

#include "neural/core/thread_annotations.h"

namespace lingcast::neural {

// The capacity when LINGCAST_CPU_TENSOR_CACHE_MB is not set.
// Most of the page faults saved (above) for a bounded 63 MB more at the peak.
inline constexpr std::size_t kDefaultCpuTensorCacheMegabytes = 64;
// Requests below this are not kept (glibc's heap serves them without faults).
inline constexpr std::size_t kSmallestCachedTensorBytes = 128 * 1024;

struct CpuTensorCacheStats {
  std::int64_t requests = 0;    // allocations of a cached size class
  std::int64_t hits = 0;        // of those, served by a freed block
  std::int64_t evictions = 0;   // freed blocks given back to the system to stay within the capacity
  std::size_t cached_bytes = 0;  // freed blocks kept now
};

class CpuTensorCache final : public c10::Allocator {
 public:
  explicit CpuTensorCache(std::size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}
  // Gives back every kept block. Tensors it made must be gone by then.
  ~CpuTensorCache() override;
  CpuTensorCache(const CpuTensorCache&) = delete;
  CpuTensorCache& operator=(const CpuTensorCache&) = delete;

  // Throws std::bad_alloc when the system has no memory left.
  // PyTorch 2.3 made allocate non-const and added copy_data; Debian's 1.13 has neither.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  c10::DataPtr allocate(std::size_t bytes) override;
  void copy_data(void* destination, const void* source, std::size_t count) const override {
    default_copy_data(destination, source, count);
  }
#else
  c10::DataPtr allocate(std::size_t bytes) const override;
#endif
  // The data pointer is its own context (raw_allocate asks for that).
  c10::DeleterFnPtr raw_deleter() const override { return &Release; }

  // The block size a request of `bytes` is rounded to; `bytes` itself when it
  // is too small to be kept.
  static std::size_t SizeClass(std::size_t bytes);

  std::size_t capacity_bytes() const { return capacity_bytes_; }
  CpuTensorCacheStats stats() const;

 private:
  struct FreeBlock {
    void* base;
    std::size_t bytes;
  };
  using FreeList = std::list<FreeBlock>;

  static void Release(void* data);
  // Takes a freed block of `bytes` back, or frees it (beyond the capacity).
  void Keep(void* base, std::size_t bytes) const;
  void* TakeOrAllocate(std::size_t bytes) const;

  const std::size_t capacity_bytes_;
  mutable std::mutex mutex_;
  // Least recently freed last; the free blocks of each size class point into it.
  mutable FreeList free_blocks_ ABSL_GUARDED_BY(mutex_);
  mutable std::unordered_map<std::size_t, std::vector<FreeList::iterator>> free_by_size_ ABSL_GUARDED_BY(mutex_);
  mutable CpuTensorCacheStats stats_ ABSL_GUARDED_BY(mutex_);
};

// LINGCAST_CPU_TENSOR_CACHE_MB's value: a whole number of MB, 0 for no cache;
// nullopt for anything else (empty, negative, not a number, trailing text).
std::optional<std::size_t> ParseCpuTensorCacheMegabytes(const std::string& text);

// Makes a CpuTensorCache libtorch's CPU allocator, once per process (later
// calls return the first call's answer). Capacity: LINGCAST_CPU_TENSOR_CACHE_MB,
// else kDefaultCpuTensorCacheMegabytes; 0 leaves libtorch's own allocator.
// An invalid value keeps the default and says so on stderr. Returns the
// installed cache, or nullptr with none.
const CpuTensorCache* InstallCpuTensorCache();

}  // namespace lingcast::neural
