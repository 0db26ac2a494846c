#include "neural/core/cuda_graph.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <vector>

#include "neural/core/cache_budget.h"

#include "neural/core/neural_error.h"

#ifdef LINGCAST_HAVE_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

namespace lingcast::neural {

#ifdef LINGCAST_HAVE_CUDA_GRAPHS

namespace {
// Makes `waiting` run what is queued after everything queued on `first` so far,
// without the host waiting.
void StreamWaits(const c10::cuda::CUDAStream& waiting, const c10::cuda::CUDAStream& first) {
  cudaEvent_t event = nullptr;
  C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  C10_CUDA_CHECK(cudaEventRecord(event, first.stream()));
  C10_CUDA_CHECK(cudaStreamWaitEvent(waiting.stream(), event, 0));
  C10_CUDA_CHECK(cudaEventDestroy(event));  // released once the wait is done
}
}  // namespace

namespace {
// The calling thread's side stream on device `index`, the same for all its
// captures. cuBLAS keeps a workspace per handle (one per thread) and stream, 32
// MiB on Hopper: with a new pool stream per scope (PyTorch's round robin over 32)
// each thread ended up with up to 32 of them (measured on an H200 with the three
// engines: ~700 MiB of the allocator's memory, src/neural/README.md). One
// stream per thread keeps one; a thread never captures twice at once, so its
// captures never share the stream concurrently.
c10::cuda::CUDAStream ThreadSideStream(c10::DeviceIndex index) {
  thread_local std::vector<std::optional<c10::cuda::CUDAStream>> streams;
  const auto slot = static_cast<std::size_t>(index);
  if (streams.size() <= slot) streams.resize(slot + 1);
  if (!streams[slot]) streams[slot] = c10::cuda::getStreamFromPool(false, index);
  return *streams[slot];
}

c10::DeviceIndex IndexOf(const torch::Device& device) {
  return device.has_index() ? device.index() : c10::cuda::current_device();
}
}  // namespace

struct SideStreamScope::Impl {
  explicit Impl(const torch::Device& device)
      : before(c10::cuda::getCurrentCUDAStream(IndexOf(device))),
        stream(ThreadSideStream(IndexOf(device))),
        guard(stream) {}
  c10::cuda::CUDAStream before;
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard guard;
};

SideStreamScope::SideStreamScope(const torch::Device& device) {
  if (!device.is_cuda()) return;
  impl_ = std::make_unique<Impl>(device);
  // The side stream starts after what the caller queued (the encoder's output).
  StreamWaits(impl_->stream, impl_->before);
}

SideStreamScope::~SideStreamScope() {
  if (!impl_) return;
  try {
    // What the caller queues next starts after the side stream's work.
    StreamWaits(impl_->before, impl_->stream);
  } catch (const std::exception&) {
    impl_->stream.synchronize();  // no event to be had: wait for it here instead
  }
}

struct StepGraph::Impl {
  at::cuda::CUDAGraph graph;
  bool captured = false;
  std::int64_t pool_bytes = 0;
};

StepGraph::StepGraph() : impl_(std::make_unique<Impl>()) {}
StepGraph::~StepGraph() = default;

bool StepGraph::Supported(const torch::Device& device) { return device.is_cuda(); }

bool StepGraph::Capture(const std::function<void()>& step, std::string& why) {
  const torch::Device device(torch::kCUDA, c10::cuda::current_device());
  const std::int64_t reserved_before = ReservedDeviceBytes(device);
  try {
    // Thread-local: other threads' CUDA work (another session's decode) may go on.
    impl_->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
  try {
    step();
    impl_->graph.capture_end();
  } catch (const std::exception& e) {
    why = e.what();
    try {
      impl_->graph.capture_end();
    } catch (const std::exception&) {
      // The capture was already invalid: ending it is all that was needed.
    }
    impl_->graph.reset();
    cudaGetLastError();  // clears the capture's error state
    return false;
  }
  impl_->captured = true;
  impl_->pool_bytes = std::max<std::int64_t>(ReservedDeviceBytes(device) - reserved_before, 0);
  return true;
}

bool StepGraph::captured() const { return impl_->captured; }
std::int64_t StepGraph::pool_bytes() const { return impl_->pool_bytes; }

void StepGraph::Replay() { impl_->graph.replay(); }

#else  // no CUDA graphs in this libtorch

struct SideStreamScope::Impl {};
SideStreamScope::SideStreamScope(const torch::Device&) {}
SideStreamScope::~SideStreamScope() = default;

struct StepGraph::Impl {};
StepGraph::StepGraph() = default;
StepGraph::~StepGraph() = default;
bool StepGraph::Supported(const torch::Device&) { return false; }
bool StepGraph::Capture(const std::function<void()>&, std::string& why) {
  why = "this libtorch was built without CUDA";
  return false;
}
bool StepGraph::captured() const { return false; }
std::int64_t StepGraph::pool_bytes() const { return 0; }
void StepGraph::Replay() { Fail(ErrorCode::kInternal, "StepGraph::Replay without a captured graph"); }

#endif

}  // namespace lingcast::neural
