// WhisperStepBatcher: the decode steps of many sessions as one pass.
//
// The server's sessions share one WhisperModel (app/engine_cache.h) and decode
// on their own threads. A decode step adds one token per row; alone, it reads
// every decoder weight for that one row, and on a CPU the reading is most of
// the step's cost. The batcher joins the steps that live decoders ask for at
// about the same time into one pass over the weights (the linear layers over
// all rows at once; each decoder's attention over its own cache, position and
// encoder output: PreNormDecoderLayer's many-decoder form), and hands each
// caller its own logits. Search, Whisper's rules and everything else stay on
// the caller's thread, so a request decodes the same tokens batched or alone
// (up to the rounding of a product over more rows).
//
// - Who computes: the first caller to find no pass running leads. It waits for
//   a step from every other live decoder (a decoder is live from
//   WhisperModel::StartDecoder until its state is destroyed), at most `window`
//   after the oldest waiting step arrived, then runs the oldest waiting steps up
//   to `max_rows` rows; its own step may be left for the next pass. A decoder
//   alone runs at once, the way it ran before the batcher (no wait, no copy),
//   and so does every step while no more decoders are live than
//   StepBatchingOptions::join_above_live_decoders.
// - Fairness: a decoder has at most one step waiting (its caller blocks), and
//   a pass takes the oldest first, so a step runs at the latest in pass
//   1 + ceil(rows waiting before it / max_rows) after the one running when it
//   came. A session decoding a long window cannot hold another back by more.
// - Errors stay per decoder: a step that cannot run (a token outside the
//   vocabulary, a decoder at its capacity) fails alone before joining a pass; a
//   failure inside a pass fails every step in it (each caller gets it).
// - The eager step path only (CPU, and beam search on CUDA): CUDA's static
//   greedy path replays a graph per request and is not batched here.
//
// Model code (neural_core, built on the GPU machine without absl): errors are
// NeuralError exceptions; a std::mutex guards the waiting steps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>

#include <torch/types.h>

#include "neural/core/model_options.h"
#include "neural/core/thread_annotations.h"

namespace lingcast::neural {

class WhisperModel;
class WhisperDecoderState;

// What the batcher has done (for tests, benchmarks and metrics).
struct StepBatchingStats {
  std::int64_t steps = 0;          // steps run, alone or joined
  std::int64_t passes = 0;         // passes over the weights (a step alone is one)
  std::int64_t joined_steps = 0;   // steps that shared their pass with another decoder's
  std::int64_t largest_pass = 0;   // most decoders in one pass
};

class WhisperStepBatcher {
 public:
  WhisperStepBatcher(const WhisperModel& model, StepBatchingOptions options) : model_(model), options_(options) {}
  WhisperStepBatcher(const WhisperStepBatcher&) = delete;
  WhisperStepBatcher& operator=(const WhisperStepBatcher&) = delete;

  // A decoder state is live from Join to Leave (its constructor and destructor).
  void Join();
  void Leave();

  // One step of `state` (tokens: (N) ids, N its rows) -> logits (N, V) float32,
  // run alone or in a pass with other live decoders' steps. Thread-safe; blocks.
  torch::Tensor Step(WhisperDecoderState& state, const torch::Tensor& tokens);

  StepBatchingStats stats() const;
  const StepBatchingOptions& options() const { return options_; }

 private:
  struct Waiting {
    WhisperDecoderState* state;
    torch::Tensor tokens;
    std::chrono::steady_clock::time_point arrived;
    bool taken = false, done = false;
    torch::Tensor logits;
    std::exception_ptr error;
  };

  // Batching is on and more decoders are live than options_.join_above_live_decoders.
  bool JoinsSteps() const ABSL_LOCKS_EXCLUDED(mutex_);
  // Every live decoder has a step waiting, or the waiting rows fill a pass.
  bool Ready() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Leads one pass: waits for Ready or the window, takes the oldest steps, runs
  // them with the lock released. `lock` holds mutex_ on entry and on return.
  void LeadPass(std::unique_lock<std::mutex>& lock) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const WhisperModel& model_;
  const StepBatchingOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a step arrived or finished, a decoder left, a pass ended
  std::deque<Waiting*> waiting_ ABSL_GUARDED_BY(mutex_);  // oldest first; owned by the callers' frames
  std::int64_t live_ ABSL_GUARDED_BY(mutex_) = 0;
  bool leading_ ABSL_GUARDED_BY(mutex_) = false;  // a caller is gathering or running a pass
  StepBatchingStats stats_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace lingcast::neural
