// What the CUDA renderer stands on: whether this build has it, whether a GPU is
// there, and RAII owners of device memory, pinned host memory and streams whose
// errors come back as absl::Status naming the CUDA error.
//
// The first two functions exist in every build; the rest only where the CUDA
// renderer is compiled in (LINGCAST_HAVE_CUDA_RENDERER, see docs/gpu.md). The
// runtime is linked statically, so a binary built with it still starts on a
// machine with no NVIDIA driver: CudaDeviceUsable() then says why not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#if LINGCAST_HAVE_CUDA_RENDERER
#include <cuda_runtime_api.h>
#endif

namespace lingcast {

// True when this binary was built with the CUDA renderer.
bool CudaRendererBuilt();

// OK when the CUDA renderer can draw here; else FailedPrecondition (a build
// without it) or Unavailable (no driver, no device), saying which. The answer
// is asked of the driver once and remembered.
absl::Status CudaDeviceUsable();

// "NVIDIA H200 (sm_90, 139 GiB)" for device 0, or the reason there is none.
absl::StatusOr<std::string> CudaDeviceDescription();

// Device 0's memory in use by every process on it, and its size, in MB (what
// the watchdogs read: a device runs out whoever holds it). The first call in
// a process that has not used the GPU yet makes a CUDA context (hundreds of
// MB and a fraction of a second), so only processes that use the GPU ask.
struct CudaMemory {
  double used_mb = 0;
  double total_mb = 0;
};
absl::StatusOr<CudaMemory> CudaDeviceMemory();

#if LINGCAST_HAVE_CUDA_RENDERER

// OK for cudaSuccess, else Internal "<what>: <CUDA error name>: <description>".
absl::Status CudaStatus(cudaError_t error, absl::string_view what);

// Device memory, freed when the owner goes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static absl::StatusOr<DeviceBuffer> Allocate(size_t bytes);

  void* data() const { return memory_.get(); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(memory_.get());
  }
  size_t size() const { return size_; }
  // Zeroes the whole buffer (in `stream`'s order).
  absl::Status Clear(cudaStream_t stream) const;

 private:
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> memory_;
  size_t size_ = 0;
};

// Page-locked host memory: what a device copy can run asynchronously from.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  static absl::StatusOr<PinnedBuffer> Allocate(size_t bytes);

  uint8_t* data() const { return static_cast<uint8_t*>(memory_.get()); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> memory_;
  size_t size_ = 0;
};

// A non-blocking stream; Synchronize() returns the first error of the work on it.
// Pinned host memory that copies to the device go through. From pageable
// memory the driver stages a copy itself and the call returns only once it
// has, which can mean waiting for the stream's earlier work: a frame's uploads
// then stall the frame before it in flight. Through this, the copy is
// asynchronous. One staging serves one batch of copies at a time: Acquire
// waits until the device has read what the previous batch put there.
class HostStaging {
 public:
  // At least `bytes` of pinned memory (grown as needed), free to write.
  absl::StatusOr<uint8_t*> Acquire(size_t bytes);
  // The copies out of the buffer since Acquire are enqueued on `stream`.
  absl::Status Enqueued(cudaStream_t stream);

 private:
  struct DestroyEvent {
    void operator()(cudaEvent_t e) const;
  };
  PinnedBuffer buffer_;
  std::unique_ptr<CUevent_st, DestroyEvent> read_;  // recorded after the last batch's copies
  bool pending_ = false;
};

class CudaStream {
 public:
  static absl::StatusOr<CudaStream> Create();
  cudaStream_t get() const { return stream_.get(); }
  absl::Status Synchronize() const;

 private:
  struct Destroy {
    void operator()(cudaStream_t s) const;
  };
  std::unique_ptr<CUstream_st, Destroy> stream_;
};

#endif  // LINGCAST_HAVE_CUDA_RENDERER

}  // namespace lingcast
