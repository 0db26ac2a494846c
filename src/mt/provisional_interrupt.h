// ProvisionalInterrupt: lets the follow stage (mt/follow_stage.h) stop a
// provisional translation in flight on the translate stage's thread
// (mt/translate_stage.h) the moment a decision or an utterance's end is sent.
#pragma once

#include <cstdint>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "mt/translation_session.h"

namespace lingcast {

// A slow engine call for a caption never delays a line (and nothing on the
// hear thread waits: it only asks the engine call to stop). Realtime only: on
// the simulated clock computing takes no time, and results must not depend on
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

}  // namespace lingcast
