// WhisperTokenizer: Whisper's byte-level BPE (GPT-2's scheme), our own.
//
// Text is cut into pieces by GPT-2's pre-tokenizer pattern (contractions,
// letters, numbers, other symbols, whitespace), each piece's UTF-8 bytes are
// mapped to printable characters (bytes_to_unicode) and merged by the ranked
// merges; the vocabulary maps the merged strings to ids. The special tokens
// (<|endoftext|>, <|startoftranscript|>, the language tokens, <|transcribe|>,
// <|translate|>, <|notimestamps|>, the timestamps <|0.00|> .. <|30.00|>) are
// added tokens, found by name; timestamps the files leave out are named from
// the config (AddTimestampTokens).
//
// Loaded from a checkpoint directory as published: vocab.json + merges.txt, or
// tokenizer.json; added tokens from tokenizer.json, added_tokens.json or
// tokenizer_config.json (whichever are present).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace lingcast::neural {

class WhisperTokenizer {
 public:
  // Throws NeuralError naming the directory and file: kNotFound without a
  // vocabulary, kInvalidArgument for a file that is not what it should be.
  static WhisperTokenizer Load(const std::string& dir);

  // Plain text -> ids (no special tokens are added; text that spells a special
  // token is encoded as that token).
  std::vector<std::int64_t> Encode(const std::string& text) const;
  // Ids -> text; special and timestamp tokens are left out when `skip_special`.
  // kInvalidArgument for an id outside the vocabulary.
  std::string Decode(const std::vector<std::int64_t>& ids, bool skip_special = true) const;

  // Names ids [first_id, vocab_size) the timestamps <|0.00|>, <|0.02|>, ... in
  // 0.02 s steps, as the model's config places them (from <|notimestamps|> + 1
  // to the end of the embedding table): tokenizer files may list none of them
  // (the tokenizer.json of CTranslate2's conversions), and decoding such an id
  // must still work. Ids the files already name a timestamp keep their name; an
  // id there that is some other token is kInvalidArgument naming it.
  void AddTimestampTokens(std::int64_t first_id, std::int64_t vocab_size);

  // The id of token `content` ("<|en|>"), if the vocabulary has it.
  std::optional<std::int64_t> Find(const std::string& content) const;
  // Like Find, but kNotFound naming the token and the directory when it is absent.
  std::int64_t Require(const std::string& content) const;
  bool IsSpecial(std::int64_t id) const { return special_.count(id) != 0; }
  // The token's text as the vocabulary spells it ("Ġhello", "<|en|>").
  const std::string& TokenText(std::int64_t id) const;

  std::int64_t size() const { return static_cast<std::int64_t>(id_to_token_.size()); }
  const std::string& dir() const { return dir_; }

 private:
  std::vector<std::int64_t> EncodePiece(const std::string& piece) const;

  std::string dir_;
  std::unordered_map<std::string, std::int64_t> token_to_id_;
  std::vector<std::string> id_to_token_;             // by id; empty where no token
  std::map<std::int64_t, std::string> special_;      // added tokens, by id
  std::map<std::string, std::int64_t> added_by_text_;  // added tokens, by content
  std::unordered_map<std::string, int> merge_rank_;    // "a b" -> rank
  bool clean_up_spaces_ = false;
};

}  // namespace lingcast::neural
