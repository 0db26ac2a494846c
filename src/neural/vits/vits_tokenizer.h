// VitsTokenizer: transformers' VitsTokenizer (MMS-TTS character vocabularies).
//
// Text becomes one token per character: normalized (characters that do not begin a
// vocabulary entry are lower-cased), characters outside the vocabulary dropped,
// whitespace stripped at both ends; the special tokens (pad, unk) split the text as
// the reference's added-token handling does; and with add_blank, token 0 goes
// before, between and after the characters of each piece. Every token remembers
// the bytes of the input it came from, which is how durations become a timeline.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lingcast::neural {

struct VitsEncoding {
  std::vector<std::int64_t> ids;
  // Per token: the byte span of the input text it stands for; -1 / 0 for the blanks
  // that add_blank inserts.
  std::vector<int> source_offset;
  std::vector<int> source_length;
  // Phoneme checkpoints (Piper, piper_phonemes.h) only, per token: the IPA it
  // says, "_" for a pause (a space, punctuation), "" for a token that continues
  // the one before (the blanks between phonemes, stress and length marks).
  // Empty for character checkpoints.
  std::vector<std::string> phonemes;
};

class VitsTokenizer {
 public:
  // DIR/vocab.json and DIR/tokenizer_config.json. Throws NeuralError naming the file:
  // kNotFound when missing, kInvalidArgument when malformed, kUnimplemented for a
  // tokenizer that phonemizes (needs espeak through the phonemizer package).
  static VitsTokenizer Load(const std::string& dir);

  // kInvalidArgument for text that is not UTF-8; kUnimplemented for non-Latin text
  // given to a checkpoint that expects uroman romanization. Text with nothing to
  // say gives no tokens (as the reference does).
  VitsEncoding Encode(const std::string& text) const;

  std::int64_t vocab_size() const { return static_cast<std::int64_t>(vocab_.size()); }
  std::int64_t max_id() const;  // the largest id Encode can return
  const std::string& language() const { return language_; }  // "eng", or empty

 private:
  VitsTokenizer() = default;

  std::vector<std::u32string> vocab_;          // vocab.json's keys, in file order
  std::map<std::u32string, std::int64_t> ids_;  // vocab.json
  std::map<std::u32string, std::int64_t> special_;  // added tokens: pad, unk, ...
  std::int64_t unk_id_ = 0;
  bool add_blank_ = true;
  bool normalize_ = true;
  bool uroman_ = false;
  std::string language_;
};

}  // namespace lingcast::neural
