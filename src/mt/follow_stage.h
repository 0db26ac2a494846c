// FollowStage: the hearing stage of `lingcast live` -- VAD -> ASR -> script
// follower (mt/speech_follower.h) on the host's audio (audio/ingest_stage.h),
// sending what it decides on to the translate stage (mt/translate_stage.h).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/stage.h"
#include "media/live_messages.h"
#include "mt/provisional_interrupt.h"
#include "mt/speech_follower.h"

namespace lingcast {

struct FollowStageOptions {
  // Send the recognizer's partial hypotheses on (for provisional captions).
  bool partials = false;
  ProvisionalInterrupt* interrupt = nullptr;  // may be null; must outlive the stage
};

// Sends every decision the moment it is made (a line decided at an endpoint
// goes out before the recognizer's final pass), an UtteranceEnded at each
// endpoint, and a watermark after every piece of audio. Its name on the graph
// (latency boundaries, reports) is "hear".
class FollowStage : public Stage {
 public:
  FollowStage(SpeechFollower follower, std::vector<FollowerLine> lines, FollowStageOptions options = {});
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
  const FollowStageOptions options_;
  int64_t next_id_ = 0;
  MediaTime last_origin_;  // of the last audio heard (the end of input arrives with it)
  MediaTime heard_until_;  // the end of the last piece of audio fully heard
};

}  // namespace lingcast
