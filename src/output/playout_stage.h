// PlayoutStage: the output clock of `lingcast live`. Once per video frame it
// writes the next frame's worth of audio (the avatar's voice, the host's voice
// under it when passed through, or silence) and the frame itself (the avatar
// animated from the voice's visemes, the bilingual subtitle of the line being
// said) to every output.
//
// Audio never stops and never drops: each tick writes exactly the samples of
// its frame period, so the outputs' audio is continuous and the timeline is
// the sample count. The queued lines are said in the order they were decided;
// a line starts at the first frame at or after its decision once the line
// before it (and the pause after it) is over.
//
// Clocks. Realtime: each tick waits for its frame time on the system clock;
// when the playout runs more than two frames late, frames are dropped (counted)
// but their audio is still written. Simulated: the playout moves the simulated
// clock itself, one frame per tick, after waiting for the voice stage's
// watermark to pass the frame time, so every run gives the same output.
//
// A line comes in parts as the voice makes it (SpokenLine::part/continues): it
// starts once its first part is here and grows as the rest arrives; its
// subtitle's end and the next line's earliest start are known with its last
// part. Samples of a line in play that are not here yet (a voice slower than
// real time) are written as silence and counted (voice_underruns); the line
// goes on from where it was when they come. On the simulated clock a line starts
// only once all of it is here, so outputs never depend on thread timing.
//
// Draining (a stop signal): the line being said is finished, parts still to
// come included; queued lines that have not started are not said (their
// subtitles still show).
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "media/live_messages.h"
#include "media/video_format.h"
#include "output/live_report.h"
#include "audio/resampler.h"
#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "compose/compositor.h"
#include "compose/gpu_compositor.h"
#include "compose/picture_in_picture.h"
#include "core/clock.h"
#include "core/session_start.h"
#include "graph/stage.h"
#include "output/output_set.h"

namespace lingcast {

// What draws a picture of one size: built at start-up, and again by a video
// switch for the new size (layout, fonts and the avatar's scale follow it).
// With `gpu`, the CUDA renderer draws the compositor's layers and the
// picture-in-picture and hands the encoder yuv420p planes.
struct PlayoutPicture {
  std::unique_ptr<compose::Compositor> compositor;
  std::unique_ptr<compose::PictureInPicture> picture_in_picture;  // null: none
  // Null: the CPU draws. Declared after the two it reads, so it goes first.
  std::unique_ptr<compose::GpuCompositor> gpu;
};
using PlayoutPictureFactory = std::function<absl::StatusOr<PlayoutPicture>(int width, int height)>;

struct PlayoutOptions {
  int fps = 30;  // at the start; a video switch changes it
  int output_rate = 22050;   // the voice's rate; the outputs' audio input rate
  Language source = Language::kEn;  // the host's language (the subtitle's second line)
  Language target = Language::kZh;  // the avatar's (its first line)
  bool simulated = false;    // see the header comment
  MediaTime session_start;   // clock reading at timeline 0...
  SessionStart* start_when_running = nullptr;  // ...or read from this at the first tick (not owned)
  MediaTime line_gap = MediaTime::Millis(250);
  MediaTime subtitle_linger = MediaTime::Millis(1500);
  MediaTime subtitle_only_hold = MediaTime::Millis(1500);  // a line with nothing to say
  // Host voice pass-through (In `host` connected): delayed by `host_delay` so a
  // live source's jitter does not starve it; gains in dB.
  MediaTime host_delay = MediaTime::Millis(100);
  double host_gain_db = -6;
  double duck_db = -20;
  AnimatorOptions animation;
  MediaTime tail = MediaTime::Millis(500);  // written after the last line before the end
  // Live video switches (the `video` control command, the server's video
  // endpoint): polled once per frame; each change applies at the next frame
  // boundary, and each error (a `video` line that was no valid command) is
  // a warning, changing nothing. Both optional: without them the picture
  // never changes.
  std::function<std::vector<absl::StatusOr<VideoChange>>()> take_video_changes;
  PlayoutPictureFactory make_picture;
};

class PlayoutStage : public Stage {
 public:
  PlayoutStage(PlayoutOptions options, PlayoutPicture picture, std::unique_ptr<AvatarRenderer> avatar,
               OutputSet& outputs, LiveMonitor& monitor);
  In<VoiceEvent> in{this, "in"};
  In<AudioBuffer> host{this, "host"};  // optional: the host's voice, 16 kHz
  absl::Status Open() override;
  absl::StatusOr<Flow> Process() override;

