// TranslatorChain: engines tried in order (translation memory first, then an LLM
// server, ...), with a circuit breaker per engine and the glossary applied to
// whatever comes out.
//
// A miss (NotFound) passes to the next engine and costs nothing. A failure
// (anything else but Cancelled) also passes on, and counts against the engine's
// breaker: after `failures_to_open` failures in a row the engine is skipped for
// `open_for`, then tried once more (half-open); a success closes it again. So a
// dead server costs one timeout per cooldown, not one per line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/clock.h"
#include "core/media_time.h"
#include "core/sync.h"
#include "mt/translator.h"

namespace lingcast {

struct CircuitBreakerConfig {
  int failures_to_open = 3;                     // consecutive failures that open the breaker
  MediaTime open_for = MediaTime::Seconds(30);  // how long an open breaker skips the engine
};

class CircuitBreaker {
 public:
  enum class State { kClosed, kOpen, kHalfOpen };
  CircuitBreaker(const Clock& clock, CircuitBreakerConfig config) : clock_(clock), config_(config) {}

  // True when a call may go to the engine now (closed, or open long enough to try once).
  bool Allow();
  void RecordSuccess();
  void RecordFailure();
  State state() const;

 private:
  const Clock& clock_;
  const CircuitBreakerConfig config_;
  mutable Mutex mu_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kClosed;
  int consecutive_failures_ ABSL_GUARDED_BY(mu_) = 0;
  MediaTime opened_at_ ABSL_GUARDED_BY(mu_);
};

struct EngineCounters {
  std::string engine;
  int translated = 0;
  int missed = 0;   // NotFound: nothing for this segment
  int failed = 0;   // errors (timeouts, server errors, bad answers)
  int skipped = 0;  // not asked: the breaker was open
};

class TranslatorChain final : public Translator {
 public:
  TranslatorChain(std::vector<std::unique_ptr<Translator>> engines, const Clock& clock,
                  CircuitBreakerConfig breaker = {});

  std::string name() const override;
  // The first engine's translation, with the request's glossary applied. NotFound
  // when every engine missed; otherwise the last failure, naming each engine's error.
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override;

  std::vector<EngineCounters> counters() const;

 private:
  std::vector<std::unique_ptr<Translator>> engines_;
  std::vector<std::unique_ptr<CircuitBreaker>> breakers_;
  mutable Mutex mu_;
  std::vector<EngineCounters> counters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
