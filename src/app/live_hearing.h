// The hearing side of `lingcast live`: the host's audio comes in (LiveIngest),
// is heard (LiveHear: VAD -> ASR -> script follower) and translated
// (LiveTranslate: the script's own translation, else the fallback engines).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/live_control.h"
#include "app/live_messages.h"
#include "app/speech_follower.h"
#include "app/translation_setup.h"
#include "core/logger.h"
#include "graph/stage.h"

namespace lingcast {

// Fills `chunk` with the next 16 kHz mono audio; false at the end of the input.
using LiveAudioReader = std::function<absl::StatusOr<bool>(AudioBuffer& chunk)>;

struct LiveIngestOptions {
  // Wait for the clock before passing each chunk on, as a live source would
  // deliver it (a file played at real time). Off: as fast as the pipeline takes
  // it (a simulated clock, or a source that paces itself, like stdin).
  bool pace = true;
  // The clock reading at which the session's timeline is 0.
  MediaTime session_start;
  // Stamp each chunk's origin (its arrival) as session_start + its end, the
  // moment a live source would have delivered it, instead of the clock reading
  // (a simulated clock runs behind a source read ahead).
  bool origin_from_timeline = true;
};

// Reads the host's audio in pieces of at most 20 ms and sends each on with its
// place on the timeline. Stops early (the stream then ends normally) once
// `stop` is set: SIGINT/SIGTERM.
class LiveIngest : public Stage {
 public:
  LiveIngest(LiveAudioReader read, LiveIngestOptions options, const std::atomic<bool>& stop);
  Out<AudioBuffer> out{this, "out"};
  absl::StatusOr<Flow> Process() override;
  MediaTime position() const { return MediaTime::Micros(position_us_.load()); }

 private:
  LiveAudioReader read_;
  const LiveIngestOptions options_;
  const std::atomic<bool>& stop_;
  std::atomic<int64_t> position_us_{0};
  int64_t samples_ = 0;
};

// VAD -> ASR -> script follower. Sends every decision the moment it is made (a
// line decided at an endpoint goes out before the recognizer's final pass), an
// UtteranceEnded at each endpoint, and a watermark after every piece of audio.
class LiveHear : public Stage {
 public:
  LiveHear(SpeechFollower follower, std::vector<FollowerLine> lines);
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
  int64_t next_id_ = 0;
  MediaTime last_origin_;  // of the last audio heard (the end of input arrives with it)
  MediaTime heard_until_;  // the end of the last piece of audio fully heard
};

// Fills in the translation of off-script lines from the fallback engines (the
// script's lines carry their own). A line no engine could translate (no memory
// match, the LLM down) stays untranslated: subtitles only, and failures() counts
// it. Without engines (a null chain) every off-script line is subtitles only.
// It also applies the operator's corrections (live_control.h) on its own thread,
// the only one that touches the memory and the glossary while the job runs.
class LiveTranslate : public Stage {
 public:
  // `control` may be null (no --control); it must outlive the stage.
  LiveTranslate(TranslationStack& stack, Language from, Language to, std::vector<FollowerLine> lines,
                LiveControl* control, Logger& logger);
  In<LiveEvent> in{this, "in"};
  Out<LiveEvent> out{this, "out"};
  absl::StatusOr<Flow> Process() override;
  int64_t failures() const { return failures_.load(); }
  int64_t corrections_applied() const { return corrections_applied_.load(); }
  int64_t corrections_rejected() const { return corrections_rejected_.load(); }

 private:
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
  std::atomic<int64_t> failures_{0};
  std::atomic<int64_t> corrections_applied_{0};
  std::atomic<int64_t> corrections_rejected_{0};
};

}  // namespace lingcast
