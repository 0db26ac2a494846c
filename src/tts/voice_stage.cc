#include "tts/voice_stage.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "text/utf8.h"

namespace lingcast {

absl::StatusOr<LagPolicy> ParseLagPolicy(const std::string& text) {
  if (text == "speedup") return LagPolicy::kSpeedUp;
  if (text == "shorten") return LagPolicy::kShorten;
  if (text == "skip") return LagPolicy::kSkip;
  return absl::InvalidArgumentError(
      absl::StrCat("--lag-policy: unknown policy \"", text, "\" (expected speedup, shorten or skip)"));
}

const char* LagPolicyName(LagPolicy policy) {
  switch (policy) {
    case LagPolicy::kSpeedUp:
      return "speedup";
    case LagPolicy::kShorten:
      return "shorten";
    case LagPolicy::kSkip:
      return "skip";
  }
  return "unknown";
}

VoiceStage::VoiceStage(TtsEngine& engine, VoiceStageOptions options)
    : Stage("voice"), engine_(engine), options_(std::move(options)) {}

double VoiceStage::SpeedUpRate(MediaTime lag, const VoiceStageOptions& options) {
  const double half = options.max_lag.seconds() / 2;
  if (options.policy != LagPolicy::kSpeedUp || lag.seconds() <= half) return options.rate;
  // From the normal rate at half of max_lag to max_speedup times it at max_lag.
  const double fraction = std::min(1.0, (lag.seconds() - half) / half);
  return options.rate * (1.0 + fraction * (options.max_speedup - 1.0));
}

double VoiceStage::PaceRate(MediaTime start, double expected_s, MediaTime host_end, const VoiceStageOptions& options) {
  const double lowest = options.rate, highest = options.rate * options.max_speedup;
  if (!options.keep_pace || options.policy != LagPolicy::kSpeedUp || expected_s <= 0) return lowest;
  const double room = (host_end + options.pace_slack - start).seconds();
  if (room <= 0) return highest;
  return std::clamp(expected_s / room, lowest, highest);
}

std::optional<MediaTime> VoiceStage::ExpectedHostEnd(const HeardLine& line) {
  if (!line.line_number) return std::nullopt;
  if (line.at_endpoint) return line.decided_at;  // the host has ended it
  if (!line.commit_point || *line.commit_point <= 0.05) return std::nullopt;
  const double heard_s = (line.decided_at - line.utterance_start).seconds();
  if (heard_s <= 0) return std::nullopt;
  return line.utterance_start + MediaTime::Seconds(heard_s / std::min(1.0, *line.commit_point));
}

namespace {

// What the avatar's speaking time is reckoned by: the characters that are said
// (letters, digits, hanzi), not spaces or punctuation.
int SpokenCharacters(std::string_view text) {
  int n = 0;
  for (const CodePoint& c : DecodeUtf8(text)) {
    if (IsHan(c.value) || IsLatinLetter(c.value) || IsAsciiDigit(c.value)) ++n;
  }
  return n;
}

}  // namespace

absl::Status VoiceStage::Open() {
  SynthesisRequest request;
  // A line's worth: it also gives the voice's speaking time per character, so
  // the first line of the show keeps the host's pace too.
  request.text = options_.language == Language::kZh ? "大家好，欢迎来到直播间。" : "Hello everyone, welcome to the show.";
  request.language = options_.language;
  request.voice = options_.voice;
  request.rate = options_.rate;
  absl::StatusOr<SynthesisResult> warm_up = engine_.Synthesize(request);
  if (!warm_up.ok()) {
    return absl::Status(warm_up.status().code(),
                        absl::StrCat("the avatar's voice cannot speak: ", warm_up.status().message()));
  }
  if (const int characters = SpokenCharacters(request.text); characters > 0 && !warm_up->audio.samples.empty()) {
    seconds_per_char_ = warm_up->audio.duration().seconds() * options_.rate / characters;
  }
  return absl::OkStatus();
}

absl::StatusOr<Flow> VoiceStage::Process() {
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

absl::StatusOr<SpokenLine> VoiceStage::Speak(const HeardLine& line) {
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
  // Keep the host's pace: a line the host is still saying ends near where the
  // host will end it.
  const int characters = SpokenCharacters(line.translation);
  if (const std::optional<MediaTime> host_end = ExpectedHostEnd(line); host_end && seconds_per_char_ > 0) {
    spoken.rate = std::max(spoken.rate, PaceRate(start, characters * seconds_per_char_, *host_end, options_));
  }
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
  spoken.phonemes = std::move(speech->track);
  spoken.pcm = std::move(speech->audio);
  if (spoken.pcm.sample_rate == 0) spoken.pcm.sample_rate = engine_.sample_rate();
  spoken.planned_start = start;
  busy_until_ = start + spoken.pcm.duration();
  if (characters > 0 && spoken.rate > 0) {
    // A running mean that follows the voice (lines of 10-40 characters): the
    // last few lines weigh most.
    const double observed = spoken.pcm.duration().seconds() * spoken.rate / characters;
    seconds_per_char_ = seconds_per_char_ > 0 ? 0.7 * seconds_per_char_ + 0.3 * observed : observed;
  }
  spoke_ = true;
  return spoken;
}

}  // namespace lingcast
