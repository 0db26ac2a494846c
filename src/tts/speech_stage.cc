#include "tts/speech_stage.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {

// --- ScriptSource ------------------------------------------------------------

ScriptSource::ScriptSource(std::vector<PlanItem> plan) : Stage("script"), plan_(std::move(plan)) {}

absl::StatusOr<Flow> ScriptSource::Process() {
  if (next_ == plan_.size()) return Flow::kFinished;
  // pts of script items is their order; the speech stage places them in time.
  const auto index = static_cast<int64_t>(next_);
  LC_RETURN_IF_ERROR(out.Push(Packet<PlanItem>{plan_[next_++], MediaTime::Micros(index), {}, clock().Now()}));
  return Flow::kContinue;
}

// --- SpeechStage -------------------------------------------------------------

SpeechStage::SpeechStage(TtsEngine& engine, SpeechSettings settings)
    : Stage("tts"), engine_(engine), settings_(std::move(settings)) {}

absl::StatusOr<Flow> SpeechStage::Process() {
  auto item = in.Pop();
  if (!item) {
    speech_done_.store(true);
    return Flow::kFinished;
  }
  const int rate = engine_.sample_rate();
  if (const auto* pause = std::get_if<PlannedPause>(&item->value)) {
    SpeechTiming pause_timing;
    pause_timing.title = pause->title;
    LC_RETURN_IF_ERROR(Emit(*item, AudioBuffer::Silence(pause->duration, rate), std::move(pause_timing)));
    return Flow::kContinue;
  }
  const auto& utterance = std::get<Utterance>(item->value);
  SynthesisRequest request;
  request.text = utterance.spoken.text;
  request.language = utterance.spoken.language;
  request.voice = utterance.spoken.language == Language::kZh ? settings_.voice_zh : settings_.voice_en;
  request.rate = settings_.rate;
  absl::StatusOr<SynthesisResult> speech;
  {
    WorkTime::Scope timer(tts_time_);
    speech = engine_.Synthesize(request);
  }
  if (!speech.ok()) {
    return absl::Status(speech.status().code(),
                        absl::StrCat("line ", utterance.line_number, ": ", speech.status().message()));
  }
  SpeechTiming speech_timing;
  speech_timing.expression = utterance.expression;
  speech_timing.title = utterance.title;
  const MediaTime start = MediaTime::FromSamples(samples_, rate);
  const MediaTime end = MediaTime::FromSamples(samples_ + speech->audio.frames(), rate);
  if (end > start) {  // a line with nothing to say (only punctuation) shows no subtitle
    speech_timing.cue = SubtitleCue{start, end, utterance.spoken, utterance.translation};
    // Word timing for the highlight: offsets are into the spoken text, times
    // from the start of this utterance's audio.
    const std::vector<WordBoundary>& words = speech->track.words;
    for (size_t i = 0; i < words.size(); ++i) {
      const MediaTime word_end = WordEnd(speech->track, i, end - start);
      speech_timing.cue->words.push_back(
          CueWord{words[i].text_offset, words[i].text_length, start + words[i].start, start + word_end});
    }
    cues_.push_back(*speech_timing.cue);
  }
  speech_timing.phonemes = std::move(speech->track);
  LC_RETURN_IF_ERROR(Emit(*item, std::move(speech->audio), std::move(speech_timing)));
  return Flow::kContinue;
}

absl::Status SpeechStage::Emit(const Packet<PlanItem>& source, AudioBuffer pcm, SpeechTiming speech_timing) {
  const int rate = engine_.sample_rate();
  if (pcm.sample_rate == 0) pcm.sample_rate = rate;
  if (pcm.sample_rate != rate) {
    return absl::InternalError(absl::StrCat("TTS returned audio at ", pcm.sample_rate, " Hz, expected ", rate));
  }
  const int64_t frames = pcm.frames();
  const MediaTime pts = MediaTime::FromSamples(samples_, rate);
  const MediaTime end = MediaTime::FromSamples(samples_ + frames, rate);
  samples_ += frames;
  audio_samples_.store(samples_);
  Packet<SpeechTiming> timing_packet{std::move(speech_timing), pts, end - pts, source.origin};
  LC_RETURN_IF_ERROR(timing.Push(std::move(timing_packet)));
  return audio.Push(Packet<AudioBuffer>{std::move(pcm), pts, end - pts, source.origin});
}

}  // namespace lingcast
