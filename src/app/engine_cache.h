// Engines loaded once per process and shared: the server's sessions that ask
// for the same voice or the same Whisper checkpoint get one copy of it, however
// many run. An AsrModel's sessions are independent by contract (asr/asr_engine.h)
// and the voices synthesize from immutable models, so one engine serves many
// live shows at once. pocketsphinx is not shared: its language model is built
// from each show's script. A Marian translator is shared the same way: it
// translates lines from several threads at once (neural/marian/marian_translator.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "mt/translator.h"
#include "tts/tts_engine.h"

namespace lingcast {

class EngineCache {
 public:
  template <typename Engine>
  using Loader = std::function<absl::StatusOr<std::shared_ptr<Engine>>()>;

  // The engine kept under `key`, or `load()`'s, kept from now on. A load that
  // fails keeps nothing (the next asker tries again). Loads run one at a time:
  // two sessions asking at once for the same engine load it once. stats() and
  // the engines already kept do not wait for a load.
  absl::StatusOr<std::shared_ptr<TtsEngine>> Voice(const std::string& key, const Loader<TtsEngine>& load);
  absl::StatusOr<std::shared_ptr<AsrModel>> Recognizer(const std::string& key, const Loader<AsrModel>& load);
  absl::StatusOr<std::shared_ptr<Translator>> SharedTranslator(const std::string& key, const Loader<Translator>& load);

  struct Stats {
    int voices = 0, recognizers = 0, translators = 0;  // engines kept
    int64_t loads = 0, reuses = 0;    // askers that loaded one, and that got one already loaded
    // The kept recognizers' decoder passes shared by their sessions, summed
    // (largest_pass: the most in any); all 0 when none batches.
    AsrModel::StepBatching recognizer_steps;
  };
  Stats stats() const;

 private:
  template <typename Engine>
  absl::StatusOr<std::shared_ptr<Engine>> Get(std::map<std::string, std::shared_ptr<Engine>>& kept,
                                              const std::string& key, const Loader<Engine>& load);

  std::mutex load_mu_;     // held across a load (before mu_)
  mutable std::mutex mu_;  // the tables and counters; held briefly
  std::map<std::string, std::shared_ptr<TtsEngine>> voices_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<AsrModel>> recognizers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<Translator>> translators_ ABSL_GUARDED_BY(mu_);
  int64_t loads_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t reuses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lingcast
