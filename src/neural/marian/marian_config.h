// MarianConfig: what lingcast reads from a Marian checkpoint's config.json and
// generation_config.json (the generation defaults, which override config.json's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "neural/core/ops.h"

namespace lingcast::neural {

struct MarianConfig {
  std::int64_t d_model = 512;
  std::int64_t encoder_layers = 6;
  std::int64_t decoder_layers = 6;
  std::int64_t encoder_attention_heads = 8;
  std::int64_t decoder_attention_heads = 8;
  std::int64_t encoder_ffn_dim = 2048;
  std::int64_t decoder_ffn_dim = 2048;
  Activation activation = Activation::kSilu;
  std::int64_t vocab_size = 0;
  std::int64_t decoder_vocab_size = 0;  // = vocab_size unless the embeddings are separate
  std::int64_t max_position_embeddings = 512;
  bool scale_embedding = true;
  bool share_encoder_decoder_embeddings = true;
  std::int64_t pad_token_id = 0;
  std::int64_t eos_token_id = 0;
  std::int64_t decoder_start_token_id = 0;
  // Generation defaults.
  std::optional<std::int64_t> forced_eos_token_id;
  std::vector<std::int64_t> bad_words_ids;  // single-token bad words (Marian: the pad token)
  std::int64_t num_beams = 1;
  std::int64_t max_length = 512;  // counts the decoder start token, as transformers does
  double length_penalty = 1.0;
};

// Reads DIR/config.json (required) and DIR/generation_config.json (optional).
// Throws NeuralError naming the file and field: kNotFound without config.json,
// kInvalidArgument for a missing or bad field or a config that is not Marian's
// (model_type), kUnimplemented for a Marian variant the reference does not compute
// either (normalize_before, normalize_embedding, add_final_layer_norm).
MarianConfig LoadMarianConfig(const std::string& dir);

}  // namespace lingcast::neural
