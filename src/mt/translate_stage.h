// TranslateStage: the translating stage of `lingcast live`. Lines decided by the
// follow stage (mt/follow_stage.h) get the script's own translation, else the
// fallback engines' (mt/translation_stack.h); while off-script speech is still
// being said, provisional captions of it; and the operator's corrections
// (mt/live_control.h) apply to the next line. Then on to the voice
// (tts/voice_stage.h).
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/logger.h"
#include "graph/stage.h"
#include "media/live_messages.h"
#include "mt/live_control.h"
#include "mt/match_text.h"
#include "mt/provisional_interrupt.h"
#include "mt/script_follower.h"
#include "mt/translation_session.h"
#include "mt/translation_stack.h"

namespace lingcast {

struct ProvisionalOptions {
  bool enabled = false;  // translate partial hypotheses of off-script speech
  // Realtime: translate only the newest partial once the input queue is empty
  // (older ones are dropped, counted). Off (the simulated clock): every partial,
  // so a run gives the same captions every time.
  bool newest_only = true;
  ProvisionalInterrupt* interrupt = nullptr;  // realtime; may be null
  // Words heard before speech is judged off script, and how far (edits per
  // word heard) it must be from every stretch of every script line.
  int min_words = 3;
  double max_script_distance = 0.34;
  int min_new_tokens = 2;  // TranslationSessionOptions
  int agreement = 2;
};

// The utterance whose partials TranslateStage is translating. At namespace
// scope, not nested in the stage: clang 14 decides std::optional<nested>'s
// constructibility before the nested struct's member initializers are parsed.
struct AdLibCaptioning {
  int64_t utterance = 0;
  bool off_script = false;  // judged off script (stays so)
  bool closed = false;      // a line of it was decided, or it ended: no more captions
  std::optional<TranslationSession> session;
  int updates = 0;
  std::string shown_stable;
};


// Fills in the translation of off-script lines from the fallback engines (the
// script's lines carry their own). A line no engine could translate (no memory
// match, the LLM down) stays untranslated: subtitles only, and failures() counts
// it. Without engines (a null chain) every off-script line is subtitles only.
//
// With provisional captions on, partial hypotheses of speech that matches no
// script line (all speech without a script) are re-translated as they grow
// (TranslationSession: local agreement gives a stable part that only grows, and
// a provisional rest) and sent on as ProvisionalCaption events; the utterance's
// off-script line then gets the session's final translation. A failed
// provisional translation is counted and skipped; the show goes on.
//
// It also applies the operator's corrections (mt/live_control.h) on its own
// thread, the only one that touches the memory and the glossary while the job
// runs. Its name on the graph (latency boundaries, reports) is "translate".
class TranslateStage : public Stage {
 public:
  // `control` may be null (no --control); it must outlive the stage.
  TranslateStage(TranslationStack& stack, Language from, Language to, std::vector<FollowerLine> lines,
                 LiveControl* control, Logger& logger, ProvisionalOptions provisional = {});
  In<LiveEvent> in{this, "in"};
  Out<LiveEvent> out{this, "out"};
  absl::StatusOr<Flow> Process() override;
  int64_t failures() const { return failures_.load(); }
  int64_t corrections_applied() const { return corrections_applied_.load(); }
  int64_t corrections_rejected() const { return corrections_rejected_.load(); }
  int64_t provisional_failures() const { return provisional_failures_.load(); }  // engine errors
  int64_t provisional_dropped() const { return provisional_dropped_.load(); }    // partials never translated
  int64_t provisional_captions() const { return provisional_captions_.load(); }  // captions sent
  int64_t provisional_paused() const { return provisional_paused_.load(); }      // partials not translated while paused

  // Stops (true) or resumes translating partials, from any thread: the first
  // rung of the watchdog's ladder (core/degradation_ladder.h) gives up the
  // drafts to keep the final lines on time. Lines are translated either way.
  void PauseProvisionalCaptions(bool paused) { provisional_pause_.store(paused); }

  // True when `heard` may still be (part of) a script line: too few words to
  // tell, or close to a stretch of one (pure; tested alone).
  static bool MayBeScripted(const std::string& heard, const std::vector<std::vector<std::string>>& script_tokens,
                            const ProvisionalOptions& options);

 private:
  using AdLib = AdLibCaptioning;
  absl::Status Handle(Packet<LiveEvent> packet);
  absl::Status TranslateLine(HeardLine& line);
  absl::Status TranslatePartial();
  AdLib& AdLibOf(int64_t utterance);
  // No more captions for `utterance`; its updates so far.
  int CloseAdLib(int64_t utterance);
  void ApplyControl();
  absl::Status Apply(const ControlCommand& command);
  absl::Status Keep(const Correction& correction);  // in the memory or glossary, and the corrections file

  TranslationStack& stack_;
  const Language from_, to_;
  const std::vector<FollowerLine> lines_;
  LiveControl* const control_;
  Logger& logger_;
  // Script lines whose translation was corrected: source as written -> translation.
  std::map<std::string, std::string> corrected_lines_;
  std::vector<TranslatedLine> context_;
  const ProvisionalOptions provisional_;
  // Lines and partials in one spelling (mt/match_text.h), as the memory has them.
  const MatchSpelling spelling_;
  std::vector<std::vector<std::string>> script_tokens_;  // spelling_.Tokens of each line as spoken
  std::optional<AdLib> ad_lib_;
  std::optional<Packet<LiveEvent>> pending_partial_;  // the newest partial not yet translated
  int64_t urgent_taken_ = 0;  // decisions and utterance ends taken from the input
  MediaTime watermark_;       // of the last event sent on
  std::atomic<int64_t> failures_{0};
  std::atomic<int64_t> provisional_failures_{0};
  std::atomic<int64_t> provisional_dropped_{0};
  std::atomic<int64_t> provisional_paused_{0};
  std::atomic<bool> provisional_pause_{false};
  std::atomic<int64_t> provisional_captions_{0};
  std::atomic<int64_t> corrections_applied_{0};
  std::atomic<int64_t> corrections_rejected_{0};
};

}  // namespace lingcast
