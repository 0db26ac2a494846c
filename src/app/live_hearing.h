// The hearing side of `lingcast live`: the host's audio comes in
// (audio/ingest_stage.h), is heard (LiveHear: VAD -> ASR -> script follower) and translated
// (LiveTranslate: the script's own translation, else the fallback engines; and,
// while off-script speech is still being said, provisional captions of it).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "app/live_control.h"
#include "media/live_messages.h"
#include "app/speech_follower.h"
#include "app/translation_setup.h"
#include "core/logger.h"
#include "graph/stage.h"
#include "mt/translation_session.h"

namespace lingcast {

// Lets the hear thread stop a provisional translation in flight on the
// translate thread the moment a decision or an utterance's end is sent, so a
// slow engine call for a caption never delays a line (and nothing on the hear
// thread waits: it only asks the engine call to stop). Realtime only: on the
// simulated clock computing takes no time, and results must not depend on
// which thread got there first.
class ProvisionalInterrupt {
 public:
  // Hear thread, before it sends a decision or an utterance's end.
  void Urgent();
  // Translate thread: about to update `session` for a caption, having taken
  // `urgent_taken` urgent events from its input. False (and nothing started)
  // when an urgent event it has not taken yet was sent: that goes first.
  bool Begin(TranslationSession& session, int64_t urgent_taken);
  void End();
  int64_t interrupted() const;  // engine calls stopped

 private:
  // std::mutex, not absl::Mutex: ThreadSanitizer sees it (Debian's absl is not
  // instrumented), and the hear and translate threads share nothing else here.
  mutable std::mutex mu_;
  int64_t urgent_sent_ ABSL_GUARDED_BY(mu_) = 0;
  TranslationSession* running_ ABSL_GUARDED_BY(mu_) = nullptr;
  int64_t interrupted_ ABSL_GUARDED_BY(mu_) = 0;
};

struct LiveHearOptions {
  // Send the recognizer's partial hypotheses on (for provisional captions).
  bool partials = false;
  ProvisionalInterrupt* interrupt = nullptr;  // may be null; must outlive the stage
};

// VAD -> ASR -> script follower. Sends every decision the moment it is made (a
// line decided at an endpoint goes out before the recognizer's final pass), an
// UtteranceEnded at each endpoint, and a watermark after every piece of audio.
class LiveHear : public Stage {
 public:
  LiveHear(SpeechFollower follower, std::vector<FollowerLine> lines, LiveHearOptions options = {});
  In<AudioBuffer> in{this, "in"};
  Out<LiveEvent> out{this, "out"};
  absl::StatusOr<Flow> Process() override;

 private:
  // One event, sent at once. Its watermark is where the audio fully heard
  // ends: the piece being heard may still decide more.
  absl::Status Send(FollowEvent event, MediaTime watermark, MediaTime origin);
  absl::Status SendWatermark(MediaTime watermark, MediaTime origin);

  SpeechFollower follower_;
  const std::vector<FollowerLine> lines_;
  const LiveHearOptions options_;
  int64_t next_id_ = 0;
  MediaTime last_origin_;  // of the last audio heard (the end of input arrives with it)
  MediaTime heard_until_;  // the end of the last piece of audio fully heard
};

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
// It also applies the operator's corrections (live_control.h) on its own thread,
// the only one that touches the memory and the glossary while the job runs.
class LiveTranslate : public Stage {
 public:
  // `control` may be null (no --control); it must outlive the stage.
  LiveTranslate(TranslationStack& stack, Language from, Language to, std::vector<FollowerLine> lines,
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

  // True when `heard` may still be (part of) a script line: too few words to
  // tell, or close to a stretch of one (pure; tested alone).
  static bool MayBeScripted(const std::string& heard, const std::vector<std::vector<std::string>>& script_tokens,
                            const ProvisionalOptions& options);

 private:
  // The utterance whose partials are being translated.
  struct AdLib {
    int64_t utterance = 0;
    bool off_script = false;  // judged off script (stays so)
    bool closed = false;      // a line of it was decided, or it ended: no more captions
    std::optional<TranslationSession> session;
    int updates = 0;
    std::string shown_stable;
  };
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
  std::atomic<int64_t> provisional_captions_{0};
  std::atomic<int64_t> corrections_applied_{0};
  std::atomic<int64_t> corrections_rejected_{0};
};

}  // namespace lingcast
