// VitsTts: a VITS checkpoint behind lingcast's TtsEngine interface: MMS-TTS as
// transformers publishes it (characters in), or a Piper voice converted by
// tools/neural/piper_to_checkpoint.py (espeak-ng phonemes in: piper.json beside
// config.json says so; piper_phonemes.h).
//
// One checkpoint speaks one language with one voice (facebook/mms-tts-eng,
// en_US-joe-medium: English). The per-token durations the model predicts become
// the PhonemeTrack the renderer animates the mouth from: one event per spoken
// character or phoneme (an MMS letter mapped to the nearest IPA phoneme; spaces
// and punctuation as pauses), timed from its token's first frame, and one word
// boundary per word of the text. The model is loaded once; Synthesize() may be
// called from several threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "neural/vits/piper_phonemes.h"
#include "neural/vits/vits_model.h"
#include "neural/vits/vits_tokenizer.h"
#include "tts/tts_engine.h"

namespace lingcast::neural {

// Text -> espeak-ng IPA clauses in an espeak-ng voice (EspeakEngine::PhonemizeIpa).
using IpaPhonemizer =
    std::function<absl::StatusOr<std::vector<IpaClause>>(std::string_view text, const std::string& voice)>;

struct VitsTtsOptions {
  std::string model_dir;
  // A Piper voice's phonemizer; empty: EspeakEngine::PhonemizeIpa of this binary
  // (in the plug-in, the host's is given: lc_vits_options in plugin/lingcast_plugin_abi.h says why).
  IpaPhonemizer phonemize;
  std::uint64_t seed = 0;  // the noise of every synthesis: the same text gives the same audio
  VitsModelOptions model;
  // How a session's StreamClause cuts a clause's waveform (VitsModel::SynthesizeInChunks).
  VocoderChunking chunking;
  // Synthesize and SynthesizeClause decode speech of twice this many frames or
  // more in chunks of it (the last up to twice as long), so memory stays bounded
  // however long the text (256: ~3 s of Piper; a cut costs ~30 frames of
  // decoding again).
  std::int64_t whole_chunk_frames = 256;
  // On CUDA with graphs, Create records the graphs of these buckets
  // (VitsModel::WarmGraphs) so the first lines replay; nothing on the CPU.
  bool warm_at_load = true;
  VitsWarmup warmup;
};

// Start and end (samples) of every token of an encoding, from its durations in
// frames (hop_length samples each).
struct TokenSpan {
  std::int64_t start = 0, end = 0;
};
std::vector<TokenSpan> TokenTimeline(const std::vector<std::int64_t>& durations, std::int64_t hop_length);

// The phoneme and word track of one synthesis: `encoding` of `text`, its tokens
// lasting `spans`.
PhonemeTrack TrackOf(const VitsEncoding& encoding, const std::vector<TokenSpan>& spans, std::string_view text,
                     int sample_rate, Language language);
// The same for a phoneme encoding (encoding.phonemes set: a Piper voice).
PhonemeTrack TrackOfPhonemes(const VitsEncoding& encoding, const std::vector<TokenSpan>& spans, int sample_rate,
                             Language language);

class VitsTts : public TtsEngine {
 public:
  // Loads config, weights and tokenizer; every problem is one line naming the file
  // (NotFound, InvalidArgument, Unimplemented).
  static absl::StatusOr<std::unique_ptr<VitsTts>> Create(const VitsTtsOptions& options);

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override;
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override;
  int sample_rate() const override { return static_cast<int>(model_->config().sampling_rate); }
  std::string name() const override { return piper_ ? "piper" : "vits"; }

  // The language the checkpoint speaks (tokenizer_config.json's "language",
  // piper.json's language family).
  Language language() const { return language_; }

 private:
  class Session;
  VitsTts(VitsTtsOptions options, std::shared_ptr<const VitsModel> model, std::optional<VitsTokenizer> tokenizer,
          std::optional<PiperPhonemes> piper, Language language)
      : options_(std::move(options)), model_(std::move(model)), tokenizer_(std::move(tokenizer)),
        piper_(std::move(piper)), language_(language) {}

  // The checkpoint's own name for its language ("eng", "en"), or empty.
  std::string LanguageCodeOfCheckpoint() const;
  // The tokens of `text`: characters (MMS) or espeak-ng phonemes (Piper).
  absl::StatusOr<VitsEncoding> Encode(const std::string& text) const;

  // InvalidArgument for settings this engine cannot honour (a voice, a pitch).
  absl::Status CheckSettings(const VoiceSettings& settings, Language language) const;
  // Speaks `text` whole, or with a `sink`, in parts as the waveform is decoded
  // (the result is then empty: the parts are the speech).
  absl::StatusOr<SynthesisResult> Speak(std::string_view text, const VoiceSettings& settings, Language language,
                                        const std::atomic<bool>* cancel, const ClausePartSink* sink = nullptr) const;
  // The track of an encoding whose tokens last `frames` (per token).
  PhonemeTrack TrackFor(const VitsEncoding& encoding, const torch::Tensor& frames, const std::string& text,
                        Language language) const;

  VitsTtsOptions options_;
  std::shared_ptr<const VitsModel> model_;
  std::optional<VitsTokenizer> tokenizer_;  // MMS: characters
  std::optional<PiperPhonemes> piper_;      // Piper: phonemes, from EspeakEngine::PhonemizeIpa
  Language language_;
};

}  // namespace lingcast::neural
