#include "neural/whisper/whisper_ct2.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"  // ShapeString

namespace lingcast::neural {
namespace {

// OpenAI's rule (whisper/model.py: is_multilingual = n_vocab >= 51865): the
// English-only models have 51864 tokens, the multilingual ones 51865 (51866 for
// large-v3). Tables of other sizes are not OpenAI's (the tiny test fixtures):
// there config.json's lang_ids decide, which an English-only conversion lists
// too (CTranslate2's converter copies them from the tokenizer), hence not first.
constexpr std::int64_t kEnglishOnlyVocabulary = 51864;
// faster-whisper's default max_initial_timestamp (1.0 s), in 0.02 s timestamp steps.
constexpr std::int64_t kMaxInitialTimestampIndex = 50;

// Token ids listed under `key` (absent or null: none), each in [0, vocab).
std::vector<std::int64_t> IdList(const nlohmann::json& json, const std::string& path, const char* key, std::int64_t vocab) {
  std::vector<std::int64_t> ids;
  if (!json.contains(key) || json.at(key).is_null()) return ids;
  const auto& list = json.at(key);
  if (!list.is_array()) Fail(ErrorCode::kInvalidArgument, path + ": field \"" + key + "\" is not a list of token ids");
  for (const auto& id : list) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= vocab) {
      Fail(ErrorCode::kInvalidArgument, path + ": field \"" + key + "\" holds " + id.dump() +
                                            ", not a token id below the embedding table's " + std::to_string(vocab) + " rows");
    }
    ids.push_back(id.get<std::int64_t>());
  }
  return ids;
}

// Reads the variables of one checkpoint, each refusal naming its file and variable.
class Variables {
 public:
  explicit Variables(const Ct2Checkpoint& checkpoint) : checkpoint_(checkpoint) {}

  const std::vector<std::int64_t>& Shape(const std::string& name, std::size_t rank) const {
    if (!checkpoint_.Contains(name)) {
      Fail(ErrorCode::kNotFound, checkpoint_.name() + ": no variable '" + name + "': not a complete Whisper checkpoint");
    }
    const Ct2Variable& v = checkpoint_.Info(name);
    if (v.shape.size() != rank) {
      Fail(ErrorCode::kInvalidArgument, checkpoint_.FileOf(name) + ": variable '" + name + "' has shape " +
                                            ShapeString(v.shape) + ", expected " + std::to_string(rank) + " dimensions");
    }
    return v.shape;
  }

  std::int64_t Int(const std::string& name) const {
    if (!checkpoint_.Contains(name)) {
      Fail(ErrorCode::kNotFound, checkpoint_.name() + ": no variable '" + name + "': not a complete Whisper checkpoint");
    }
    return checkpoint_.LoadInt(name);
  }

  // A flag this engine computes one way only; absent means that way.
  void Expect(const std::string& name, std::int64_t wanted, const std::string& meaning) const {
    if (!checkpoint_.Contains(name)) return;
    const std::int64_t value = checkpoint_.LoadInt(name);
    if (value != wanted) {
      Fail(ErrorCode::kUnimplemented, checkpoint_.FileOf(name) + ": variable '" + name + "' is " + std::to_string(value) +
                                          ": " + meaning + " is not how Whisper computes, nor this engine");
    }
  }

  // A dimension that must agree with one already read.
  void Agree(const std::string& name, std::size_t dim, std::int64_t got, std::int64_t expected, const std::string& what) const {
    if (got != expected) {
      Fail(ErrorCode::kInvalidArgument, checkpoint_.FileOf(name) + ": variable '" + name + "' has shape " +
                                            ShapeString(checkpoint_.Info(name).shape) + ": dimension " + std::to_string(dim) +
                                            " is " + std::to_string(got) + ", but " + what + " is " + std::to_string(expected));
    }
  }

  // Layers PREFIX/layer_0, layer_1, ... as long as they run.
  std::int64_t CountLayers(const std::string& prefix) const {
    std::int64_t n = 0;
    while (checkpoint_.Contains(prefix + "/layer_" + std::to_string(n) + "/self_attention/linear_0/weight")) ++n;
    if (n == 0) {
      Fail(ErrorCode::kNotFound, checkpoint_.name() + ": no variable '" + prefix +
                                     "/layer_0/self_attention/linear_0/weight': not a complete Whisper checkpoint");
    }
    return n;
  }

