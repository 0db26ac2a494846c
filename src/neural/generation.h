// Generation: greedy and beam search over any step-wise decoder, computing what
// transformers' generate() computes (the same logits processors, stopping rules,
// beam bookkeeping and length penalty), so token sequences match it exactly.
#pragma once

#include <cstdint>
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
};

enum class EarlyStopping {
  kHeuristic,  // transformers' early_stopping=False (the default)
  kWhenFull,   // early_stopping=True: stop once num_beams hypotheses are finished
  kNever,      // early_stopping="never"
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
  std::stop_token stop;  // checked before every step: kCancelled when requested
};

// Each result starts with the start token and ends with eos (or stops at
// max_new_tokens). `decoder` must have `batch` rows.
std::vector<std::vector<std::int64_t>> GreedySearch(StepDecoder& decoder, std::int64_t batch,
                                                    const GenerationOptions& options);
// `decoder` must have batch * num_beams rows, each input's beams together.
std::vector<std::vector<std::int64_t>> BeamSearch(StepDecoder& decoder, std::int64_t batch,
                                                  const GenerationOptions& options);

}  // namespace lingcast::neural
