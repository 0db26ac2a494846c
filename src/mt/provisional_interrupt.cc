#include "mt/provisional_interrupt.h"

namespace lingcast {

void ProvisionalInterrupt::Urgent() {
  std::lock_guard<std::mutex> lock(mu_);
  ++urgent_sent_;
  if (running_ != nullptr) {
    running_->Cancel();  // only asks the engine call to stop: nothing here waits for it
    running_ = nullptr;
    ++interrupted_;
  }
}

bool ProvisionalInterrupt::Begin(TranslationSession& session, int64_t urgent_taken) {
  std::lock_guard<std::mutex> lock(mu_);
  if (urgent_sent_ > urgent_taken) return false;
  running_ = &session;
  return true;
}

void ProvisionalInterrupt::End() {
  std::lock_guard<std::mutex> lock(mu_);
  running_ = nullptr;
}

int64_t ProvisionalInterrupt::interrupted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return interrupted_;
}

}  // namespace lingcast
