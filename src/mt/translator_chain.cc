#include "mt/translator_chain.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "mt/glossary.h"

namespace lingcast {

bool CircuitBreaker::Allow() {
  MutexLock lock(&mu_);
  if (state_ == State::kClosed) return true;
  if (state_ == State::kOpen && clock_.Now() - opened_at_ >= config_.open_for) {
    state_ = State::kHalfOpen;  // one trial call
    return true;
  }
  return false;
}

void CircuitBreaker::RecordSuccess() {
  MutexLock lock(&mu_);
  state_ = State::kClosed;
  consecutive_failures_ = 0;
}

void CircuitBreaker::RecordFailure() {
  MutexLock lock(&mu_);
  ++consecutive_failures_;
  if (state_ == State::kHalfOpen || consecutive_failures_ >= config_.failures_to_open) {
    state_ = State::kOpen;
    opened_at_ = clock_.Now();
  }
}

CircuitBreaker::State CircuitBreaker::state() const {
  MutexLock lock(&mu_);
  return state_;
}

TranslatorChain::TranslatorChain(std::vector<std::unique_ptr<Translator>> engines, const Clock& clock,
                                 CircuitBreakerConfig breaker)
    : engines_(std::move(engines)) {
  for (const std::unique_ptr<Translator>& engine : engines_) {
    breakers_.push_back(std::make_unique<CircuitBreaker>(clock, breaker));
    counters_.push_back(EngineCounters{engine->name()});
  }
}

std::string TranslatorChain::name() const {
  std::string joined;
  for (const std::unique_ptr<Translator>& engine : engines_) {
    absl::StrAppend(&joined, joined.empty() ? "" : "+", engine->name());
  }
  return joined;
}

absl::StatusOr<Translation> TranslatorChain::Translate(const TranslationRequest& request, std::stop_token stop,
                                                       const PartialTranslation& on_partial) {
  std::string errors;
  bool any_failure = false;
  absl::StatusCode last_failure = absl::StatusCode::kNotFound;
  for (size_t i = 0; i < engines_.size(); ++i) {
    if (stop.stop_requested()) return absl::CancelledError("translation cancelled");
    if (!breakers_[i]->Allow()) {
      MutexLock lock(&mu_);
      ++counters_[i].skipped;
      any_failure = true;
      last_failure = absl::StatusCode::kUnavailable;
      absl::StrAppend(&errors, errors.empty() ? "" : "; ", engines_[i]->name(), ": skipped (failing, retried later)");
      continue;
    }
    absl::StatusOr<Translation> result = engines_[i]->Translate(request, stop, on_partial);
    if (result.ok()) {
      breakers_[i]->RecordSuccess();
      {
        MutexLock lock(&mu_);
        ++counters_[i].translated;
      }
      if (request.glossary != nullptr) {
        GlossaryResult enforced = request.glossary->Enforce(request.source, request.from, result->text, request.to);
        result->text = std::move(enforced.text);
        result->glossary_fixed = enforced.fixed;
        result->glossary_missing = std::move(enforced.missing);
      }
      return result;
    }
    const absl::Status& status = result.status();
    if (absl::IsCancelled(status)) return status;
    absl::StrAppend(&errors, errors.empty() ? "" : "; ", engines_[i]->name(), ": ", std::string(status.message()));
    if (absl::IsNotFound(status)) {
      breakers_[i]->RecordSuccess();  // the engine answered; it just had nothing
      MutexLock lock(&mu_);
      ++counters_[i].missed;
    } else {
      breakers_[i]->RecordFailure();
      any_failure = true;
      last_failure = status.code();
      MutexLock lock(&mu_);
      ++counters_[i].failed;
    }
  }
  if (engines_.empty()) return absl::FailedPreconditionError("no translation engine configured");
  if (!any_failure) return absl::NotFoundError(absl::StrCat("no engine has a translation (", errors, ")"));
  return absl::Status(last_failure, absl::StrCat("no engine could translate (", errors, ")"));
}

std::vector<EngineCounters> TranslatorChain::counters() const {
  MutexLock lock(&mu_);
  return counters_;
}

}  // namespace lingcast
