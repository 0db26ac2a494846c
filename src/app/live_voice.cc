#include "app/live_voice.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {

LiveVoice::LiveVoice(TtsEngine& engine, LiveVoiceOptions options)
    : Stage("voice"), engine_(engine), options_(std::move(options)) {}

double LiveVoice::SpeedUpRate(MediaTime lag, const LiveVoiceOptions& options) {
  const double half = options.max_lag.seconds() / 2;
  if (options.policy != LagPolicy::kSpeedUp || lag.seconds() <= half) return options.rate;
  // From the normal rate at half of max_lag to max_speedup times it at max_lag.
  const double fraction = std::min(1.0, (lag.seconds() - half) / half);
  return options.rate * (1.0 + fraction * (options.max_speedup - 1.0));
}

absl::Status LiveVoice::Open() {
  SynthesisRequest request;
  request.text = options_.language == Language::kZh ? "你好。" : "Hello.";
  request.language = options_.language;
  request.voice = options_.voice;
  request.rate = options_.rate;
  absl::StatusOr<SynthesisResult> warm_up = engine_.Synthesize(request);
  if (!warm_up.ok()) {
    return absl::Status(warm_up.status().code(),
                        absl::StrCat("the avatar's voice cannot speak: ", warm_up.status().message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Flow> LiveVoice::Process() {
  auto packet = in.Pop();
  if (!packet) return Flow::kFinished;
  VoiceEvent event;
  event.watermark = packet->value.watermark;
  event.ended = std::move(packet->value.ended);
  event.caption = std::move(packet->value.caption);  // shown by the playout as it is
  if (packet->value.line) {
    LC_ASSIGN_OR_RETURN(SpokenLine spoken, Speak(*packet->value.line));
    event.spoken = std::move(spoken);
  }
  LC_RETURN_IF_ERROR(out.Push(Packet<VoiceEvent>{std::move(event), packet->pts, packet->duration, packet->origin}));
  return Flow::kContinue;
}

absl::StatusOr<SpokenLine> LiveVoice::Speak(const HeardLine& line) {
  SpokenLine spoken;
  spoken.line = line;
  if (line.translation.empty()) return spoken;  // subtitles only

  // Where the playout will start it, if it is spoken.
  const bool shorten = options_.policy == LagPolicy::kShorten;
  const MediaTime after_previous = spoke_ ? busy_until_ + (shorten ? MediaTime::Zero() : options_.line_gap) : line.decided_at;
  MediaTime start = std::max(line.decided_at, after_previous);
  if (shorten && start > line.decided_at) spoken.follows_gap = false;
  const MediaTime lag = start - line.decided_at;
  planned_lag_us_.store(lag.micros());
  if (lag > options_.max_lag) {
    spoken.skipped = true;
    skipped_.fetch_add(1);
    return spoken;
  }
  spoken.rate = SpeedUpRate(lag, options_);
  if (spoken.rate > options_.rate) sped_up_.fetch_add(1);

  SynthesisRequest request;
  request.text = line.translation;
  request.language = options_.language;
  request.voice = options_.voice;
  request.rate = spoken.rate;
  absl::StatusOr<SynthesisResult> speech = engine_.Synthesize(request);
  if (!speech.ok()) {
    return absl::Status(speech.status().code(),
                        absl::StrCat("speaking \"", line.translation, "\": ", speech.status().message()));
  }
  spoken.visemes = PhonemesToVisemes(speech->track);
  spoken.pcm = std::move(speech->audio);
  if (spoken.pcm.sample_rate == 0) spoken.pcm.sample_rate = engine_.sample_rate();
  spoken.planned_start = start;
  busy_until_ = start + spoken.pcm.duration();
  spoke_ = true;
  return spoken;
}

}  // namespace lingcast