 private:
  const Ct2Checkpoint& checkpoint_;
};

// WhisperSpec stores scale_embeddings as a flag (false); the specs it derives
// from store the factor itself (a float, 1 for none). Either way, none.
void ExpectUnscaledEmbeddings(const Ct2Checkpoint& checkpoint) {
  const std::string name = "decoder/scale_embeddings";
  if (!checkpoint.Contains(name)) return;
  const Ct2Variable& v = checkpoint.Info(name);
  const bool is_float = v.dtype == Ct2DType::kFloat32 || v.dtype == Ct2DType::kFloat16 || v.dtype == Ct2DType::kBFloat16;
  const bool unscaled = is_float && v.shape.empty() ? checkpoint.Load(name).item<double>() == 1.0 : checkpoint.LoadInt(name) == 0;
  if (!unscaled) {
    Fail(ErrorCode::kUnimplemented, checkpoint.FileOf(name) + ": variable '" + name +
                                        "' scales the embeddings, which is not how Whisper computes, nor this engine");
  }
}

Activation DecoderActivation(const Ct2Checkpoint& checkpoint) {
  const std::string name = "decoder/activation";
  if (!checkpoint.Contains(name)) return Activation::kGelu;
  const std::int64_t code = checkpoint.LoadInt(name);
  // Revision 3 of WhisperSpec renumbered CTranslate2's activations when it added
  // GELU's variants (GELU 1 became GELUTanh 1 and GELU 3).
  if (checkpoint.spec_revision() >= 3) {
    if (code == 3) return Activation::kGelu;
    if (code == 1) return Activation::kGeluTanh;
  } else if (code == 1) {
    return Activation::kGelu;
  }
  Fail(ErrorCode::kUnimplemented, checkpoint.FileOf(name) + ": variable '" + name + "' is activation " + std::to_string(code) +
                                      " of WhisperSpec revision " + std::to_string(checkpoint.spec_revision()) +
                                      "; this engine computes GELU (and its tanh approximation)");
}

}  // namespace

bool IsCt2WhisperDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  return Ct2Checkpoint::IsCheckpointDir(dir) && !fs::exists(fs::path(dir) / "model.safetensors", ec) &&
         !fs::exists(fs::path(dir) / "model.safetensors.index.json", ec);
}

