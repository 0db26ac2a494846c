// The stages of `lingcast render`:
//
//   ScriptSource --PlanItem--> SpeechStage --AudioBuffer-----------------> EncodeStage
//                                  \--SpeechTiming--> VideoStage --frame--/
//
// SpeechStage synthesizes each utterance (or a pause as silence) and places it
// on the audio timeline by sample count: audio is the master clock. VideoStage
// renders every frame whose pts falls inside the speech it has been told about,
// from the animation state at that pts. EncodeStage takes audio and video in pts
// order and writes the file, which appears only when everything succeeded.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/render_plan.h"
#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "compose/compositor.h"
#include "graph/stage.h"
#include "lipsync/phonemes_to_visemes.h"
#include "media/audio_buffer.h"
#include "media/text_segment.h"
#include "media/video_frame.h"
#include "media/viseme.h"
#include "core/clock.h"
#include "output/output_set.h"
#include "tts/tts_engine.h"

namespace lingcast {

// Counters the app thread reads while the stages run (progress bar, summary).
struct RenderProgress {
  std::atomic<int64_t> audio_samples{0};   // synthesized so far (at the TTS rate)
  std::atomic<bool> speech_done{false};    // the whole script has been synthesized
  std::atomic<int64_t> frames_rendered{0};
  std::atomic<int64_t> frames_encoded{0};
  // Wall seconds spent computing in each stage (excluding waits on queues).
  std::atomic<double> tts_seconds{0};
  std::atomic<double> render_seconds{0};
  std::atomic<double> encode_seconds{0};
};

// What the video side needs to know about a stretch of the audio timeline.
struct SpeechTiming {
  VisemeTrack visemes;              // relative to the packet's pts
  std::optional<SubtitleCue> cue;   // absolute times; none for pauses
  std::optional<Expression> expression;  // the face while this line is said (`@emotion`); none for pauses
  // `@title` at this stretch's start: the new lower third ("" clears it); none: unchanged.
  std::optional<std::string> title;
};

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
  SpeechStage(TtsEngine& engine, SpeechSettings settings, RenderProgress& progress);
  In<PlanItem> in{this, "in"};
  Out<AudioBuffer> audio{this, "audio"};
  Out<SpeechTiming> timing{this, "timing"};
  absl::StatusOr<Flow> Process() override;
  // Every subtitle cue emitted, for the SRT sidecar (read after the run).
  const std::vector<SubtitleCue>& cues() const { return cues_; }

 private:
  absl::Status Emit(const Packet<PlanItem>& source, AudioBuffer pcm, SpeechTiming speech_timing);

  TtsEngine& engine_;
  const SpeechSettings settings_;
  RenderProgress& progress_;
  int64_t samples_ = 0;  // audio timeline position, in samples at the engine rate
  std::vector<SubtitleCue> cues_;
};

class VideoStage : public Stage {
 public:
  // `burn_subtitles` false: subtitles are not drawn (srt sidecar or none).
  // `frames_in_flight`: frames that exist at once (being drawn or queued
  // downstream); the stage waits for one to be released before drawing more.
  VideoStage(std::unique_ptr<compose::Compositor> compositor, std::unique_ptr<AvatarRenderer> avatar,
             AnimatorOptions animation, int fps, bool burn_subtitles, RenderProgress& progress,
             int frames_in_flight = kDefaultFramesInFlight);
  // One being drawn, a few queued for the encoder: 4 x 3.7 MB at 720p.
  static constexpr int kDefaultFramesInFlight = 4;
  In<SpeechTiming> in{this, "in"};
  Out<std::shared_ptr<VideoFrame>> out{this, "out"};
  absl::Status Open() override;
  absl::StatusOr<Flow> Process() override;

 private:
  std::unique_ptr<compose::Compositor> compositor_;
  std::unique_ptr<AvatarRenderer> avatar_;
  AnimatorOptions animation_;  // grows by one ExpressionChange per `@emotion` change
  const int fps_;
  const bool burn_subtitles_;
  RenderProgress& progress_;
  const int frames_in_flight_;
  std::shared_ptr<VideoFramePool> pool_;
  VisemeTrack visemes_;  // absolute times; recent history and what is known ahead
  AvatarState state_;    // the state being drawn (read by the compositor's avatar callback)
  int64_t next_frame_ = 0;
};

class EncodeStage : public Stage {
 public:
  // `pace_clock`: when set (--realtime), frame i is written no earlier than
  // i / fps after the first, as a live source would deliver it. `cues_at_end`:
  // when set, called once the speech has ended and before the outputs finish,
  // to hand the subtitle cues to the outputs (SRT sidecars, HLS WebVTT).
  EncodeStage(std::unique_ptr<OutputSet> outputs, int fps, RenderProgress& progress, Clock* pace_clock = nullptr,
              std::function<std::vector<SubtitleCue>()> cues_at_end = nullptr);
  In<AudioBuffer> audio{this, "audio"};
  In<std::shared_ptr<VideoFrame>> video{this, "video"};
  absl::StatusOr<Flow> Process() override;
  // Set once Finish() succeeded: every output is complete.
  bool finished() const { return finished_; }
  // Thread-safe (OutputSet::stats): read by the progress loop while encoding.
  OutputSetStats stats() const { return outputs_->stats(); }

 private:
  std::unique_ptr<OutputSet> outputs_;
  const int fps_;
  RenderProgress& progress_;
  Clock* const pace_clock_;
  const std::function<std::vector<SubtitleCue>()> cues_at_end_;
  std::optional<MediaTime> pace_start_;
  bool audio_ended_ = false;
  bool video_ended_ = false;
  MediaTime audio_end_;  // end of the last audio packet taken
  MediaTime video_end_;  // end of the last video frame taken
  bool finished_ = false;
};

}  // namespace lingcast
