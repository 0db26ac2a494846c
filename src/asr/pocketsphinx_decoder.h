// What the pocketsphinx engine's parts (pocketsphinx_pool.h, pocketsphinx_session.h,
// pocketsphinx_scorer.h) share about one pocketsphinx decoder: owning handles for
// its objects, its words, and the samples it is given. Internal to src/asr: it
// includes pocketsphinx's headers, which only this library sees; the public face is
// pocketsphinx_engine.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "asr/asr_engine.h"

extern "C" {
#include <pocketsphinx.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/err.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/fsg_model.h>
#include <sphinxbase/ngram_model.h>
}

namespace lingcast::pocketsphinx {

struct DecoderFree {
  void operator()(ps_decoder_t* ps) const { ps_free(ps); }
};
struct ConfigFree {
  void operator()(cmd_ln_t* config) const { cmd_ln_free_r(config); }
};
struct NgramFree {
  void operator()(ngram_model_t* lm) const { ngram_model_free(lm); }
};
using Decoder = std::unique_ptr<ps_decoder_t, DecoderFree>;
using Config = std::unique_ptr<cmd_ln_t, ConfigFree>;
using Ngram = std::unique_ptr<ngram_model_t, NgramFree>;

// An utterance is kept to decode again (a session's re-decode, its alternatives
// check) or scored (AlternativesScorer) up to a minute: 2 MB of samples.
inline constexpr size_t kMaxRedecodeSamples = 60 * kAsrSampleRate;

// <s>, </s>, <sil>, [NOISE], +BREATH+ ...: not words anyone said.
bool IsFiller(const char* word);
// "read(2)" -> "read": pocketsphinx marks alternative pronunciations.
std::string BaseWord(const char* word);
// The phones of `word` in the decoder's dictionary; nullopt when it has none.
std::optional<std::string> LookupWord(ps_decoder_t* ps, const std::string& word);

// PocketsphinxOptions::dither: a least significant bit of noise on one sample
// in two, so that digital silence (samples of exactly 0) has some energy.
// pocketsphinx's own -dither draws from sphinxbase's one generator for the
// whole process, so two sessions on two threads would race on it and give
// different results; this one belongs to its session (or scorer call) and
// starts from the same seed.
class Dither {
 public:
  explicit Dither(bool on) : on_(on) {}
  int16 operator()(float sample) {
    const long value = std::lround(std::clamp(sample, -1.0f, 1.0f) * 32767.0f);
    if (!on_) return static_cast<int16>(value);
    state_ = state_ * 1664525u + 1013904223u;  // Numerical Recipes' LCG: plenty for noise
    const uint32_t quarter = state_ >> 30;  // the generator's best bits: 0-3
    const long noise = quarter == 0 ? -1 : quarter == 3 ? 1 : 0;
    return static_cast<int16>(std::clamp(value + noise, -32768L, 32767L));
  }

 private:
  bool on_;
  uint32_t state_ = 12345;
};

// The samples of `audio` as pocketsphinx takes them, through a Dither of their own.
std::vector<int16> ToPcm16(const AudioBuffer& audio, bool dither);

}  // namespace lingcast::pocketsphinx