WhisperConfig Ct2WhisperConfig(const std::string& dir, const Ct2Checkpoint& checkpoint) {
  namespace fs = std::filesystem;
  if (checkpoint.spec_name() != "WhisperSpec") {
    Fail(ErrorCode::kInvalidArgument, checkpoint.name() + ": a CTranslate2 " +
                                          (checkpoint.spec_name().empty() ? std::string("binary version 1") : checkpoint.spec_name()) +
                                          " checkpoint, not Whisper (WhisperSpec)");
  }
  if (checkpoint.spec_revision() < 1 || checkpoint.spec_revision() > 3) {
    Fail(ErrorCode::kUnimplemented, checkpoint.name() + ": WhisperSpec revision " + std::to_string(checkpoint.spec_revision()) +
                                        ", this reader knows 1 .. 3");
  }
  const Variables v(checkpoint);
  WhisperConfig c;
  const std::string embeddings = "decoder/embeddings/weight";
  const auto& table = v.Shape(embeddings, 2);
  c.vocab_size = table[0];
  c.d_model = table[1];
  const std::string conv1 = "encoder/conv1/weight";
  const auto& conv = v.Shape(conv1, 3);
  v.Agree(conv1, 0, conv[0], c.d_model, "d_model (the embedding table's width)");
  v.Agree(conv1, 2, conv[2], 3, "Whisper's kernel width");
  c.num_mel_bins = conv[1];
  const std::string encoder_positions = "encoder/position_encodings/encodings";
  const auto& source = v.Shape(encoder_positions, 2);
  v.Agree(encoder_positions, 1, source[1], c.d_model, "d_model");
  c.max_source_positions = source[0];
  const std::string decoder_positions = "decoder/position_encodings/encodings";
  const auto& target = v.Shape(decoder_positions, 2);
  v.Agree(decoder_positions, 1, target[1], c.d_model, "d_model");
  c.max_target_positions = target[0];
  c.encoder_layers = v.CountLayers("encoder");
  c.decoder_layers = v.CountLayers("decoder");
  c.encoder_ffn_dim = v.Shape("encoder/layer_0/ffn/linear_0/weight", 2)[0];
  c.decoder_ffn_dim = v.Shape("decoder/layer_0/ffn/linear_0/weight", 2)[0];
  auto heads_of = [&](const std::string& name) {
    const std::int64_t heads = v.Int(name);
    if (heads < 1 || c.d_model % heads != 0) {
      Fail(ErrorCode::kInvalidArgument, checkpoint.FileOf(name) + ": variable '" + name + "' is " + std::to_string(heads) +
                                            ", not a divisor of d_model " + std::to_string(c.d_model));
    }
    return heads;
  };
  c.encoder_attention_heads = heads_of("encoder/num_heads");
  c.decoder_attention_heads = heads_of("decoder/num_heads");
  c.activation = DecoderActivation(checkpoint);
  v.Expect("decoder/pre_norm", 1, "post-norm layers");
  v.Expect("decoder/alibi", 0, "ALiBi positions");
  ExpectUnscaledEmbeddings(checkpoint);
  v.Expect("decoder/start_from_zero_embedding", 0, "a decoder started from a zero embedding");
  if (checkpoint.Contains("decoder/projection/bias")) {
    Fail(ErrorCode::kUnimplemented, checkpoint.FileOf("decoder/projection/bias") +
                                        ": variable 'decoder/projection/bias': Whisper's output projection has no bias");
  }
  c.scale_embedding = false;

  // The special tokens, by name, from the tokenizer's added tokens.
  const std::string tokenizer_path = (fs::path(dir) / "tokenizer.json").string();
  if (!fs::exists(tokenizer_path)) {
    Fail(ErrorCode::kNotFound, dir + ": no tokenizer.json (a CTranslate2 Whisper checkpoint's tokenizer, with its special tokens)");
  }
  const nlohmann::json tokenizer = ReadJsonObject(tokenizer_path);
  std::map<std::string, std::int64_t> added;
  std::map<std::int64_t, std::string> added_by_id;
  if (tokenizer.contains("added_tokens") && tokenizer["added_tokens"].is_array()) {
    for (const auto& token : tokenizer["added_tokens"]) {
      if (!token.is_object() || !token.contains("content") || !token["content"].is_string() || !token.contains("id") ||
          !token["id"].is_number_integer()) {
        Fail(ErrorCode::kInvalidArgument, tokenizer_path + ": an added token is not {\"id\": ..., \"content\": ...}: " + token.dump());
      }
      added[token["content"].get<std::string>()] = token["id"].get<std::int64_t>();
      added_by_id[token["id"].get<std::int64_t>()] = token["content"].get<std::string>();
    }
  }
  auto require = [&](const std::string& content) {
    auto it = added.find(content);
    if (it == added.end()) Fail(ErrorCode::kNotFound, tokenizer_path + ": no added token " + content);
    if (it->second < 0 || it->second >= c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, tokenizer_path + ": " + content + " is token " + std::to_string(it->second) +
                                            ", outside the embedding table's " + std::to_string(c.vocab_size) + " rows");
    }
    return it->second;
  };
  c.eos_token_id = require("<|endoftext|>");
  c.pad_token_id = c.eos_token_id;
  c.decoder_start_token_id = require("<|startoftranscript|>");
  c.no_timestamps_token_id = require("<|notimestamps|>");
  for (const char* task : {"transcribe", "translate"}) {
    const std::string token = std::string("<|") + task + "|>";
    if (added.count(token) != 0) c.task_to_id[task] = require(token);
  }

  // Generation settings from CTranslate2's config.json.
  const std::string config_path = (fs::path(dir) / "config.json").string();
  if (!fs::exists(config_path)) Fail(ErrorCode::kNotFound, dir + ": no config.json (CTranslate2's: suppress_ids, lang_ids, ...)");
  const nlohmann::json config = ReadJsonObject(config_path);
  c.suppress_tokens = IdList(config, config_path, "suppress_ids", c.vocab_size);
  c.begin_suppress_tokens = IdList(config, config_path, "suppress_ids_begin", c.vocab_size);
  const std::vector<std::int64_t> lang_ids = IdList(config, config_path, "lang_ids", c.vocab_size);
  c.is_multilingual = c.vocab_size == kEnglishOnlyVocabulary ? false : c.vocab_size > kEnglishOnlyVocabulary || !lang_ids.empty();
  if (*c.is_multilingual) {
    static const std::regex kLanguageToken(R"(<\|[a-z]{2,3}(_[a-z]+)?\|>)");
    for (std::int64_t id : lang_ids) {
      auto it = added_by_id.find(id);
      if (it == added_by_id.end() || !std::regex_match(it->second, kLanguageToken)) {
        Fail(ErrorCode::kInvalidArgument, config_path + ": lang_ids holds " + std::to_string(id) + ", which " + tokenizer_path +
                                              (it == added_by_id.end() ? " has no token for" : " spells " + it->second + ", not a language token"));
      }
      c.lang_to_id[it->second] = id;
    }
  }
  if (config.contains("alignment_heads") && !config["alignment_heads"].is_null()) {
    const auto& heads = config["alignment_heads"];
    if (!heads.is_array()) Fail(ErrorCode::kInvalidArgument, config_path + ": field \"alignment_heads\" is not a list of [layer, head] pairs");
    for (const auto& pair : heads) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer() ||
          pair[0].get<std::int64_t>() < 0 || pair[0].get<std::int64_t>() >= c.decoder_layers ||
          pair[1].get<std::int64_t>() < 0 || pair[1].get<std::int64_t>() >= c.decoder_attention_heads) {
        Fail(ErrorCode::kInvalidArgument, config_path + ": field \"alignment_heads\" holds " + pair.dump() +
                                              ", expected [layer, head] below [" + std::to_string(c.decoder_layers) + ", " +
                                              std::to_string(c.decoder_attention_heads) + "] (the decoder's layers and heads)");
      }
      c.alignment_heads.emplace_back(pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>());
    }
  }
  c.max_initial_timestamp_index = kMaxInitialTimestampIndex;
  c.max_length = c.max_target_positions;

  // vocabulary.txt (one token a line, timestamps included) must be this model's.
  const std::string vocabulary_path = (fs::path(dir) / "vocabulary.txt").string();
  if (fs::exists(vocabulary_path)) {
    std::ifstream in(vocabulary_path);
    std::int64_t lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    if (lines != c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, vocabulary_path + ": " + std::to_string(lines) + " tokens, but " + checkpoint.name() +
                                            "'s embedding table has " + std::to_string(c.vocab_size) +
                                            " rows: the files are from different models");
    }
  }
  if (*c.no_timestamps_token_id + 1 >= c.vocab_size) {
    Fail(ErrorCode::kInvalidArgument, tokenizer_path + ": <|notimestamps|> is token " + std::to_string(*c.no_timestamps_token_id) +
                                          ", leaving no timestamp tokens below the embedding table's " +
                                          std::to_string(c.vocab_size) + " rows");
  }
  return c;
}

