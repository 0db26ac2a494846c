// PiperPhonemes: a Piper voice's phoneme vocabulary (piper.json beside the
// converted checkpoint, tools/neural/piper_to_checkpoint.py) and the ids it is fed.
//
// Piper voices are trained on espeak-ng's IPA: the phonemes of a text, one symbol
// per code point, each followed by the pad symbol, between a begin and an end
// symbol, with a space between words and the clause's punctuation after it.
// Encode() builds that sequence from EspeakEngine::PhonemizeIpa's clauses and
// keeps, per token, the input bytes of its word and the phoneme it says, so the
// durations the model predicts become the mouth's timeline (vits_tts.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "neural/vits/vits_tokenizer.h"
#include "tts/espeak_engine.h"

namespace lingcast::neural {

class PiperPhonemes {
 public:
  // DIR/piper.json. Throws NeuralError naming the file: kNotFound when missing,
  // kInvalidArgument when it is not a Piper voice config with espeak-ng phonemes
  // (phoneme_type, phoneme_id_map with the pad, begin and end symbols).
  static PiperPhonemes Load(const std::string& dir);

  // The ids of `clauses`; phonemes the voice has no id for are left out (as
  // Piper does). No clauses: no tokens.
  VitsEncoding Encode(const std::vector<IpaClause>& clauses) const;

  const std::string& espeak_voice() const { return espeak_voice_; }  // "en-us"
  const std::string& language() const { return language_; }          // "en" (language.family)
  std::int64_t max_id() const { return max_id_; }

 private:
  PiperPhonemes() = default;
  // Appends the ids of `symbol` (one code point) with `offset`/`length` and the
  // mouth's phoneme, then a pad; false when the voice has no such symbol.
  bool Append(char32_t symbol, int offset, int length, const std::string& phoneme, VitsEncoding& out) const;
  void AppendOne(std::int64_t id, int offset, int length, const std::string& phoneme, VitsEncoding& out) const;

  std::map<char32_t, std::vector<std::int64_t>> ids_;
  std::vector<std::int64_t> pad_, begin_, end_;
  std::string espeak_voice_;
  std::string language_;
  std::int64_t max_id_ = 0;
};

}  // namespace lingcast::neural
