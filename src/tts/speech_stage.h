// The speech side of `lingcast render`:
//
//   ScriptSource --PlanItem--> SpeechStage --AudioBuffer--> (encode stage)
//                                   \--SpeechTiming--> (render stage)
//
// SpeechStage synthesizes each utterance (or a pause as silence) and places it
// on the audio timeline by sample count: audio is the master clock. With each
// stretch of audio it sends what the video side needs (media/speech_timing.h):
// the phonemes said, the subtitle cue, the face and the lower third.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/work_time.h"
#include "graph/stage.h"
#include "media/audio_buffer.h"
#include "media/expression.h"
#include "media/speech_timing.h"
#include "media/text_segment.h"
#include "tts/tts_engine.h"

namespace lingcast {

// One item of a render's plan (app/render_plan.h makes them from a script).
struct Utterance {
  int line_number = 0;     // in the script, for error messages
  TextSegment spoken;      // what the TTS says; also the first subtitle line
  TextSegment translation; // the second subtitle line (may be empty)
  Expression expression = Expression::kNeutral;  // from the last `@emotion` before the line
  // `@title` just before this item (the last one when several): the lower
  // third from the item's start, "NAME|SUBTITLE"; "" clears it (`@title off`).
  std::optional<std::string> title;
};

struct PlannedPause {
  MediaTime duration;
  std::optional<std::string> title;  // as Utterance::title
};

using PlanItem = std::variant<Utterance, PlannedPause>;

// Sends the plan's items in order (their pts is their index; the speech stage
// places them in time).
class ScriptSource : public Stage {
 public:
  explicit ScriptSource(std::vector<PlanItem> plan);
  Out<PlanItem> out{this, "out"};
  absl::StatusOr<Flow> Process() override;

 private:
  std::vector<PlanItem> plan_;
  size_t next_ = 0;
};

struct SpeechSettings {
  std::string voice_zh;
  std::string voice_en;
  double rate = 1.0;
};

class SpeechStage : public Stage {
 public:
  SpeechStage(TtsEngine& engine, SpeechSettings settings);
  In<PlanItem> in{this, "in"};
  Out<AudioBuffer> audio{this, "audio"};
  Out<SpeechTiming> timing{this, "timing"};
  absl::StatusOr<Flow> Process() override;

  // Every subtitle cue emitted, for the SRT sidecar (read after the run).
  const std::vector<SubtitleCue>& cues() const { return cues_; }
  // Read by the job's progress line while the stage runs (thread-safe).
  int64_t audio_samples() const { return audio_samples_.load(); }  // at the engine's rate
  bool speech_done() const { return speech_done_.load(); }         // the whole plan is synthesized
  double tts_seconds() const { return tts_time_.seconds(); }       // computing, not waiting

 private:
  absl::Status Emit(const Packet<PlanItem>& source, AudioBuffer pcm, SpeechTiming speech_timing);

  TtsEngine& engine_;
  const SpeechSettings settings_;
  int64_t samples_ = 0;  // audio timeline position, in samples at the engine rate
  std::vector<SubtitleCue> cues_;
  std::atomic<int64_t> audio_samples_{0};
  std::atomic<bool> speech_done_{false};
  WorkTime tts_time_;
};

}  // namespace lingcast
