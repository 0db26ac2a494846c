// TranslationSession: one segment translated while it is still being spoken.
//
// The recognizer's partial hypotheses of an utterance grow word by word (and
// now and then change their last words). A session is fed each of them
// (Update) and answers with a provisional translation; at the endpoint it is
// fed the final hypothesis (Finish) and answers with the final translation.
//
// Provisional output is a re-translation of everything heard so far (any
// Translator: the memory, an LLM server, Marian), split for display into
//   * `stable`: text that will not change any more while the segment lasts. A
//     prefix of the translation becomes stable once the last `agreement`
//     translations agree on it (local agreement, as in re-translation
//     simultaneous MT); stable text only ever grows, so what a viewer has read
//     is never taken back mid-segment;
//   * `provisional`: the rest of the latest translation, which may change.
// Re-translating after every new word would cost one engine call per word, so
// a new call waits until the source grew by `min_new_tokens` (or changed).
//
// The final translation is authoritative: it is the engine's translation of
// the whole final source. When it does not begin with the stable text shown,
// `revised` says the display must replace what it showed.
//
// Cancel() may be called from any thread: an engine call in flight is stopped
// (through its std::stop_token), and every later Update/Finish is Cancelled.
// Everything else is used from one thread at a time.
#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "media/language.h"
#include "mt/translator.h"

namespace lingcast {

struct TranslationSessionOptions {
  Language from = Language::kEn;
  Language to = Language::kZh;
  std::vector<TranslatedLine> context;  // recent lines, oldest first (passed to the engine)
  const Glossary* glossary = nullptr;   // may be null
  // Source tokens (words; characters for Chinese, as MatchTokens counts them)
  // that must be added before the partial source is translated again. >= 1.
  int min_new_tokens = 2;
  // How many successive translations must agree on a prefix before it is
  // stable. 1 makes every translation stable at once (no protection against
  // flicker); 2 is the usual choice.
  int agreement = 2;
};

struct SessionOutput {
  std::string stable;       // shown for good; grows only
  std::string provisional;  // the rest of the latest translation; may change
  std::string engine;       // the engine of the latest translation
  bool final = false;
  // Final only: the final translation does not begin with the stable text shown
  // before, so the display must replace it (the whole final is in `stable`).
  bool revised = false;
  int engine_calls = 0;     // engine calls this session made so far

  std::string text() const { return stable + provisional; }
};

class TranslationSession {
 public:
  // `translator` must outlive the session. InvalidArgument (from Create) for
  // min_new_tokens < 1 or agreement < 1.
  static absl::StatusOr<TranslationSession> Create(Translator& translator, TranslationSessionOptions options);

  TranslationSession(TranslationSession&&) = default;
  TranslationSession& operator=(TranslationSession&&) = delete;

  // The source heard so far (the whole partial hypothesis, not a delta).
  // Returns the updated output, or nullopt when there is nothing new to show
  // (too little new source, or nothing to translate yet). An engine's miss
  // (NotFound) is not an error here: the output stays as it was. Other engine
  // errors are returned; Cancelled after Cancel().
  absl::StatusOr<std::optional<SessionOutput>> Update(const std::string& source_so_far);

  // The final source: its full translation (final = true, all of it stable).
  // Engine errors (NotFound included: nothing to show) are returned; Cancelled
  // after Cancel(). The session is done afterwards (FailedPrecondition for any
  // further Update or Finish).
  absl::StatusOr<SessionOutput> Finish(const std::string& final_source);

  // Stops the engine call in flight, if any, and every later call. Thread-safe.
  void Cancel() { stop_.request_stop(); }
  bool cancelled() const { return stop_.stop_requested(); }

 private:
  TranslationSession(Translator& translator, TranslationSessionOptions options);
  absl::StatusOr<Translation> Translate(const std::string& source);
  // Splits `text` into display units: words with their trailing spaces (or
  // single characters for a Chinese target), so agreement is whole units.
  std::vector<std::string> Units(const std::string& text) const;
  SessionOutput Output(const std::vector<std::string>& latest) const;

  Translator* translator_;
  TranslationSessionOptions options_;
  std::stop_source stop_;
  bool done_ = false;
  int engine_calls_ = 0;
  std::string translated_source_;        // the source of the latest translation
  size_t translated_tokens_ = 0;         // its MatchTokens count
  std::string engine_;
  std::vector<std::vector<std::string>> recent_;  // last `agreement` translations, as units
  std::vector<std::string> stable_;      // units shown for good
};

}  // namespace lingcast
