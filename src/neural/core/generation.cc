#include "neural/core/generation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "neural/core/cuda_graph.h"
#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

// The logits processors transformers applies for Marian: bad words (the pad token)
// and the forced eos at the last position. `scores` (N, V) is changed in place.
// `sequences` (N, cur_len) is made only when a model's own processor needs it.
void ProcessScores(torch::Tensor& scores, std::int64_t cur_len, std::int64_t prompt_length, std::int64_t max_length,
                   const GenerationOptions& options, const std::function<torch::Tensor()>& sequences) {
  const double minus_inf = -std::numeric_limits<double>::infinity();
  // One kernel for the whole list (Whisper suppresses ~90 tokens a step; one
  // fill per token was ~90 dispatches on every step).
  auto suppress = [&](const std::vector<std::int64_t>& ids) {
    if (ids.empty()) return;
    scores.index_fill_(1, torch::tensor(ids, torch::kLong).to(scores.device()), minus_inf);
  };
  suppress(options.suppressed_tokens);
  if (cur_len == prompt_length) suppress(options.begin_suppressed_tokens);
  if (options.process_scores) options.process_scores(scores, sequences());
  if (options.forced_eos_token_id && cur_len == max_length - 1) {
    scores.fill_(minus_inf);
    scores.select(1, *options.forced_eos_token_id).fill_(0.0);
  }
}

void CheckOptions(const GenerationOptions& options) {
  if (options.max_new_tokens < 1) {
    Fail(ErrorCode::kInvalidArgument, "max_new_tokens is " + std::to_string(options.max_new_tokens) + "; it must be at least 1");
  }
  if (options.num_beams < 1) {
    Fail(ErrorCode::kInvalidArgument, "num_beams is " + std::to_string(options.num_beams) + "; it must be at least 1");
  }
}

void CheckStop(const GenerationOptions& options) {
  if (options.stop.stop_requested()) Fail(ErrorCode::kCancelled, "generation cancelled");
}

std::vector<std::int64_t> ToVector(const torch::Tensor& row) {
  torch::Tensor cpu = row.to(torch::kCPU).contiguous();
  const auto* data = cpu.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(data, data + cpu.numel());
}

std::vector<std::int64_t> PromptOf(const GenerationOptions& options) {
  if (options.prompt.empty()) return {options.start_token_id};
  return options.prompt;
}

// Drops what follows the first eos after the prompt (the rows are padded to a
// common length).
std::vector<std::int64_t> TrimAfterEos(std::vector<std::int64_t> tokens, std::int64_t eos, std::size_t prompt_length) {
  for (std::size_t i = prompt_length; i < tokens.size(); ++i) {
    if (tokens[i] == eos) {
      tokens.resize(i + 1);
      break;
    }
  }
  return tokens;
}

}  // namespace

std::vector<std::vector<std::int64_t>> GreedySearch(StepDecoder& decoder, std::int64_t batch,
                                                    const GenerationOptions& options) {
  CheckOptions(options);
  torch::NoGradGuard no_grad;
  const std::vector<std::int64_t> prompt = PromptOf(options);
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());
  const std::int64_t max_length = options.max_new_tokens + prompt_length;
  std::vector<torch::Tensor> columns;
  for (std::int64_t id : prompt) columns.push_back(torch::full({batch}, id, torch::kLong));
  torch::Tensor last = columns.back();
  torch::Tensor unfinished = torch::ones({batch}, torch::kBool);
  for (std::int64_t cur_len = prompt_length; cur_len < max_length; ++cur_len) {
    CheckStop(options);
    torch::Tensor scores =
        (cur_len == prompt_length && prompt_length > 1 ? decoder.Prefill(torch::stack(columns, 1)) : decoder.Step(last))
            .to(torch::kCPU);
    ProcessScores(scores, cur_len, prompt_length, max_length, options, [&] { return torch::stack(columns, 1); });
    torch::Tensor next = scores.argmax(1);
    next = torch::where(unfinished, next, torch::full_like(next, options.pad_token_id));
    columns.push_back(next);
    unfinished = unfinished.logical_and(next.ne(options.eos_token_id));
    last = next;
    if (!unfinished.any().item<bool>()) break;
  }
  torch::Tensor sequences = torch::stack(columns, 1);
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t b = 0; b < batch; ++b) {
    out.push_back(TrimAfterEos(ToVector(sequences[b]), options.eos_token_id, prompt.size()));
  }
  return out;
}

