#include "tts/bilingual_voice.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "audio/resampler.h"
#include "core/status.h"
#include "text/utf8.h"
#include "tts/speech_plan.h"

namespace lingcast {
namespace {

// The settings a run of `language` is spoken with: a voice named for the other
// language's engine would be refused there (or mean another voice).
VoiceSettings SettingsFor(const VoiceSettings& settings, Language language) {
  VoiceSettings out = settings;
  out.language = language;
  if (language != settings.language) out.voice.clear();
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<BilingualVoice>> BilingualVoice::Create(std::shared_ptr<TtsEngine> english,
                                                                       std::shared_ptr<TtsEngine> mandarin) {
  if (english == nullptr || mandarin == nullptr) {
    return absl::InvalidArgumentError("a bilingual voice needs an English and a Mandarin engine");
  }
  return std::unique_ptr<BilingualVoice>(new BilingualVoice(std::move(english), std::move(mandarin)));
}

BilingualVoice::BilingualVoice(std::shared_ptr<TtsEngine> english, std::shared_ptr<TtsEngine> mandarin)
    : english_(std::move(english)), mandarin_(std::move(mandarin)),
      sample_rate_(std::max(english_->sample_rate(), mandarin_->sample_rate())) {}

std::string BilingualVoice::name() const { return absl::StrCat(english_->name(), "+", mandarin_->name()); }

absl::StatusOr<SynthesisResult> BilingualVoice::AtOurRate(SynthesisResult piece) const {
  if (piece.audio.sample_rate == sample_rate_ || piece.audio.samples.empty()) {
    piece.audio.sample_rate = sample_rate_;
    return piece;
  }
  LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(piece.audio.sample_rate, sample_rate_));
  std::vector<float> samples;
  samples.reserve(piece.audio.samples.size() * static_cast<std::size_t>(sample_rate_) /
                  static_cast<std::size_t>(piece.audio.sample_rate) + 64);
  LC_RETURN_IF_ERROR(resampler.Push(piece.audio.samples, samples));
  LC_RETURN_IF_ERROR(resampler.Flush(samples));
  piece.audio.samples = std::move(samples);
  piece.audio.sample_rate = sample_rate_;
  return piece;
}

// Speaks `text` run by run through `speak(run_text, run_language)`.
template <typename Speak>
absl::StatusOr<SynthesisResult> SpeakRuns(std::string_view text, Language language, int sample_rate, Speak&& speak) {
  SynthesisResult result;
  result.audio.sample_rate = sample_rate;
  result.track.language = language;
  for (const LanguageSpan& span : SplitLanguageSpans(text, language)) {
    const std::string_view run = text.substr(static_cast<std::size_t>(span.begin),
                                             static_cast<std::size_t>(span.end - span.begin));
    LC_ASSIGN_OR_RETURN(SynthesisResult piece, speak(run, span.language));
    if (piece.audio.samples.empty()) continue;
    AppendSynthesis(result, std::move(piece), span.begin);
  }
  result.track.language = language;
  FinishPhonemeTrack(result);
  return result;
}

absl::StatusOr<SynthesisResult> BilingualVoice::Synthesize(const SynthesisRequest& request) {
  LC_RETURN_IF_ERROR(ValidateVoiceSettings(request));
  LC_RETURN_IF_ERROR(ValidateUtf8(request.text));
  return SpeakRuns(request.text, request.language, sample_rate_,
                   [&](std::string_view run, Language language) -> absl::StatusOr<SynthesisResult> {
                     SynthesisRequest part;
                     static_cast<VoiceSettings&>(part) = SettingsFor(request, language);
                     part.text = std::string(run);
                     LC_ASSIGN_OR_RETURN(SynthesisResult piece, EngineFor(language).Synthesize(part));
                     return AtOurRate(std::move(piece));
                   });
}

// One session of each engine, opened when a run of its language first comes.
class BilingualVoice::Session : public TtsSession {
 public:
  Session(const BilingualVoice& voice, VoiceSettings settings) : voice_(voice), settings_(std::move(settings)) {}

  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    if (cancelled_) return absl::CancelledError("speech synthesis was cancelled");
    LC_RETURN_IF_ERROR(ValidateUtf8(clause));
    return SpeakRuns(clause, language, voice_.sample_rate_,
                     [&](std::string_view run, Language run_language) -> absl::StatusOr<SynthesisResult> {
                       LC_ASSIGN_OR_RETURN(TtsSession * session, SessionFor(run_language));
                       LC_ASSIGN_OR_RETURN(SynthesisResult piece, session->SynthesizeClause(run, run_language));
                       return voice_.AtOurRate(std::move(piece));
                     });
  }
  // A clause of one language, spoken by an engine at our rate, streams as that
  // engine streams it; a clause that switches language, or needs resampling,
  // comes whole.
  absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) override {
    if (cancelled_) return absl::CancelledError("speech synthesis was cancelled");
    LC_RETURN_IF_ERROR(ValidateUtf8(clause));
    const std::vector<LanguageSpan> spans = SplitLanguageSpans(clause, language);
    if (spans.size() != 1 || voice_.EngineFor(spans[0].language).sample_rate() != voice_.sample_rate_) {
      return TtsSession::StreamClause(clause, language, sink);
    }
    LC_ASSIGN_OR_RETURN(TtsSession * session, SessionFor(spans[0].language));
    const int offset = spans[0].begin;
    const std::string_view run = clause.substr(static_cast<std::size_t>(offset),
                                               static_cast<std::size_t>(spans[0].end - spans[0].begin));
    return session->StreamClause(run, spans[0].language, [&](SynthesisResult part) {
      part.audio.sample_rate = voice_.sample_rate_;
      part.track.language = language;
      for (WordBoundary& w : part.track.words) w.text_offset += offset;
      return sink(std::move(part));
    });
  }
  void Cancel() override {
    cancelled_ = true;
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& session : sessions_) {
      if (session != nullptr) session->Cancel();
    }
  }
  bool cancelled() const override { return cancelled_; }

  absl::Status OpenFor(Language language) { return SessionFor(language).status(); }

 private:
  absl::StatusOr<TtsSession*> SessionFor(Language language) {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<TtsSession>& session = sessions_[language == Language::kZh ? 1 : 0];
    if (session == nullptr) {
      LC_ASSIGN_OR_RETURN(session, voice_.EngineFor(language).OpenSession(SettingsFor(settings_, language)));
      if (cancelled_) session->Cancel();
    }
    return session.get();
  }

  const BilingualVoice& voice_;
  const VoiceSettings settings_;
  std::mutex mutex_;  // Cancel() may come from any thread
  std::array<std::unique_ptr<TtsSession>, 2> sessions_ ABSL_GUARDED_BY(mutex_);  // en, zh
  std::atomic<bool> cancelled_{false};
};

absl::StatusOr<std::unique_ptr<TtsSession>> BilingualVoice::OpenSession(const VoiceSettings& settings) {
  LC_RETURN_IF_ERROR(ValidateVoiceSettings(settings));
  auto session = std::make_unique<Session>(*this, settings);
  // Bad settings for the session's own language fail now, before any text.
  LC_RETURN_IF_ERROR(session->OpenFor(settings.language));
  return std::unique_ptr<TtsSession>(std::move(session));
}

}  // namespace lingcast
