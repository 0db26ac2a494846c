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
// espeak_Terminate) and every call into the library holds that runtime's mutex.
// Engines are safe to use from any thread; syntheses run one at a time. Streaming
// (OpenSession) synthesizes one clause per call, so the lock is held for one
// clause, and sessions of several streams interleave clause by clause.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "text/pinyin.h"
#include "tts/tts_engine.h"

namespace lingcast {

// How a language sounds by default, relative to espeak-ng's own defaults (175
// words per minute, pitch 50, volume 100). Chosen so the two voices sound like one
// anchor: see src/tts/README.md for the measurements behind the numbers.
struct LanguageVoiceDefaults {
  double rate = 1.0;   // multiplies 175 words per minute
  double pitch = 1.0;  // multiplies espeak-ng's pitch 50
  double level = 1.0;  // multiplies espeak-ng's volume 100
};

struct EspeakOptions {
  // Folder that holds espeak-ng-data; empty = the library's built-in location.
  std::string data_path;
  std::string default_voice_en = "en-us";
  std::string default_voice_zh = "cmn-latn-pinyin";
  LanguageVoiceDefaults en;
  // espeak-ng's Mandarin voice is about 3 dB louder than en-us at the same volume
  // (and clips): 0.72 matches their speech levels within 1 dB. Slightly slower:
  // at 175 wpm it says ~4.3 syllables a second and runs tones together.
  LanguageVoiceDefaults zh{.rate = 0.9, .pitch = 1.0, .level = 0.72};
  // Mandarin lexicon; empty = FindDataFile("zh_lexicon.tsv").
  std::string lexicon_path;
  // espeak-ng pads speech with silence; keep at most this much at either end.
  MediaTime max_leading_silence = MediaTime::Millis(50);
  MediaTime max_trailing_silence = MediaTime::Millis(200);
};

// One word of espeak-ng's IPA for a text, as Piper's voices are trained on it
// (stress and length marks kept, no separators inside the word).
struct IpaWord {
  std::string ipa;
  int text_offset = 0;  // the bytes of the input it says
  int text_length = 0;
};
// One clause: espeak-ng phonemizes up to a comma, colon, semicolon or sentence end.
struct IpaClause {
  std::vector<IpaWord> words;
  char terminator = 0;  // the punctuation that ended it (. , ? ! : ;), 0 for none
};

class EspeakEngine : public TtsEngine {
 public:
  // Fails with NotFound for a missing lexicon or espeak-ng data, InvalidArgument
  // for an unknown default voice.
  static absl::StatusOr<std::unique_ptr<EspeakEngine>> Create(const EspeakOptions& options = {});
  ~EspeakEngine() override;

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override;
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override;
  int sample_rate() const override { return sample_rate_; }
  std::string name() const override { return "espeak-ng"; }

  // `text` (UTF-8) as espeak-ng's `voice` ("en-us") phonemizes it, clause by
  // clause: what a neural voice trained on espeak-ng phonemes (Piper) is fed.
  // Every word keeps the input bytes it says, so durations become word timings.
  // Needs no engine (nor the Mandarin lexicon): it takes the process-wide
  // runtime with espeak-ng's built-in data path. InvalidArgument for text that is
  // not UTF-8 or an unknown voice; NotFound without espeak-ng-data.
  static absl::StatusOr<std::vector<IpaClause>> PhonemizeIpa(std::string_view text, const std::string& voice);

  // The Mandarin front-end the engine speaks through (for `lingcast pinyin`).
  const PinyinConverter& pinyin() const { return pinyin_; }

 private:
  class Runtime;
  class Session;
  EspeakEngine(std::unique_ptr<Runtime> runtime, PinyinConverter pinyin, EspeakOptions options);

  // Speaks `text` as `language` with `settings`; stops early with Cancelled once
  // *cancel is set (nullptr: never).
  absl::StatusOr<SynthesisResult> SynthesizeText(std::string_view text, const VoiceSettings& settings,
                                                 Language language, const std::atomic<bool>* cancel);
  const LanguageVoiceDefaults& DefaultsFor(Language language) const;
  std::string VoiceFor(const VoiceSettings& settings, Language chunk_language) const;

  std::unique_ptr<Runtime> runtime_;
  PinyinConverter pinyin_;
  EspeakOptions options_;
  int sample_rate_ = 0;
};

}  // namespace lingcast
