#include "tts/voice_stage.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "audio/resampler.h"
#include "core/status.h"
#include "text/utf8.h"
#include "tts/tts_stream.h"

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

VoiceStage::VoiceStage(TtsEngine& engine, VoiceStageOptions options, TtsEngine* lighter)
    : Stage("voice"), engine_(engine), lighter_(lighter), options_(std::move(options)) {}

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
  if (lighter_ != nullptr) {
    // Loaded now, not when the show is already under pressure.
    request.voice.clear();
    absl::StatusOr<SynthesisResult> lighter = lighter_->Synthesize(request);
    if (!lighter.ok()) {
      return absl::Status(lighter.status().code(),
                          absl::StrCat("the avatar's lighter voice cannot speak: ", lighter.status().message()));
    }
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
    LC_ASSIGN_OR_RETURN(SpokenLine spoken, Speak(*packet->value.line, *packet));
    event.spoken = std::move(spoken);
  }
  watermark_sent_ = std::max(watermark_sent_, event.watermark);
  LC_RETURN_IF_ERROR(out.Push(Packet<VoiceEvent>{std::move(event), packet->pts, packet->duration, packet->origin}));
  return Flow::kContinue;
}

absl::StatusOr<SpokenLine> VoiceStage::Speak(const HeardLine& line, const Packet<LiveEvent>& from) {
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

  spoken.planned_start = start;
  // The lighter voice speaks in its own voice (the main one's name means nothing
  // to it) and, when its rate differs, is resampled to the main voice's, which
  // the outputs were opened with.
  const bool lighter = lighter_ != nullptr && use_lighter_.load();
  TtsEngine& voice = lighter ? *lighter_ : engine_;
  if (lighter) lighter_lines_.fetch_add(1);
  TtsStreamOptions stream_options;
  stream_options.voice.language = options_.language;
  stream_options.voice.voice = lighter ? std::string() : options_.voice;
  stream_options.voice.rate = spoken.rate;
  absl::StatusOr<std::unique_ptr<TtsStream>> stream = TtsStream::Open(voice, std::move(stream_options));
  absl::Status said = stream.status();
  if (said.ok()) said = (*stream)->Push(line.translation);
  const int made_rate = voice.sample_rate();
  const int sample_rate = engine_.sample_rate();
  std::optional<Resampler> resampler;
  if (said.ok() && made_rate != sample_rate) {
    absl::StatusOr<Resampler> made = Resampler::Create(made_rate, sample_rate);
    said = made.status();
    if (made.ok()) resampler.emplace(*std::move(made));
  }
  // The parts as they are made; a part goes out once it holds audio (a part
  // without any waits for the next), and the last one is returned.
  SpokenLine pending = spoken;  // part 0 carries the line and its plan
  pending.pcm.sample_rate = sample_rate;
  int64_t samples_made = 0;  // at the rate the voice made them
  if (said.ok()) {
    (*stream)->Finish();
    while (said.ok()) {
      const MediaTime clause_start = MediaTime::FromSamples(samples_made, made_rate);
      absl::StatusOr<std::optional<SpeechPiece>> clause = (*stream)->Next([&](const SpeechPiece& part) {
        const std::vector<float>& samples = part.speech.audio.samples;
        if (resampler) {
          LC_RETURN_IF_ERROR(resampler->Push(samples, pending.pcm.samples));
        } else {
          pending.pcm.samples.insert(pending.pcm.samples.end(), samples.begin(), samples.end());
        }
        if (pending.phonemes.phonemes.empty()) pending.phonemes.language = part.speech.track.language;
        for (PhonemeEvent p : part.speech.track.phonemes) {
          p.start += clause_start;  // the part's track is timed from its clause's start
          pending.phonemes.phonemes.push_back(std::move(p));
        }
        samples_made += static_cast<int64_t>(samples.size());
        if (pending.pcm.samples.empty()) return absl::OkStatus();
        SpokenLine next_part;
        next_part.line.id = line.id;
        next_part.part = pending.part + 1;
        next_part.pcm.sample_rate = sample_rate;
        pending.continues = true;
        LC_RETURN_IF_ERROR(PushPart(std::exchange(pending, std::move(next_part)), from));
        return absl::OkStatus();
      });
      said = clause.status();
      if (said.ok() && !*clause) break;
    }
  }
  if (said.ok() && resampler) said = resampler->Flush(pending.pcm.samples);
  if (!said.ok()) {
    return absl::Status(said.code(), absl::StrCat("speaking \"", line.translation, "\": ", said.message()));
  }
  const MediaTime duration = MediaTime::FromSamples(samples_made, made_rate);
  busy_until_ = start + duration;
  if (characters > 0 && spoken.rate > 0) {
    // A running mean that follows the voice (lines of 10-40 characters): the
    // last few lines weigh most.
    const double observed = duration.seconds() * spoken.rate / characters;
    seconds_per_char_ = seconds_per_char_ > 0 ? 0.7 * seconds_per_char_ + 0.3 * observed : observed;
  }
  spoke_ = true;
  return pending;
}

absl::Status VoiceStage::PushPart(SpokenLine part, const Packet<LiveEvent>& from) {
  VoiceEvent event;
  event.watermark = watermark_sent_;  // not the line's own: the playout waits for the last part
  event.spoken = std::move(part);
  return out.Push(Packet<VoiceEvent>{std::move(event), from.pts, from.duration, from.origin});
}

}  // namespace lingcast
