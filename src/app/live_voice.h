// LiveVoice: the avatar's voice. Synthesizes each translated line in the order
// the lines were decided, and keeps the avatar from falling behind the host.
//
// It plans the output the way LivePlayout will play it: a line starts when it
// was decided or when the line before it (plus a short pause) ends, whichever
// is later. The lag of a line is how far its start lies behind its decision.
// The lag policy works on that plan (LiveOptions: speedup raises the speaking
// rate as the lag grows past half of max_lag; shorten drops the pause between
// queued lines; every policy skips a line whose lag would exceed max_lag, which
// then shows as subtitles only). The plan depends only on the timeline, never
// on the wall clock, so a recording gives the same decisions every run.
#pragma once

#include <atomic>

#include "app/live_messages.h"
#include "app/live_options.h"
#include "graph/stage.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct LiveVoiceOptions {
  Language language = Language::kZh;
  std::string voice;  // empty: the engine's default for the language
  double rate = 1.0;
  LagPolicy policy = LagPolicy::kSpeedUp;
  MediaTime max_lag = MediaTime::Seconds(4);
  double max_speedup = 1.5;
  MediaTime line_gap = MediaTime::Millis(250);
  int output_rate = 0;  // the engine's rate when 0
};

class LiveVoice : public Stage {
 public:
  LiveVoice(TtsEngine& engine, LiveVoiceOptions options);
  In<LiveEvent> in{this, "in"};
  Out<VoiceEvent> out{this, "out"};
  // Says a short phrase and throws it away: the voice's first synthesis loads
  // its data (espeak-ng's dictionary, ~100 ms), which must not delay the
  // show's first line.
  absl::Status Open() override;
  absl::StatusOr<Flow> Process() override;

  // The planned lag of the latest line (for the status line).
  MediaTime planned_lag() const { return MediaTime::Micros(planned_lag_us_.load()); }
  int64_t skipped() const { return skipped_.load(); }
  int64_t sped_up() const { return sped_up_.load(); }

  // The rate the policy picks for a line planned `lag` behind (pure; tested alone).
  static double SpeedUpRate(MediaTime lag, const LiveVoiceOptions& options);

 private:
  absl::StatusOr<SpokenLine> Speak(const HeardLine& line);

  TtsEngine& engine_;
  const LiveVoiceOptions options_;
  MediaTime busy_until_;  // planned end of the last line spoken
  bool spoke_ = false;
  std::atomic<int64_t> planned_lag_us_{0};
  std::atomic<int64_t> skipped_{0};
  std::atomic<int64_t> sped_up_{0};
};

}  // namespace lingcast
