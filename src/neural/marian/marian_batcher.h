// MarianBatcher: one decode for many live sessions.
//
// Each session (a thread) asks for one line at a time. Decoding lines one by one
// leaves a GPU mostly idle (a batch-1 decode step costs about what a batch-16
// step does), so the batcher gathers the requests that arrive within a short
// window, up to a maximum batch, pads them together and runs them as ONE
// MarianModel::Generate (greedy on the static path: GenerateBucketed, the lines
// padded to the source-length bucket and the rows to a power of two, so that on
// CUDA a batch of a seen shape replays its kept CUDA graph), then hands every
// caller its own token sequence. Results are the ones each line gets
// decoded alone (tested on the CPU fixtures: exactly the same tokens).
//
// - The window starts when the batch's first request arrives: a request that
//   queued while the previous batch was decoding goes in the next batch at once,
//   so under load batches form without waiting, and a lone request waits at most
//   `window`.
// - Errors stay per request: a request that fails the whole batch (a token id
//   outside the vocabulary, a line longer than the position table) is found by
//   decoding that batch's lines one by one, so only it fails (with the model's
//   NeuralError); the others get their results.
// - A request whose stop_token is requested before its batch starts, or while
//   it decodes, fails with kCancelled (one row cannot leave a running batch: the
//   batch finishes, the row's result is dropped).
// - The destructor fails every queued request with kCancelled, stops the batch
//   in flight (its requests fail with kCancelled too) and joins the thread.
//
// Model code (neural_core, built on the GPU machine without absl): errors are
// NeuralError exceptions carried by the futures; a std::mutex guards the queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

#include "neural/core/generation.h"
#include "neural/core/thread_annotations.h"
#include "neural/marian/marian_model.h"

namespace lingcast::neural {

struct MarianBatcherOptions {
  // How long a batch's first request waits for others. 2 ms is well under one
  // decode step of OPUS-MT base on a CPU and a small part of a line's decode on a
  // GPU (~30 ms for 64 tokens), so a lone session pays little for it.
  std::chrono::microseconds window{2000};
  // Most lines in one decode: beyond 32 OPUS-MT base on an H200 gains little
  // throughput per line and every line in the batch waits for the longest.
  std::int64_t max_batch = 32;
  // Greedy on the static path: pad lines to the source-length bucket and decode
  // with GenerateBucketed (kept decoders and graphs). false: pad to the batch's
  // longest line and call Generate (what the batcher did before; for comparison).
  bool pad_to_buckets = true;
};

// What the batcher has done (for tests and benchmarks).
struct MarianBatcherStats {
  std::int64_t requests = 0;       // finished, successfully or not
  std::int64_t batches = 0;        // batched decodes started
  std::int64_t largest_batch = 0;  // most requests in one decode
  std::int64_t retried_alone = 0;  // batches that failed and were decoded line by line
};

class MarianBatcher {
 public:
  // `generation` is what every request is decoded with (stop is replaced by the
  // batcher's own). Starts the decode thread.
  MarianBatcher(std::shared_ptr<const MarianModel> model, GenerationOptions generation,
                MarianBatcherOptions options = {});
  ~MarianBatcher();
  MarianBatcher(const MarianBatcher&) = delete;
  MarianBatcher& operator=(const MarianBatcher&) = delete;

  // `source_ids`: one line as MarianTokenizer::Encode gives it (eos last). The
  // future holds the generated sequence (the decoder start token first), or
  // throws NeuralError: kInvalidArgument for an empty line or one the model
  // refuses, kCancelled as described above. Thread-safe.
  std::future<std::vector<std::int64_t>> Submit(std::vector<std::int64_t> source_ids, std::stop_token stop = {});

  // Submit and wait: what one session calls.
  std::vector<std::int64_t> Translate(std::vector<std::int64_t> source_ids, std::stop_token stop = {}) {
    return Submit(std::move(source_ids), stop).get();
  }

  MarianBatcherStats stats() const;
  const MarianBatcherOptions& options() const { return options_; }

 private:
  struct Request {
    std::vector<std::int64_t> source_ids;
    std::stop_token stop;
    std::promise<std::vector<std::int64_t>> result;
    std::chrono::steady_clock::time_point arrived;
  };

  void Run(std::stop_token shutdown);
  // Takes the next batch, waiting for its window; empty once shutting down.
  std::vector<Request> NextBatch(std::stop_token shutdown);
  void Decode(std::vector<Request>& batch, std::stop_token shutdown);
  std::vector<std::vector<std::int64_t>> Generate(const std::vector<Request*>& rows, std::stop_token shutdown) const;

  const std::shared_ptr<const MarianModel> model_;
  const GenerationOptions generation_;
  const MarianBatcherOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable_any queued_;  // a request arrived, or shutdown
  std::deque<Request> queue_ ABSL_GUARDED_BY(mutex_);
  MarianBatcherStats stats_ ABSL_GUARDED_BY(mutex_);

  std::jthread worker_;  // last: started after, and joined before, the members it uses
};

}  // namespace lingcast::neural
