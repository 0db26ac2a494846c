// BilingualVoice: one anchor voice made of two engines, one per language, so a
// neural English voice (Piper) and a neural or espeak-ng Mandarin voice speak as
// one TtsEngine.
//
// Every request or clause is cut into language runs (speech_plan.h's
// SplitLanguageSpans: "我爱iPhone手机" is zh, en, zh; "Try our 小笼包 today" en,
// zh, en), each run spoken by its language's engine, and the pieces joined on one
// timeline at one sample rate (the higher of the two; the other engine's audio is
// resampled with soxr), with word offsets into the whole text. Settings pass
// through; a named voice goes to the engine of the settings' language only (a
// voice belongs to one engine).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tts/tts_engine.h"

namespace lingcast {

class BilingualVoice : public TtsEngine {
 public:
  // InvalidArgument when either engine is missing.
  static absl::StatusOr<std::unique_ptr<BilingualVoice>> Create(std::shared_ptr<TtsEngine> english,
                                                                std::shared_ptr<TtsEngine> mandarin);

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override;
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override;
  int sample_rate() const override { return sample_rate_; }
  // "piper+espeak-ng": the English engine's name, then the Mandarin one's.
  std::string name() const override;

  TtsEngine& english() const { return *english_; }
  TtsEngine& mandarin() const { return *mandarin_; }

 private:
  class Session;
  BilingualVoice(std::shared_ptr<TtsEngine> english, std::shared_ptr<TtsEngine> mandarin);

  TtsEngine& EngineFor(Language language) const { return language == Language::kZh ? *mandarin_ : *english_; }
  // `piece` at this voice's rate (its track keeps its times).
  absl::StatusOr<SynthesisResult> AtOurRate(SynthesisResult piece) const;

  std::shared_ptr<TtsEngine> english_, mandarin_;
  int sample_rate_ = 0;
};

}  // namespace lingcast
