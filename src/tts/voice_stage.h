// VoiceStage: the avatar's voice. Synthesizes each translated line in the order
// the lines were decided, and keeps the avatar from falling behind the host.
//
// It plans the output the way PlayoutStage will play it: a line starts when it
// was decided or when the line before it (plus a short pause) ends, whichever
// is later. The lag of a line is how far its start lies behind its decision.
// The lag policy works on that plan (VoiceStageOptions: speedup raises the speaking
// rate as the lag grows past half of max_lag; shorten drops the pause between
// queued lines; every policy skips a line whose lag would exceed max_lag, which
// then shows as subtitles only). The plan depends only on the timeline, never
// on the wall clock, so a recording gives the same decisions every run.
//
// A line is synthesized clause by clause, part by part (TtsStream::Next with a
// part callback), and goes to the playout as soon as its first part exists
// (SpokenLine part 0, continuing), its later parts following; the input event's
// watermark goes with the last part, so the playout on the simulated clock never
// passes a frame before the whole line is there.
#pragma once

#include <atomic>
#include <optional>

#include "media/live_messages.h"
#include "graph/stage.h"
#include "tts/tts_engine.h"

namespace lingcast {

// What keeps the avatar from falling behind the host when translations queue
// up faster than it can speak them (docs/live.md).
enum class LagPolicy {
  kSpeedUp,  // speak faster (up to max_speedup) as the lag grows past half of max_lag
  kShorten,  // drop the pause between queued lines
  kSkip,     // only skip (below)
};
// Every policy skips (subtitles only) a line that would start more than
// max_lag after the host finished deciding it.

absl::StatusOr<LagPolicy> ParseLagPolicy(const std::string& text);  // --lag-policy
const char* LagPolicyName(LagPolicy policy);

struct VoiceStageOptions {
  Language language = Language::kZh;
  std::string voice;  // empty: the engine's default for the language
  double rate = 1.0;
  LagPolicy policy = LagPolicy::kSpeedUp;
  MediaTime max_lag = MediaTime::Seconds(4);
  double max_speedup = 1.5;
  MediaTime line_gap = MediaTime::Millis(250);
  int output_rate = 0;  // the engine's rate when 0
  // Keeping the host's pace (speedup policy): a script line committed while the
  // host is still saying it is spoken fast enough (up to max_speedup) to end no
  // later than `pace_slack` after the host is expected to end it (the line's
  // length over the fraction heard at the commit, from the utterance's start).
  // The avatar's own length is expected from its speaking rate so far (seconds
  // per character at rate 1, learned from every line it spoke).
  bool keep_pace = true;
  MediaTime pace_slack = MediaTime::Millis(800);
};

class VoiceStage : public Stage {
 public:
  // `lighter`: a voice that costs less (espeak-ng beside a neural voice), taken
  // while UseLighterVoice(true) holds; null: none. Not owned; both outlive the stage.
  VoiceStage(TtsEngine& engine, VoiceStageOptions options, TtsEngine* lighter = nullptr);
  In<LiveEvent> in{this, "in"};
  Out<VoiceEvent> out{this, "out"};
  // Says a phrase and throws it away (keeping its pace): the first synthesis loads
  // its data (espeak-ng's dictionary, ~100 ms), which must not delay the
  // show's first line.
  absl::Status Open() override;
  absl::StatusOr<Flow> Process() override;

  // The planned lag of the latest line (for the status line).
  MediaTime planned_lag() const { return MediaTime::Micros(planned_lag_us_.load()); }
  int64_t skipped() const { return skipped_.load(); }
  int64_t sped_up() const { return sped_up_.load(); }
  // Lines said by the lighter voice.
  int64_t lighter_lines() const { return lighter_lines_.load(); }
  bool has_lighter_voice() const { return lighter_ != nullptr; }

  // From any thread: the lines planned from now on are said by the lighter
  // voice (true) or the main one again (false); a line being said is finished
  // in its voice. The third rung of the watchdog's ladder (core/degradation_ladder.h):
  // a slow machine keeps the show on time. No effect without a lighter voice.
  void UseLighterVoice(bool lighter) { use_lighter_.store(lighter); }

  // The rate the policy picks for a line planned `lag` behind (pure; tested alone).
  static double SpeedUpRate(MediaTime lag, const VoiceStageOptions& options);
  // The rate that makes `expected` seconds of speech (at rate 1) starting at
  // `start` end by `host_end` + pace_slack, within [rate, rate * max_speedup]
  // (pure; tested alone).
  static double PaceRate(MediaTime start, double expected_s, MediaTime host_end, const VoiceStageOptions& options);
  // When the host is expected to end `line`: its utterance start plus the time
  // heard so far over the fraction of the line that was; the decision itself
  // for a line decided at the endpoint (the host has ended it); nullopt off script.
  static std::optional<MediaTime> ExpectedHostEnd(const HeardLine& line);

 private:
  // Plans `line` (lag policy, rate) and says it: every part but the last is
  // pushed here; the last (or the line whole, when there is nothing to say) is
  // returned, to go out with the input event's watermark.
  absl::StatusOr<SpokenLine> Speak(const HeardLine& line, const Packet<LiveEvent>& from);
  absl::Status PushPart(SpokenLine part, const Packet<LiveEvent>& from);

  TtsEngine& engine_;
  TtsEngine* const lighter_;
  const VoiceStageOptions options_;
  // Seconds of speech a character of text takes at rate 1 (learned from the
  // lines spoken; 0 until the first).
  double seconds_per_char_ = 0;
  MediaTime busy_until_;  // planned end of the last line spoken
  bool spoke_ = false;
  MediaTime watermark_sent_ = MediaTime::Micros(-1);  // the latest watermark pushed
  std::atomic<int64_t> planned_lag_us_{0};
  std::atomic<int64_t> skipped_{0};
  std::atomic<int64_t> sped_up_{0};
  std::atomic<int64_t> lighter_lines_{0};
  std::atomic<bool> use_lighter_{false};
};

}  // namespace lingcast