// transformers' vectorized beam search (generation/utils.py _beam_search), step for
// step: 2 * num_beams candidates per input; candidates ending in eos (or at the
// length limit) among the top num_beams become finished hypotheses scored
// sum_logprobs / generated_length ** length_penalty; the rest continue.
std::vector<std::vector<std::int64_t>> BeamSearch(StepDecoder& decoder, std::int64_t batch,
                                                  const GenerationOptions& options) {
  CheckOptions(options);
  torch::NoGradGuard no_grad;
  const std::int64_t beams = options.num_beams;
  const std::vector<std::int64_t> prompt = PromptOf(options);
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());
  const std::int64_t max_length = options.max_new_tokens + prompt_length;
  const std::int64_t keep = 2 * beams;
  const double kMasked = -1.0e9;
  const auto long_options = torch::TensorOptions().dtype(torch::kLong);

  torch::Tensor running = torch::full({batch, beams, max_length}, options.pad_token_id, long_options);
  for (std::int64_t i = 0; i < prompt_length; ++i) running.select(2, i).fill_(prompt[static_cast<std::size_t>(i)]);
  torch::Tensor running_scores = torch::zeros({batch, beams});
  running_scores.narrow(1, 1, beams - 1).fill_(kMasked);
  torch::Tensor finished_seqs = running.clone();
  torch::Tensor finished_scores = torch::full({batch, beams}, kMasked);
  torch::Tensor is_finished = torch::zeros({batch, beams}, torch::kBool);
  torch::Tensor improvable = torch::ones({batch, 1}, torch::kBool);
  torch::Tensor top_beams_mask = torch::cat({torch::ones({beams}, torch::kBool), torch::zeros({keep - beams}, torch::kBool)});
  torch::Tensor batch_offset = (torch::arange(batch, long_options) * beams).view({batch, 1});

  auto gather = [](const torch::Tensor& t, const torch::Tensor& index) {
    torch::Tensor idx = index;
    while (idx.dim() < t.dim()) idx = idx.unsqueeze(-1);
    std::vector<std::int64_t> shape = t.sizes().vec();
    shape[1] = index.size(1);
    return torch::gather(t, 1, idx.expand(shape));
  };

  for (std::int64_t cur_len = prompt_length; cur_len < max_length; ++cur_len) {
    CheckStop(options);
    auto so_far = [&] { return running.narrow(2, 0, cur_len).reshape({batch * beams, cur_len}); };
    torch::Tensor logits = (cur_len == prompt_length && prompt_length > 1
                                ? decoder.Prefill(so_far())
                                : decoder.Step(running.select(2, cur_len - 1).reshape({batch * beams})))
                               .to(torch::kCPU);
    torch::Tensor log_probs = torch::log_softmax(logits, -1);
    ProcessScores(log_probs, cur_len, prompt_length, max_length, options, so_far);
    const std::int64_t vocab = log_probs.size(1);
    torch::Tensor accumulated = (log_probs.view({batch, beams, vocab}) + running_scores.unsqueeze(2)).view({batch, beams * vocab});

    auto [top_scores, top_index] = torch::topk(accumulated, keep, 1);
    torch::Tensor source_beam = torch::div(top_index, vocab, "floor");
    torch::Tensor token = top_index.remainder(vocab);
    torch::Tensor top_seqs = gather(running, source_beam);
    top_seqs.select(2, cur_len).copy_(token);
    torch::Tensor hits = token.eq(options.eos_token_id);
    if (cur_len + 1 >= max_length) hits.fill_(true);

    // The best unfinished candidates run on.
    torch::Tensor running_candidates = top_scores + hits.to(torch::kFloat) * kMasked;
    torch::Tensor next_index = std::get<1>(torch::topk(running_candidates, beams, 1));
    running = gather(top_seqs, next_index);
    running_scores = gather(running_candidates, next_index);
    decoder.Select((gather(source_beam, next_index) + batch_offset).reshape({batch * beams}));

    // Finished candidates among the top num_beams join the kept hypotheses.
    torch::Tensor just_finished = hits.logical_and(top_beams_mask.unsqueeze(0));
    // Normalized by the length generated after the prompt, this token included.
    const auto generated = static_cast<double>(cur_len - prompt_length + 1);
    torch::Tensor finished_candidates = top_scores / std::pow(generated, options.length_penalty);
    torch::Tensor full = is_finished.all(1, true).logical_and(torch::full({batch, 1}, options.early_stopping == EarlyStopping::kWhenFull, torch::kBool));
    finished_candidates = finished_candidates + full.to(torch::kFloat) * kMasked;
    finished_candidates = finished_candidates + improvable.logical_not().to(torch::kFloat) * kMasked;
    finished_candidates = finished_candidates + just_finished.logical_not().to(torch::kFloat) * kMasked;
    torch::Tensor merged_seqs = torch::cat({finished_seqs, top_seqs}, 1);
    torch::Tensor merged_scores = torch::cat({finished_scores, finished_candidates}, 1);
    torch::Tensor merged_finished = torch::cat({is_finished, just_finished}, 1);
    torch::Tensor best = std::get<1>(torch::topk(merged_scores, beams, 1));
    finished_seqs = gather(merged_seqs, best);
    finished_scores = gather(merged_scores, best);
    is_finished = gather(merged_finished, best);

    // Could a running beam still beat the worst kept hypothesis?
    const std::int64_t next_len = cur_len + 1;
    const double best_length = (options.early_stopping == EarlyStopping::kNever && options.length_penalty > 0)
                                   ? static_cast<double>(max_length - prompt_length)
                                   : static_cast<double>(next_len - prompt_length);
    torch::Tensor best_running = running_scores.narrow(1, 0, 1) / std::pow(best_length, options.length_penalty);
    torch::Tensor worst_finished = torch::where(is_finished, std::get<0>(finished_scores.min(1, true)).expand_as(is_finished),
                                                torch::full_like(finished_scores, kMasked));
    improvable = improvable.logical_and(best_running.gt(worst_finished).any(1, true));

    const bool can_improve = improvable.any().item<bool>();
    const bool open_beam = !(is_finished.all().item<bool>() && options.early_stopping == EarlyStopping::kWhenFull);
    const bool can_continue = !hits.all().item<bool>();
    if (!(can_improve && open_beam && can_continue)) break;
  }
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t b = 0; b < batch; ++b) {
    out.push_back(TrimAfterEos(ToVector(finished_seqs[b][0]), options.eos_token_id, prompt.size()));
  }
  return out;
}

