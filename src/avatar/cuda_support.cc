#include "avatar/cuda_support.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lingcast {

#if LINGCAST_HAVE_CUDA_RENDERER

bool CudaRendererBuilt() { return true; }

absl::Status CudaStatus(cudaError_t error, absl::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat(what, ": CUDA error ", cudaGetErrorName(error), ": ", cudaGetErrorString(error)));
}

namespace {

// Asked once per process: the answer cannot change while it runs, and a
// machine without a driver answers slowly.
absl::Status ProbeDevice() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return absl::UnavailableError(absl::StrCat("no CUDA GPU: ", cudaGetErrorName(error), ": ",
                                               cudaGetErrorString(error)));
  }
  if (count == 0) return absl::UnavailableError("no CUDA GPU: the driver reports no device");
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaDeviceUsable() {
  static const absl::Status* const usable = new absl::Status(ProbeDevice());
  return *usable;
}

absl::StatusOr<std::string> CudaDeviceDescription() {
  if (absl::Status usable = CudaDeviceUsable(); !usable.ok()) return usable;
  cudaDeviceProp prop{};
  if (absl::Status s = CudaStatus(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties"); !s.ok()) return s;
  return absl::StrFormat("%s (sm_%d%d, %d GiB)", prop.name, prop.major, prop.minor,
                         static_cast<int>(prop.totalGlobalMem >> 30));
}

absl::StatusOr<CudaMemory> CudaDeviceMemory() {
  if (absl::Status usable = CudaDeviceUsable(); !usable.ok()) return usable;
  size_t free_bytes = 0, total_bytes = 0;
  if (absl::Status s = CudaStatus(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"); !s.ok()) return s;
  constexpr double kMb = 1024.0 * 1024.0;
  return CudaMemory{static_cast<double>(total_bytes - free_bytes) / kMb, static_cast<double>(total_bytes) / kMb};
}

void DeviceBuffer::Free::operator()(void* p) const { cudaFree(p); }

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(size_t bytes) {
  DeviceBuffer buffer;
  if (bytes == 0) return buffer;
  void* p = nullptr;
  if (absl::Status s = CudaStatus(cudaMalloc(&p, bytes), absl::StrCat("cudaMalloc of ", bytes, " bytes")); !s.ok()) {
    return s;
  }
  buffer.memory_.reset(p);
  buffer.size_ = bytes;
  return buffer;
}

absl::Status DeviceBuffer::Clear(cudaStream_t stream) const {
  if (size_ == 0) return absl::OkStatus();
  return CudaStatus(cudaMemsetAsync(memory_.get(), 0, size_, stream), "cudaMemsetAsync");
}

void PinnedBuffer::Free::operator()(void* p) const { cudaFreeHost(p); }

absl::StatusOr<PinnedBuffer> PinnedBuffer::Allocate(size_t bytes) {
  PinnedBuffer buffer;
  if (bytes == 0) return buffer;
  void* p = nullptr;
  if (absl::Status s = CudaStatus(cudaMallocHost(&p, bytes), absl::StrCat("cudaMallocHost of ", bytes, " bytes"));
      !s.ok()) {
    return s;
  }
  buffer.memory_.reset(p);
  buffer.size_ = bytes;
  return buffer;
}

void HostStaging::DestroyEvent::operator()(cudaEvent_t e) const { cudaEventDestroy(e); }

absl::StatusOr<uint8_t*> HostStaging::Acquire(size_t bytes) {
  if (pending_) {
    if (absl::Status s = CudaStatus(cudaEventSynchronize(read_.get()), "waiting for a staged upload"); !s.ok()) {
      return s;
    }
    pending_ = false;
  }
  if (buffer_.size() < bytes) {
    // Grown by half again, so a batch that grows a little each frame does not reallocate each frame.
    absl::StatusOr<PinnedBuffer> bigger = PinnedBuffer::Allocate(std::max(bytes, buffer_.size() + buffer_.size() / 2));
    if (!bigger.ok()) return bigger.status();
    buffer_ = *std::move(bigger);
  }
  return buffer_.data();
}

absl::Status HostStaging::Enqueued(cudaStream_t stream) {
  if (!read_) {
    cudaEvent_t event = nullptr;
    if (absl::Status s = CudaStatus(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
        !s.ok()) {
      return s;
    }
    read_.reset(event);
  }
  if (absl::Status s = CudaStatus(cudaEventRecord(read_.get(), stream), "cudaEventRecord"); !s.ok()) return s;
  pending_ = true;
  return absl::OkStatus();
}

void CudaStream::Destroy::operator()(cudaStream_t s) const { cudaStreamDestroy(s); }

absl::StatusOr<CudaStream> CudaStream::Create() {
  cudaStream_t s = nullptr;
  if (absl::Status st = CudaStatus(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
      !st.ok()) {
    return st;
  }
  CudaStream stream;
  stream.stream_.reset(s);
  return stream;
}

absl::Status CudaStream::Synchronize() const {
  return CudaStatus(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize");
}

#else  // !LINGCAST_HAVE_CUDA_RENDERER

bool CudaRendererBuilt() { return false; }

absl::Status CudaDeviceUsable() {
  return absl::FailedPreconditionError(
      "this build has no CUDA renderer (no CUDA compiler was found when it was configured, or "
      "-DLINGCAST_CUDA_RENDERER=OFF)");
}

absl::StatusOr<std::string> CudaDeviceDescription() { return CudaDeviceUsable(); }

absl::StatusOr<CudaMemory> CudaDeviceMemory() { return CudaDeviceUsable(); }

#endif  // LINGCAST_HAVE_CUDA_RENDERER

}  // namespace lingcast
