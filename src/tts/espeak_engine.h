// EspeakEngine: English and Mandarin speech from espeak-ng, with phoneme timing.
//
// English text goes to an English voice as is. Mandarin goes through our own
// front-end (tts/speech_plan.h: numbers -> words, hanzi -> tone-digit pinyin from
// our lexicon) to espeak-ng's pinyin voice, with Latin words spoken by the English
// voice in between.
//
// Threading: espeak-ng keeps all its state in process globals (one voice, one
// parameter set, one callback). Every EspeakEngine therefore shares one
// process-wide runtime (initialized when the first engine is created and kept
// until the process exits, since espeak-ng cannot be re-initialized after
// espeak_Terminate) and every call into the library holds that runtime's mutex. Engines are safe to use from any thread; syntheses run one at a time.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "text/pinyin.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct EspeakOptions {
  // Folder that holds espeak-ng-data; empty = the library's built-in location.
  std::string data_path;
  std::string default_voice_en = "en-us";
  std::string default_voice_zh = "cmn-latn-pinyin";
  // Mandarin lexicon; empty = FindDataFile("zh_lexicon.tsv").
  std::string lexicon_path;
  // espeak-ng pads speech with silence; keep at most this much at either end.
  MediaTime max_leading_silence = MediaTime::Millis(50);
  MediaTime max_trailing_silence = MediaTime::Millis(200);
};

class EspeakEngine : public TtsEngine {
 public:
  // Fails with NotFound for a missing lexicon or espeak-ng data, InvalidArgument
  // for an unknown default voice.
  static absl::StatusOr<std::unique_ptr<EspeakEngine>> Create(const EspeakOptions& options = {});
  ~EspeakEngine() override;

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override;
  int sample_rate() const override { return sample_rate_; }
  std::string name() const override { return "espeak-ng"; }

  // The Mandarin front-end the engine speaks through (for `lingcast pinyin`).
  const PinyinConverter& pinyin() const { return pinyin_; }

 private:
  class Runtime;
  EspeakEngine(std::unique_ptr<Runtime> runtime, PinyinConverter pinyin, EspeakOptions options);

  std::unique_ptr<Runtime> runtime_;
  PinyinConverter pinyin_;
  EspeakOptions options_;
  int sample_rate_ = 0;
};

}  // namespace lingcast