Ct2WeightSource Ct2WhisperSourceOf(const std::string& name) {
  // Whole variables: the same weight under another name.
  static const std::map<std::string, std::string> kWhole = {
      {"model.encoder.conv1.weight", "encoder/conv1/weight"},
      {"model.encoder.conv1.bias", "encoder/conv1/bias"},
      {"model.encoder.conv2.weight", "encoder/conv2/weight"},
      {"model.encoder.conv2.bias", "encoder/conv2/bias"},
      {"model.encoder.embed_positions.weight", "encoder/position_encodings/encodings"},
      {"model.encoder.layer_norm.weight", "encoder/layer_norm/gamma"},
      {"model.encoder.layer_norm.bias", "encoder/layer_norm/beta"},
      {"model.decoder.embed_tokens.weight", "decoder/embeddings/weight"},
      {"model.decoder.embed_positions.weight", "decoder/position_encodings/encodings"},
      {"model.decoder.layer_norm.weight", "decoder/layer_norm/gamma"},
      {"model.decoder.layer_norm.bias", "decoder/layer_norm/beta"},
      {"proj_out.weight", "decoder/projection/weight"},
  };
  // Within a layer: transformers' name -> (CTranslate2's, pieces stacked, which piece).
  static const std::map<std::string, Ct2WeightSource> kInLayer = {
      {"self_attn.q_proj.weight", {"self_attention/linear_0/weight", 3, 0}},
      {"self_attn.k_proj.weight", {"self_attention/linear_0/weight", 3, 1}},
      {"self_attn.v_proj.weight", {"self_attention/linear_0/weight", 3, 2}},
      {"self_attn.q_proj.bias", {"self_attention/linear_0/bias", 3, 0}},
      {"self_attn.v_proj.bias", {"self_attention/linear_0/bias", 3, 2}},
      {"self_attn.out_proj.weight", {"self_attention/linear_1/weight", 1, 0}},
      {"self_attn.out_proj.bias", {"self_attention/linear_1/bias", 1, 0}},
      {"self_attn_layer_norm.weight", {"self_attention/layer_norm/gamma", 1, 0}},
      {"self_attn_layer_norm.bias", {"self_attention/layer_norm/beta", 1, 0}},
      {"encoder_attn.q_proj.weight", {"attention/linear_0/weight", 1, 0}},
      {"encoder_attn.q_proj.bias", {"attention/linear_0/bias", 1, 0}},
      {"encoder_attn.k_proj.weight", {"attention/linear_1/weight", 2, 0}},
      {"encoder_attn.v_proj.weight", {"attention/linear_1/weight", 2, 1}},
      {"encoder_attn.v_proj.bias", {"attention/linear_1/bias", 2, 1}},
      {"encoder_attn.out_proj.weight", {"attention/linear_2/weight", 1, 0}},
      {"encoder_attn.out_proj.bias", {"attention/linear_2/bias", 1, 0}},
      {"encoder_attn_layer_norm.weight", {"attention/layer_norm/gamma", 1, 0}},
      {"encoder_attn_layer_norm.bias", {"attention/layer_norm/beta", 1, 0}},
      {"fc1.weight", {"ffn/linear_0/weight", 1, 0}},
      {"fc1.bias", {"ffn/linear_0/bias", 1, 0}},
      {"fc2.weight", {"ffn/linear_1/weight", 1, 0}},
      {"fc2.bias", {"ffn/linear_1/bias", 1, 0}},
      {"final_layer_norm.weight", {"ffn/layer_norm/gamma", 1, 0}},
      {"final_layer_norm.bias", {"ffn/layer_norm/beta", 1, 0}},
  };
  if (auto it = kWhole.find(name); it != kWhole.end()) return {it->second, 1, 0};
  static const std::regex kLayer(R"(model\.(encoder|decoder)\.layers\.(\d+)\.(.+))");
  std::smatch m;
  if (std::regex_match(name, m, kLayer)) {
    if (auto it = kInLayer.find(m[3].str()); it != kInLayer.end()) {
      Ct2WeightSource source = it->second;
      source.variable = m[1].str() + "/layer_" + m[2].str() + "/" + source.variable;
      return source;
    }
  }
  Fail(ErrorCode::kInternal, "no CTranslate2 variable is known for Whisper weight '" + name + "'");
}

std::function<torch::Tensor(const std::string&, const std::vector<std::int64_t>&)> Ct2WhisperWeights(
    const Ct2Checkpoint& checkpoint, const torch::TensorOptions& options) {
  return [&checkpoint, options](const std::string& name, const std::vector<std::int64_t>& shape) {
    const Ct2WeightSource source = Ct2WhisperSourceOf(name);
    if (!checkpoint.Contains(source.variable)) {
      Fail(ErrorCode::kNotFound, checkpoint.name() + ": no variable '" + source.variable + "' (Whisper's " + name +
                                     "): not a complete Whisper checkpoint");
    }
    if (source.parts == 1) return checkpoint.LoadWeight(source.variable, shape, options);
    std::vector<std::int64_t> stacked = shape;
    stacked[0] *= source.parts;
    return checkpoint.LoadWeightRows(source.variable, stacked, source.index * shape[0], shape[0], options);
  };
}

bool Ct2HasOwnProjection(const Ct2Checkpoint& checkpoint) {
  const std::string projection = "decoder/projection/weight";
  return checkpoint.Contains(projection) && checkpoint.Resolve(projection) != "decoder/embeddings/weight";
}

}  // namespace lingcast::neural
