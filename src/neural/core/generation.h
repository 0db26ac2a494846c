// Generation: greedy and beam search over any step-wise decoder, computing what
// transformers' generate() computes (the same logits processors, stopping rules,
// beam bookkeeping and length penalty), so token sequences match it exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

namespace lingcast::neural {

// A decoder with its caches: one row per running sequence.
class StepDecoder {
 public:
  virtual ~StepDecoder() = default;
  // Feeds each row's newest token (N int64) and returns the next-token logits
  // (N, V) as float32.
  virtual torch::Tensor Step(const torch::Tensor& tokens) = 0;
  // Keeps rows `rows` (int64 indices into the current rows, repeats allowed).
  virtual void Select(const torch::Tensor& rows) = 0;
  // Feeds a prompt of several tokens per row (N, T) and returns the logits after
  // the last (N, V). The default steps one token at a time; a decoder that can
  // run the prompt in one pass (as the reference does) overrides it.
  virtual torch::Tensor Prefill(const torch::Tensor& tokens) {
    torch::Tensor logits;
    for (std::int64_t t = 0; t < tokens.size(1); ++t) logits = Step(tokens.select(1, t).contiguous());
    return logits;
  }
};

// Changes next-token scores (N, V) float32 on the CPU in place, given each row's
// tokens so far (N, cur_len), prompt included: a model's own logits processors
// (Whisper's timestamp rules, suppression at the first step).
using ScoreProcessor = std::function<void(torch::Tensor& scores, const torch::Tensor& sequences)>;

enum class EarlyStopping {
  kHeuristic,  // transformers' early_stopping=False (the default)
  kWhenFull,   // early_stopping=True: stop once num_beams hypotheses are finished
  kNever,      // early_stopping="never"
};

// How greedy search runs (beam search is always eager).
enum class DecodePath {
  kAuto,    // static on CUDA, eager elsewhere
  kEager,   // caches grown step by step; scores come to the host every step
  kStatic,  // static caches and on-device logits processors (StaticGreedySearch);
            // CUDA graphs on CUDA. Needs no process_scores.
};

struct GenerationOptions {
  std::int64_t max_new_tokens = 256;
  std::int64_t num_beams = 1;
  double length_penalty = 1.0;
  EarlyStopping early_stopping = EarlyStopping::kHeuristic;
  std::int64_t start_token_id = 0;  // the decoder start token (Marian: pad)
  std::int64_t eos_token_id = 0;
  std::int64_t pad_token_id = 0;    // fills a finished row (greedy)
  std::optional<std::int64_t> forced_eos_token_id;  // forced at the last position
  std::vector<std::int64_t> suppressed_tokens;      // never generated (bad words)
  // Suppressed at the first position after the prompt only (Whisper's
  // begin_suppress_tokens, SuppressTokensAtBeginLogitsProcessor).
  std::vector<std::int64_t> begin_suppressed_tokens;
  std::stop_token stop;  // checked before every step: kCancelled when requested
  // The decoder prompt every sequence starts with (Whisper: <|startoftranscript|>,
  // language, task, ...); empty: {start_token_id}. max_new_tokens counts after it,
  // and beam scores are normalized by the length generated after it.
  std::vector<std::int64_t> prompt;
  ScoreProcessor process_scores;  // applied after suppressed_tokens; may be empty
  DecodePath path = DecodePath::kAuto;
  bool cuda_graphs = true;  // static path on CUDA: replay the decode step as a CUDA graph
};

// A decoder at static shapes (transformer_layers.h's StaticKvCache): the caches are
// preallocated and written in place at positions held on the device, so a call
// depends on the shapes of its inputs alone and never waits for the host: what a
// CUDA graph captures and replays.
class StaticStepDecoder {
 public:
  virtual ~StaticStepDecoder() = default;
  // Feeds tokens (N, t) int64 at `positions` (t int64), both on device(), and
  // returns their logits (N, t, V) float32.
  virtual torch::Tensor Forward(const torch::Tensor& tokens, const torch::Tensor& positions) = 0;
  virtual torch::Device device() const = 0;
  // Positions the caches hold.
  virtual std::int64_t capacity() const = 0;
};

class StepGraph;

// StaticGreedySearch's buffers and captured decode step kept across calls with
// one decoder, whose caches and cross-attention inputs the caller refills in
// place between calls (MarianDecoderCache): a later call at the same batch, max
// length and vocabulary replays the graph an earlier call captured instead of
// capturing its own (a capture costs tens of ms; a replay, one launch). Filled
// and used by StaticGreedySearch only; other shapes replace what it holds.
struct StaticSearchKeep {
  StaticSearchKeep();
  ~StaticSearchKeep();
  StaticSearchKeep(const StaticSearchKeep&) = delete;
  StaticSearchKeep& operator=(const StaticSearchKeep&) = delete;

  std::vector<std::int64_t> shape;  // batch, max length, pad and eos ids the buffers are for
  torch::Tensor tokens, unfinished, position, suppress;
  std::unique_ptr<StepGraph> graph;
  bool capture_failed = false;  // then every later call decodes eagerly
};

// Whether greedy search under `options` takes the static path on `device`.
bool UseStaticPath(const GenerationOptions& options, const torch::Device& device);

// What a static-path search did (for tests and benchmarks).
struct StaticSearchReport {
  bool cuda_graph = false;     // the steps were replayed from a CUDA graph
  std::int64_t steps = 0;      // decoder calls, the prompt's included
  std::int64_t host_syncs = 0; // waits for the device (the eos checks)
  bool graph_reused = false;   // the graph was captured by an earlier call (StaticSearchKeep)
};

// Each result starts with the start token (or the prompt) and ends with eos (or
// stops at max_new_tokens). `decoder` must have `batch` rows.
std::vector<std::vector<std::int64_t>> GreedySearch(StepDecoder& decoder, std::int64_t batch,
                                                    const GenerationOptions& options);
// Greedy search on the device: the logits processors as additive masks, argmax
// and the eos bookkeeping on the device, the host checking for eos only every
// few steps; on CUDA (with options.cuda_graphs) the step after the prompt is
// captured once as a CUDA graph and replayed (eagerly, with a line on stderr,
// if capture fails). Gives GreedySearch's sequences. kInvalidArgument for
// options it cannot run (beams, a host-side process_scores, more positions than
// the decoder holds). `decoder` must have `batch` rows. With `keep`, the buffers
// and the graph are kept there for the next call with the same decoder.
std::vector<std::vector<std::int64_t>> StaticGreedySearch(StaticStepDecoder& decoder, std::int64_t batch,
                                                          const GenerationOptions& options,
                                                          StaticSearchReport* report = nullptr,
                                                          StaticSearchKeep* keep = nullptr);
// `decoder` must have batch * num_beams rows, each input's beams together.
std::vector<std::vector<std::int64_t>> BeamSearch(StepDecoder& decoder, std::int64_t batch,
                                                  const GenerationOptions& options);

}  // namespace lingcast::neural
