#include "neural/whisper/whisper_config.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"
#include "neural/whisper/whisper_ct2.h"

namespace lingcast::neural {
namespace {

class Fields : public JsonFields {
 public:
  using JsonFields::JsonFields;

  // An id field that may also be a list of ids (eos_token_id): the first.
  std::int64_t Id(const char* key, std::int64_t fallback) const {
    if (Has(key) && json().at(key).is_array()) {
      const auto& v = json().at(key);
      if (v.empty() || !v[0].is_number_integer()) BadField(key, "a token id");
      return v[0].get<std::int64_t>();
    }
    return Int(key, fallback, 0);
  }

  std::vector<std::int64_t> Ids(const char* key) const {
    std::vector<std::int64_t> ids;
    const auto& v = json().at(key);
    if (!v.is_array()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" is not a list of token ids");
    for (const auto& id : v) {
      if (!id.is_number_integer()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" holds " + id.dump() + ", not a token id");
      ids.push_back(id.get<std::int64_t>());
    }
    return ids;
  }

  // [[layer, head], ...] within the decoder's layers and heads.
  std::vector<std::pair<std::int64_t, std::int64_t>> HeadPairs(const char* key, std::int64_t layers, std::int64_t heads) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    const auto& v = json().at(key);
    if (!v.is_array()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" is not a list of [layer, head] pairs");
    for (const auto& pair : v) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer() ||
          pair[0].get<std::int64_t>() < 0 || pair[0].get<std::int64_t>() >= layers || pair[1].get<std::int64_t>() < 0 ||
          pair[1].get<std::int64_t>() >= heads) {
        Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" holds " + pair.dump() +
                                              ", expected [layer, head] below [" + std::to_string(layers) + ", " +
                                              std::to_string(heads) + "] (decoder_layers, decoder_attention_heads)");
      }
      out.emplace_back(pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>());
    }
    return out;
  }

  std::map<std::string, std::int64_t> IdMap(const char* key) const {
    std::map<std::string, std::int64_t> out;
    const auto& v = json().at(key);
    if (!v.is_object()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" is not a map of token ids");
    for (const auto& [name, id] : v.items()) {
      if (!id.is_number_integer()) Fail(ErrorCode::kInvalidArgument, path() + ": field \"" + key + "\" maps " + name + " to " + id.dump());
      out[name] = id.get<std::int64_t>();
    }
    return out;
  }
};

void ReadGenerationFields(const Fields& f, WhisperConfig& c) {
  if (f.Has("suppress_tokens")) c.suppress_tokens = f.Ids("suppress_tokens");
  if (f.Has("begin_suppress_tokens")) c.begin_suppress_tokens = f.Ids("begin_suppress_tokens");
  if (f.Has("lang_to_id")) c.lang_to_id = f.IdMap("lang_to_id");
  if (f.Has("task_to_id")) c.task_to_id = f.IdMap("task_to_id");
  if (f.Has("no_timestamps_token_id")) c.no_timestamps_token_id = f.Int("no_timestamps_token_id", std::nullopt, 0);
  if (f.Has("max_initial_timestamp_index")) c.max_initial_timestamp_index = f.Int("max_initial_timestamp_index", std::nullopt, 0);
  if (f.Has("is_multilingual")) c.is_multilingual = f.Bool("is_multilingual", std::nullopt);
  c.max_length = f.Int("max_length", c.max_length, 2);
  c.decoder_start_token_id = f.Id("decoder_start_token_id", c.decoder_start_token_id);
  c.eos_token_id = f.Id("eos_token_id", c.eos_token_id);
  c.pad_token_id = f.Id("pad_token_id", c.pad_token_id);
  if (f.Has("alignment_heads")) c.alignment_heads = f.HeadPairs("alignment_heads", c.decoder_layers, c.decoder_attention_heads);
}

}  // namespace

WhisperConfig LoadWhisperConfig(const std::string& dir) {
  namespace fs = std::filesystem;
  if (IsCt2WhisperDir(dir)) return Ct2WhisperConfig(dir, *Ct2Checkpoint::Open(dir));
  const std::string path = (fs::path(dir) / "config.json").string();
  if (!fs::exists(path)) Fail(ErrorCode::kNotFound, dir + " is not a checkpoint directory: it has no config.json");
  const nlohmann::json json = ReadJsonObject(path);
  const Fields f(json, path);
  const std::string model_type = f.String("model_type", "");
  if (model_type != "whisper") {
    Fail(ErrorCode::kInvalidArgument, path + ": model_type is \"" + model_type + "\", not \"whisper\": this is not a Whisper checkpoint");
  }
  WhisperConfig c;
  c.d_model = f.Int("d_model", std::nullopt, 1);
  c.encoder_layers = f.Int("encoder_layers", std::nullopt, 1);
  c.decoder_layers = f.Int("decoder_layers", std::nullopt, 1);
  c.encoder_attention_heads = f.Int("encoder_attention_heads", std::nullopt, 1);
  c.decoder_attention_heads = f.Int("decoder_attention_heads", std::nullopt, 1);
  c.encoder_ffn_dim = f.Int("encoder_ffn_dim", std::nullopt, 1);
  c.decoder_ffn_dim = f.Int("decoder_ffn_dim", std::nullopt, 1);
  c.num_mel_bins = f.Int("num_mel_bins", 80, 1);
  c.vocab_size = f.Int("vocab_size", std::nullopt, 1);
  c.max_source_positions = f.Int("max_source_positions", 1500, 1);
  c.max_target_positions = f.Int("max_target_positions", 448, 2);
  c.activation = ParseActivation(f.String("activation_function", "gelu"), path + ": field \"activation_function\"");
  c.scale_embedding = json.value("scale_embedding", false);
  c.median_filter_width = f.Int("median_filter_width", 7, 1);
  if (c.median_filter_width % 2 != 1) {
    Fail(ErrorCode::kInvalidArgument, path + ": field \"median_filter_width\" is " + std::to_string(c.median_filter_width) + ", expected an odd number");
  }
  for (const char* heads : {"encoder_attention_heads", "decoder_attention_heads"}) {
    if (c.d_model % f.Int(heads, std::nullopt, 1) != 0) {
      Fail(ErrorCode::kInvalidArgument, path + ": d_model " + std::to_string(c.d_model) + " is not a multiple of " + heads);
    }
  }
  ReadGenerationFields(f, c);
  const std::string generation_path = (fs::path(dir) / "generation_config.json").string();
  if (fs::exists(generation_path)) {
    const nlohmann::json generation = ReadJsonObject(generation_path);
    ReadGenerationFields(Fields(generation, generation_path), c);
  }
  for (auto id : {c.decoder_start_token_id, c.eos_token_id}) {
    if (id >= c.vocab_size) Fail(ErrorCode::kInvalidArgument, path + ": token id " + std::to_string(id) + " is outside vocab_size " + std::to_string(c.vocab_size));
  }
  return c;
}

}  // namespace lingcast::neural