StaticSearchKeep::StaticSearchKeep() = default;
StaticSearchKeep::~StaticSearchKeep() = default;

bool UseStaticPath(const GenerationOptions& options, const torch::Device& device) {
  if (options.num_beams != 1 || options.process_scores) return false;
  switch (options.path) {
    case DecodePath::kEager:
      return false;
    case DecodePath::kStatic:
      return true;
    case DecodePath::kAuto:
      return device.is_cuda();
  }
  return false;
}

std::vector<std::vector<std::int64_t>> StaticGreedySearch(StaticStepDecoder& decoder, std::int64_t batch,
                                                          const GenerationOptions& options, StaticSearchReport* report,
                                                          StaticSearchKeep* keep) {
  CheckOptions(options);
  if (options.num_beams != 1 || options.process_scores) {
    Fail(ErrorCode::kInvalidArgument, "the static decoding path is greedy with on-device logits processors only "
                                      "(num_beams 1, no process_scores): use DecodePath::kEager");
  }
  torch::NoGradGuard no_grad;
  StaticSearchReport stats;
  const std::vector<std::int64_t> prompt = PromptOf(options);
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());
  const std::int64_t max_length = options.max_new_tokens + prompt_length;
  // Every token but the last is fed to the decoder.
  if (max_length - 1 > decoder.capacity()) {
    Fail(ErrorCode::kInvalidArgument, "the decoder holds " + std::to_string(decoder.capacity()) +
                                          " positions; the prompt and max_new_tokens need " + std::to_string(max_length - 1));
  }
  const torch::Device device = decoder.device();
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(device);
  SideStreamScope side_stream(device);

  // The state every step reads and writes in place: the graph replays on it.
  // Kept buffers are refilled in place (a kept graph reads these very storages).
  StaticSearchKeep local;
  StaticSearchKeep& state = keep != nullptr ? *keep : local;
  const std::vector<std::int64_t> shape = {batch, max_length, options.pad_token_id, options.eos_token_id};
  // Device types only: the decoder's may be "cuda" where its tensors say "cuda:0".
  if (state.shape != shape || !state.tokens.defined() || state.tokens.device().type() != device.type()) {
    state.shape = shape;
    state.tokens = torch::empty({batch, max_length}, long_options);
    state.unfinished = torch::empty({batch}, long_options.dtype(torch::kBool));
    state.position = torch::empty({1}, long_options);
    state.suppress = torch::Tensor();
    state.graph.reset();
    state.capture_failed = false;
  }
  if (!state.graph) state.graph = std::make_unique<StepGraph>();
  torch::Tensor& tokens = state.tokens;
  torch::Tensor& unfinished = state.unfinished;
  torch::Tensor& position = state.position;  // of the newest token
  tokens.fill_(options.pad_token_id);
  tokens.narrow(1, 0, prompt_length).copy_(torch::tensor(prompt, torch::kLong).view({1, prompt_length}).expand({batch, prompt_length}));
  unfinished.fill_(true);
  position.fill_(prompt_length - 1);

  torch::Tensor logits = decoder.Forward(tokens.narrow(1, 0, prompt_length), torch::arange(prompt_length, long_options))
                             .select(1, prompt_length - 1);
  ++stats.steps;
  // The logits processors as additive masks (1, V): 0 where allowed, -inf where not.
  const std::int64_t vocab = logits.size(1);
  // Checked here: out of range on the device would be a kernel assertion, not an error.
  auto check_ids = [&](const std::vector<std::int64_t>& ids, const char* what) {
    for (std::int64_t id : ids) {
      if (id < 0 || id >= vocab) {
        Fail(ErrorCode::kInvalidArgument, std::string(what) + " holds token id " + std::to_string(id) +
                                              ", outside the vocabulary of " + std::to_string(vocab));
      }
    }
  };
  check_ids(options.suppressed_tokens, "suppressed_tokens");
  check_ids(options.begin_suppressed_tokens, "begin_suppressed_tokens");
  if (options.forced_eos_token_id) check_ids({*options.forced_eos_token_id}, "forced_eos_token_id");
  const double minus_inf = -std::numeric_limits<double>::infinity();
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat).device(device);
  auto mask_of = [&](const std::vector<std::int64_t>& ids) {
    torch::Tensor mask = torch::zeros({1, vocab}, float_options);
    if (!ids.empty()) mask.index_fill_(1, torch::tensor(ids, torch::kLong).to(device), minus_inf);
    return mask;
  };
  if (!state.suppress.defined() || state.suppress.size(1) != vocab) {
    state.suppress = mask_of(options.suppressed_tokens);
    state.graph = std::make_unique<StepGraph>();  // a graph of another vocabulary reads other buffers
  } else {
    state.suppress.copy_(mask_of(options.suppressed_tokens));
  }
  const torch::Tensor& suppress = state.suppress;
  std::vector<std::int64_t> at_begin = options.suppressed_tokens;
  at_begin.insert(at_begin.end(), options.begin_suppressed_tokens.begin(), options.begin_suppressed_tokens.end());
  const torch::Tensor suppress_at_begin = mask_of(at_begin);
  torch::Tensor force_eos;
  if (options.forced_eos_token_id) {
    force_eos = torch::full({1, vocab}, minus_inf, float_options);
    force_eos.select(1, *options.forced_eos_token_id).fill_(0.0);
  }
  // Picks each row's next token from `step_logits` (N, V) and advances.
  auto choose = [&](const torch::Tensor& step_logits, const torch::Tensor& mask) {
    torch::Tensor next = (step_logits + mask).argmax(1);
    next.masked_fill_(unfinished.logical_not(), options.pad_token_id);
    tokens.index_copy_(1, position + 1, next.view({batch, 1}));
    unfinished.logical_and_(next.ne(options.eos_token_id));
    position.add_(1);
  };
  auto step = [&](const torch::Tensor& mask) {
    choose(decoder.Forward(tokens.index_select(1, position), position).select(1, 0), mask);
  };
  auto last_mask = [&](std::int64_t cur_len, const torch::Tensor& usual) {
    return (force_eos.defined() && cur_len == max_length - 1) ? force_eos : usual;
  };

  choose(logits, last_mask(prompt_length, suppress_at_begin));
  StepGraph& graph = *state.graph;
  stats.graph_reused = options.cuda_graphs && graph.captured();
  bool try_graph = options.cuda_graphs && StepGraph::Supported(device) && !state.capture_failed;
  // Eos is checked every few steps: each check waits for the device, and the
  // steps past everyone's eos only write pad tokens, trimmed below.
  constexpr std::int64_t kCheckEvery = 8;
  std::int64_t cur_len = prompt_length + 1;
  for (; cur_len < max_length; ++cur_len) {
    if ((cur_len - prompt_length) % kCheckEvery == 1) {
      ++stats.host_syncs;
      if (!unfinished.any().item<bool>()) break;
    }
    CheckStop(options);
    const torch::Tensor mask = last_mask(cur_len, suppress);
    if (mask.is_same(suppress) && try_graph && !graph.captured()) {
      std::string why;
      if (!graph.Capture([&] { step(suppress); }, why)) {
        std::fprintf(stderr, "lingcast neural: CUDA graph capture of the decode step failed (%s); decoding eagerly\n",
                     why.c_str());
        try_graph = false;
        state.capture_failed = true;
      }
    }
    if (mask.is_same(suppress) && try_graph && graph.captured()) {
      graph.Replay();
    } else {
      step(mask);
    }
    ++stats.steps;
  }
  stats.cuda_graph = try_graph && graph.captured();
  const torch::Tensor sequences = tokens.narrow(1, 0, std::min(cur_len, max_length)).to(torch::kCPU);
  ++stats.host_syncs;
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t b = 0; b < batch; ++b) {
    out.push_back(TrimAfterEos(ToVector(sequences[b]), options.eos_token_id, prompt.size()));
  }
  if (report != nullptr) *report = stats;
  return out;
}

}  // namespace lingcast::neural
