// WhisperConfig: what lingcast reads from a Whisper checkpoint's config.json and
// generation_config.json (suppressed tokens, language and task ids, timestamp
// settings; generation_config.json's values win where both files have a field).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "neural/core/ops.h"

namespace lingcast::neural {

struct WhisperConfig {
  std::int64_t d_model = 384;
  std::int64_t encoder_layers = 4;
  std::int64_t decoder_layers = 4;
  std::int64_t encoder_attention_heads = 6;
  std::int64_t decoder_attention_heads = 6;
  std::int64_t encoder_ffn_dim = 1536;
  std::int64_t decoder_ffn_dim = 1536;
  std::int64_t num_mel_bins = 80;
  std::int64_t vocab_size = 51865;
  std::int64_t max_source_positions = 1500;  // encoder frames: 30 s of 10 ms mel frames, halved by conv2
  std::int64_t max_target_positions = 448;
  Activation activation = Activation::kGelu;
  bool scale_embedding = false;
  std::int64_t decoder_start_token_id = 50258;  // <|startoftranscript|>
  std::int64_t eos_token_id = 50257;            // <|endoftext|>
  std::int64_t pad_token_id = 50257;
  // Generation defaults.
  std::vector<std::int64_t> suppress_tokens;
  std::vector<std::int64_t> begin_suppress_tokens;
  std::map<std::string, std::int64_t> lang_to_id;  // "<|en|>" -> id; empty: found in the tokenizer
  std::map<std::string, std::int64_t> task_to_id;  // "transcribe", "translate"
  std::optional<std::int64_t> no_timestamps_token_id;
  std::optional<std::int64_t> max_initial_timestamp_index;
  std::optional<bool> is_multilingual;
  std::int64_t max_length = 448;  // counts the prompt, as transformers does
  // Word timestamps (whisper_word_timestamps.h): the (decoder layer, head) pairs
  // whose cross-attention follows the audio (generation_config.json
  // "alignment_heads"; empty when the checkpoint has none), and the median
  // filter's width over their attention (config.json "median_filter_width").
  std::vector<std::pair<std::int64_t, std::int64_t>> alignment_heads;
  std::int64_t median_filter_width = 7;
};

// Reads DIR/config.json (required) and DIR/generation_config.json (optional).
// Throws NeuralError naming the file and field: kNotFound without config.json,
// kInvalidArgument for a missing or bad field or a config that is not Whisper's.
// A CTranslate2 checkpoint directory (model.bin or its parts, no safetensors) is
// read as whisper_ct2.h says: sizes from its variables, ids from tokenizer.json.
WhisperConfig LoadWhisperConfig(const std::string& dir);

}  // namespace lingcast::neural