 private:
  struct Playing {
    SpokenLine spoken;
    size_t offset = 0;  // samples already written
    MediaTime start;    // its first sample on the output
    int64_t underrun = 0;  // silent samples written while its next part was awaited
  };
  void TakeVoiceEvents(MediaTime t);
  void Take(VoiceEvent event);
  // A later part of a line queued or in play (dropped if that line was not said).
  void TakeLinePart(SpokenLine part);
  // Simulated clock: takes the voice's events until the queue's first line is whole.
  void AwaitWholeLine();
  // The line in play has all its parts: its subtitle's end is known.
  void LineComplete();
  absl::Status TakeHostAudio(MediaTime until);
  void StartNextLines(MediaTime t);
  void ShowCue(const SpokenLine& spoken, MediaTime start, MediaTime end);
  void PublishCue(int64_t line_id);
  absl::StatusOr<AudioBuffer> MixTick(int64_t first_sample, int64_t samples);
  // Makes `picture` the one drawn, its avatar layer drawn from state_.
  void UsePicture(PlayoutPicture picture);
  absl::Status DrawFrame(MediaTime t);
  bool Done() const;
  void Publish();
  // The frame `tick`'s time: frames since the last switch at its frame rate.
  MediaTime FrameTime(int64_t tick) const;
  // Applies the video changes asked for since the last frame, at this frame's
  // time. One that cannot apply (its encoder or picture fails to open) is a
  // warning and changes nothing.
  void ApplyVideoChanges();

  const PlayoutOptions options_;
  MediaTime session_start_;  // options_.session_start, or fixed at the first tick
  std::unique_ptr<AvatarRenderer> avatar_;
  PlayoutPicture picture_;
  OutputSet& outputs_;
  LiveMonitor& monitor_;

  int64_t tick_ = 0;
  // The picture's cadence since the last switch (at start: 0, 0, options_.fps).
  int64_t segment_tick_ = 0;
  MediaTime segment_start_;
  int fps_;
  bool voice_ended_ = false;
  MediaTime watermark_ = MediaTime::Micros(-1);
  std::deque<SpokenLine> queue_;
  std::optional<Playing> playing_;
  MediaTime next_start_allowed_;  // after the last line and its pause
  std::optional<SubtitleCue> cue_;      // the subtitle on screen (or last shown)
  std::optional<SubtitleCue> pending_cue_;  // ended; goes to the outputs' timed text at the next cue
  // The newest provisional caption of off-script speech (ProvisionalCaption):
  // drawn, never written to the outputs' timed text, while the avatar is silent
  // and nothing waits to be said, until a line of its utterance arrives.
  std::optional<ProvisionalCaption> caption_;
  int64_t caption_shown_for_ = -1;  // the last utterance whose caption was drawn (reported once)
  std::pair<int64_t, int> caption_published_{-1, 0};  // the last provisional caption sent to the observer
  VisemeTrack visemes_;                  // absolute times on the output timeline
  AvatarState state_;
  VideoFrame frame_;

  // Host pass-through: resampled to the output rate, starting at host_start_.
  std::optional<Resampler> host_resampler_;
  std::deque<float> host_samples_;
  int64_t host_first_sample_ = 0;  // output-rate index of host_samples_.front() on the host timeline
  bool host_ended_ = false;

  LiveCounters counters_;
  std::optional<MediaTime> end_at_;  // when everything is said: the tail ends here
};

}  // namespace lingcast
