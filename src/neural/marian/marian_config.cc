#include "neural/marian/marian_config.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {


class Fields : public JsonFields {
 public:
  using JsonFields::JsonFields;

  // [[id], [id], ...]: only single-token bad words are supported (all Marian uses).
  std::vector<std::int64_t> SingleTokenLists(const char* key) const {
    std::vector<std::int64_t> ids;
    if (!Has(key)) return ids;
    const auto& v = json().at(key);
    if (!v.is_array()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" is not a list of token lists");
    for (const auto& word : v) {
      if (!word.is_array() || word.size() != 1 || !word[0].is_number_integer()) {
        Fail(ErrorCode::kUnimplemented, path() + ": field \"" + key + "\" has " + word.dump() +
                                            "; only single-token entries are supported");
      }
      ids.push_back(word[0].get<std::int64_t>());
    }
    return ids;
  }
};

void ReadGenerationDefaults(const Fields& f, MarianConfig& c) {
  if (f.Has("forced_eos_token_id")) c.forced_eos_token_id = f.Int("forced_eos_token_id", std::nullopt, 0);
  if (f.Has("bad_words_ids")) c.bad_words_ids = f.SingleTokenLists("bad_words_ids");
  c.num_beams = f.Int("num_beams", c.num_beams, 1);
  c.max_length = f.Int("max_length", c.max_length, 2);
  c.length_penalty = f.Number("length_penalty", c.length_penalty);
}

}  // namespace

MarianConfig LoadMarianConfig(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string path = (fs::path(dir) / "config.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    Fail(ErrorCode::kNotFound, dir + ": no config.json: not a Hugging Face checkpoint directory");
  }
  const nlohmann::json json = ReadJsonObject(path);
  Fields f(json, path);
  const std::string model_type = f.String("model_type", "");
  if (model_type != "marian") {
    Fail(ErrorCode::kInvalidArgument, path + ": model_type is \"" + model_type +
                                          "\", not \"marian\": this is not a Marian (OPUS-MT) checkpoint");
  }
  for (const char* unsupported : {"normalize_before", "normalize_embedding", "add_final_layer_norm"}) {
    // transformers' MarianMTModel ignores these and always computes post-norm
    // without extra norms; a checkpoint that sets them was trained for something else.
    if (f.Bool(unsupported, false)) {
      Fail(ErrorCode::kUnimplemented, path + ": field \"" + unsupported +
                                          "\" is true; Marian as transformers computes it has no such layer norm");
    }
  }
  MarianConfig c;
  c.d_model = f.Int("d_model", std::nullopt, 1);
  c.encoder_layers = f.Int("encoder_layers", std::nullopt, 1);
  c.decoder_layers = f.Int("decoder_layers", std::nullopt, 1);
  c.encoder_attention_heads = f.Int("encoder_attention_heads", std::nullopt, 1);
  c.decoder_attention_heads = f.Int("decoder_attention_heads", std::nullopt, 1);
  c.encoder_ffn_dim = f.Int("encoder_ffn_dim", std::nullopt, 1);
  c.decoder_ffn_dim = f.Int("decoder_ffn_dim", std::nullopt, 1);
  c.activation = ParseActivation(f.String("activation_function", "gelu"), path + ": field \"activation_function\"");
  c.vocab_size = f.Int("vocab_size", std::nullopt, 2);
  c.share_encoder_decoder_embeddings = f.Bool("share_encoder_decoder_embeddings", true);
  c.decoder_vocab_size = f.Int("decoder_vocab_size", c.vocab_size, 2);
  if (c.share_encoder_decoder_embeddings && c.decoder_vocab_size != c.vocab_size) {
    Fail(ErrorCode::kInvalidArgument, path + ": decoder_vocab_size " + std::to_string(c.decoder_vocab_size) +
                                          " differs from vocab_size " + std::to_string(c.vocab_size) +
                                          " while share_encoder_decoder_embeddings is true");
  }
  c.max_position_embeddings = f.Int("max_position_embeddings", std::nullopt, 2);
  c.scale_embedding = f.Bool("scale_embedding", false);
  c.pad_token_id = f.Int("pad_token_id", std::nullopt, 0);
  c.eos_token_id = f.Int("eos_token_id", std::nullopt, 0);
  c.decoder_start_token_id = f.Int("decoder_start_token_id", c.pad_token_id, 0);
  for (auto [name, heads] : {std::pair{"encoder_attention_heads", c.encoder_attention_heads},
                             std::pair{"decoder_attention_heads", c.decoder_attention_heads}}) {
    if (c.d_model % heads != 0) {
      Fail(ErrorCode::kInvalidArgument, path + ": d_model " + std::to_string(c.d_model) + " is not divisible by " +
                                            name + " " + std::to_string(heads));
    }
  }
  for (auto [name, id] : {std::pair{"pad_token_id", c.pad_token_id}, std::pair{"eos_token_id", c.eos_token_id},
                          std::pair{"decoder_start_token_id", c.decoder_start_token_id}}) {
    if (id >= c.decoder_vocab_size) {
      Fail(ErrorCode::kInvalidArgument, path + ": " + name + " " + std::to_string(id) + " is outside the vocabulary of " +
                                            std::to_string(c.decoder_vocab_size));
    }
  }
  ReadGenerationDefaults(f, c);
  const std::string generation_path = (fs::path(dir) / "generation_config.json").string();
  if (fs::exists(generation_path, ec)) {
    const nlohmann::json generation = ReadJsonObject(generation_path);
    ReadGenerationDefaults(Fields(generation, generation_path), c);
  }
  return c;
}

}  // namespace lingcast::neural
