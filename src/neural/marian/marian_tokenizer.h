// MarianTokenizer: the tokenizer of Marian (OPUS-MT) checkpoints, as transformers'
// MarianTokenizer computes it: SentencePiece pieces (source.spm for the input,
// target.spm for the output) mapped to ids through the checkpoint's vocab.json
// (not the .spm models' own ids); unknown pieces become <unk>; "</s>" ends every
// input. Decoding drops the special tokens (</s>, <unk>, <pad>) and joins the
// pieces with target.spm.
//
// Not done: the Moses punctuation normalization transformers applies when the
// Python package sacremoses is installed (without it, as on our reference machine,
// text goes in unchanged, as here).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "neural/marian/sentencepiece_library.h"

namespace lingcast::neural {

class MarianTokenizer {
 public:
  // Reads DIR/source.spm, DIR/target.spm and DIR/vocab.json (DIR/target_vocab.json
  // too when tokenizer_config.json says separate_vocabs). Throws NeuralError naming
  // the missing or bad file.
  static MarianTokenizer Load(const std::string& dir);

  MarianTokenizer(MarianTokenizer&&) noexcept;
  MarianTokenizer& operator=(MarianTokenizer&&) noexcept;
  ~MarianTokenizer();

  // Source text -> ids ending with eos. A leading language code (">>fra<<", for
  // multilingual models) is kept as one token.
  std::vector<std::int64_t> Encode(const std::string& text) const;
  // Target-side text -> ids ending with eos (labels; for scoring).
  std::vector<std::int64_t> EncodeTarget(const std::string& text) const;
  // Output ids -> text, special tokens skipped.
  std::string Decode(const std::vector<std::int64_t>& ids) const;

  std::int64_t eos_id() const { return eos_id_; }
  std::int64_t pad_id() const { return pad_id_; }
  std::int64_t unk_id() const { return unk_id_; }
  std::int64_t vocab_size() const { return static_cast<std::int64_t>(source_vocab_.size()); }

 private:
  MarianTokenizer();
  std::vector<std::int64_t> EncodeWith(const SentencePieceModel& spm,
                                       const std::unordered_map<std::string, std::int64_t>& vocab,
                                       const std::string& text) const;

  std::unique_ptr<SentencePieceModel> source_spm_, target_spm_;
  std::unordered_map<std::string, std::int64_t> source_vocab_, target_vocab_;
  std::unordered_map<std::int64_t, std::string> target_pieces_;  // id -> piece, for decoding
  std::int64_t eos_id_ = 0, unk_id_ = 1, pad_id_ = 0;
};

}  // namespace lingcast::neural
