// What every transformer model here (Marian, Whisper) is loaded with: device,
// dtype, int8 weights and the kernel that multiplies them, and the device memory
// its CUDA-graph paths may keep.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <torch/types.h>

#include "neural/core/quantization.h"

namespace lingcast::neural {

// Whisper: the decode steps of concurrent requests on one model (the server's
// sessions) joined into one pass (whisper/whisper_step_batcher.h). Marian
// batches whole lines instead (marian/marian_batcher.h).
struct StepBatchingOptions {
  // Off by default: on an idle 2-core machine (whisper_sessions_bench, Whisper
  // base int8, 2026-12-06) sessions decoding alone, each on its own thread,
  // finished sooner than batched ones: 1.77x the wall time batched with 2
  // sessions, 1.28x with 3, though a pass of 2 decoders costs 0.79x of two
  // steps. Alone, the sessions' steps and encoders run on both cores at once;
  // batched, the others wait while the leading thread runs the pass.
  bool enabled = false;
  // Steps join only while more decoders than this are live; with this many or
  // fewer, each step runs alone at once, as with batching off. 0: whenever two
  // are. The Whisper plug-in sets twice the CPU threads on the CPU: there,
  // whisper_sessions_bench (2 cores, int8, 2026-12-07) took 1.26x the wall time
  // batched with 2 sessions, 1.12x and 1.04x with 4, but 0.94x with 5 and 0.68x
  // and 0.74x with 6, where the sessions' own threads oversubscribe the cores.
  std::int64_t join_above_live_decoders = 0;
  // How long a step waits for the other live decoders' steps. A whisper base
  // int8 step on 2 CPU cores takes several ms (11.8 ms in whisper_sessions_bench
  // with one core busy elsewhere); 1 ms covers the work a caller does
  // between steps (choosing a token), so decoders in step join without a
  // decoder that is busy elsewhere (a long prompt) holding the rest back long.
  std::chrono::microseconds window{1000};
  // Most rows (decoders x beams) in one pass: past ~16 a CPU pass costs about
  // as much per row as alone, and each row waits for the whole pass.
  std::int64_t max_rows = 16;
};

struct ModelOptions {
  torch::Device device = torch::kCPU;
  torch::ScalarType dtype = torch::kFloat;  // kFloat, or kHalf / kBFloat16 on a GPU
  // kInt8: every linear layer's weight (attention, feed-forward, and the output
  // projection with the embedding table tied to it) stored as int8 with one scale
  // per output row; activations stay in `dtype` (quantization.h). Default: off.
  Quantization quantization = Quantization::kNone;
  Int8Kernel int8_kernel = Int8Kernel::kAuto;  // how a quantized product runs
  // Device memory the model may keep across calls for its CUDA-graph paths
  // (Marian: the kept decoders; Whisper: the encoder's graphs), least recently
  // used freed past it (cache_budget.h); 0: bounded by count only. Default 256 MiB.
  std::int64_t graph_cache_bytes = kDefaultGraphCacheBytes;
  static constexpr std::int64_t kDefaultGraphCacheBytes = std::int64_t{256} << 20;
  StepBatchingOptions step_batching;  // Whisper only (above)
};

// Refuses what int8 quantization cannot do (a dtype other than float32, float16
// or bfloat16) with one line naming the option; `what` names the model.
void CheckModelOptions(const ModelOptions& options, const std::string& what);

}  // namespace lingcast::neural
