// CUDA graphs for decode steps: a step's kernels recorded once and replayed with
// one launch, so a step costs the GPU's time rather than the host's hundreds of
// kernel launches. Built when libtorch has CUDA (LINGCAST_HAVE_CUDA_GRAPHS, set
// by src/neural/CMakeLists.txt); elsewhere (Debian's CPU libtorch) Supported()
// is false and callers run the step eagerly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <torch/types.h>

namespace lingcast::neural {

// Puts the calling thread's CUDA work on `device` onto a side stream for the
// scope (graphs cannot be captured on the default stream), ordered after what
// the caller's stream had queued, and the caller's stream after it when the scope
// ends (device-side waits: neither blocks the host). A no-op for a CPU device or
// a build without CUDA graphs.
class SideStreamScope {
 public:
  explicit SideStreamScope(const torch::Device& device);
  ~SideStreamScope();
  SideStreamScope(const SideStreamScope&) = delete;
  SideStreamScope& operator=(const SideStreamScope&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One captured step over static buffers: every tensor the step reads or writes
// must outlive the graph and keep its storage.
class StepGraph {
 public:
  StepGraph();
  ~StepGraph();
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;

  // Whether this build can capture graphs on `device` (CUDA, libtorch with CUDA).
  static bool Supported(const torch::Device& device);
  // Records one call of `step` (inside a SideStreamScope): its kernels are
  // recorded, not run. False, with the reason in `why`, when capture fails (an
  // operation that waits for the host, say); nothing was run then either.
  bool Capture(const std::function<void()>& step, std::string& why);
  bool captured() const;
  // Device memory the capture reserved (its private pool: the step's
  // intermediates), measured as the allocator's growth across it; 0 without CUDA.
  std::int64_t pool_bytes() const;
  // Runs the recorded step on the current stream.
  void Replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lingcast::neural
