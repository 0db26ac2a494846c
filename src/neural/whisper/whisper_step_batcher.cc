#include "neural/whisper/whisper_step_batcher.h"

#include <algorithm>
#include <vector>

#include "neural/whisper/whisper_model.h"

namespace lingcast::neural {

void WhisperStepBatcher::Join() {
  std::lock_guard lock(mutex_);
  ++live_;
}

void WhisperStepBatcher::Leave() {
  std::lock_guard lock(mutex_);
  --live_;
  changed_.notify_all();  // a leader waiting for this decoder's step stops waiting
}

torch::Tensor WhisperStepBatcher::Step(WhisperDecoderState& state, const torch::Tensor& tokens) {
  model_.CheckStep(state, tokens);
  if (!JoinsSteps()) {
    torch::Tensor logits = model_.StepAlone(state, tokens);
    // Counted all the same: /metrics shows the decoder's load either way.
    std::lock_guard lock(mutex_);
    stats_.steps += 1;
    stats_.passes += 1;
    stats_.largest_pass = std::max<std::int64_t>(stats_.largest_pass, 1);
    return logits;
  }
  Waiting mine{&state, tokens, std::chrono::steady_clock::now()};
  std::unique_lock lock(mutex_);
  waiting_.push_back(&mine);
  changed_.notify_all();
  while (!mine.done) {
    if (!leading_) {
      LeadPass(lock);
    } else {
      changed_.wait(lock);
    }
  }
  if (mine.error) std::rethrow_exception(mine.error);
  return mine.logits;
}

bool WhisperStepBatcher::JoinsSteps() const {
  if (!options_.enabled) return false;
  std::lock_guard lock(mutex_);
  return live_ > options_.join_above_live_decoders;
}

bool WhisperStepBatcher::Ready() const {
  if (static_cast<std::int64_t>(waiting_.size()) >= live_) return true;
  std::int64_t rows = 0;
  for (const Waiting* step : waiting_) rows += step->tokens.size(0);
  return rows >= options_.max_rows;
}

void WhisperStepBatcher::LeadPass(std::unique_lock<std::mutex>& lock) {
  leading_ = true;
  // Only the leader takes steps, so the oldest one stays first while it waits.
  const auto deadline = waiting_.front()->arrived + options_.window;
  while (!Ready() && std::chrono::steady_clock::now() < deadline) changed_.wait_until(lock, deadline);

  std::vector<Waiting*> pass;
  std::int64_t rows = 0;
  while (!waiting_.empty()) {
    Waiting* next = waiting_.front();
    const std::int64_t n = next->tokens.size(0);
    if (!pass.empty() && rows + n > options_.max_rows) break;
    pass.push_back(next);
    rows += n;
    waiting_.pop_front();
  }

  lock.unlock();
  std::vector<torch::Tensor> logits;
  std::exception_ptr error;
  try {
    if (pass.size() == 1) {
      logits.push_back(model_.StepAlone(*pass.front()->state, pass.front()->tokens));
    } else {
      std::vector<WhisperDecoderState*> states;
      std::vector<torch::Tensor> tokens;
      for (const Waiting* step : pass) {
        states.push_back(step->state);
        tokens.push_back(step->tokens);
      }
      logits = model_.StepAcross(states, tokens);
    }
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();

  for (std::size_t i = 0; i < pass.size(); ++i) {
    if (error) {
      pass[i]->error = error;
    } else {
      pass[i]->logits = std::move(logits[i]);
    }
    pass[i]->done = true;
  }
  const auto joined = static_cast<std::int64_t>(pass.size());
  stats_.steps += joined;
  stats_.passes += 1;
  if (joined > 1) stats_.joined_steps += joined;
  stats_.largest_pass = std::max(stats_.largest_pass, joined);
  leading_ = false;
  changed_.notify_all();
}

StepBatchingStats WhisperStepBatcher::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace lingcast::neural
