// LlmTranslator: any OpenAI-compatible chat server (llama.cpp's server, vLLM,
// Ollama, a hosted API) as a translation engine, through POST
// {endpoint}/v1/chat/completions with a streamed ("stream": true) answer.
//
// The prompt carries the glossary terms found in the line and the last few lines
// with their translations, and asks for the translation alone. Partial text is
// reported as tokens arrive, so subtitles can start before the answer is complete.
//
// Failure handling (a live show must never wait on a sick server):
//   * every attempt has a connect timeout and a total timeout, and the whole call
//     a deadline across attempts (`deadline`), after which it gives up;
//   * connection errors, timeouts, HTTP 429 and 5xx, a malformed or empty answer are
//     retried after a backoff (initial_backoff × 2^n, capped) while the deadline
//     allows; HTTP 400/401/403/404 are not (retrying cannot fix them);
//   * TranslatorChain's circuit breaker then skips a server that keeps failing.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/clock.h"
#include "core/media_time.h"
#include "mt/translator.h"

namespace lingcast {

struct LlmConfig {
  std::string endpoint;  // "http://127.0.0.1:8080" or ".../v1"; required
  std::string model;     // sent as "model"; servers with one model ignore it
  std::string api_key;   // sent as "Authorization: Bearer KEY" when not empty
  MediaTime connect_timeout = MediaTime::Seconds(2);
  MediaTime attempt_timeout = MediaTime::Seconds(8);  // one request, first byte to last
  MediaTime deadline = MediaTime::Seconds(10);        // the whole call, retries included
  int max_attempts = 3;
  MediaTime initial_backoff = MediaTime::Millis(200);
  MediaTime max_backoff = MediaTime::Seconds(2);
  int context_lines = 3;     // recent lines sent as examples
  double temperature = 0.0;  // deterministic translations
};

// Fills endpoint, model and key from the environment where `config` leaves them
// empty: LINGCAST_LLM_ENDPOINT (else OPENAI_BASE_URL), LINGCAST_LLM_MODEL,
// LINGCAST_LLM_API_KEY (else OPENAI_API_KEY).
LlmConfig LlmConfigFromEnvironment(LlmConfig config);

// The chat messages sent for `request`, as the JSON array the API takes (exposed
// for tests and for `--log-level debug`).
std::string BuildChatMessages(const TranslationRequest& request, int context_lines);

class LlmTranslator final : public Translator {
 public:
  // InvalidArgument when the endpoint is empty or not http(s)://.
  static absl::StatusOr<std::unique_ptr<LlmTranslator>> Create(LlmConfig config, Clock& clock);
  ~LlmTranslator() override;

  std::string name() const override { return "llm"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override;

  int attempts() const { return attempts_; }  // requests sent so far, retries included

 private:
  LlmTranslator(LlmConfig config, Clock& clock, std::string url);
  absl::StatusOr<std::string> Attempt(const std::string& body, MediaTime timeout, std::stop_token stop,
                                      const PartialTranslation& on_partial);

  const LlmConfig config_;
  Clock& clock_;
  const std::string url_;
  std::atomic<int> attempts_ = 0;
};

}  // namespace lingcast
