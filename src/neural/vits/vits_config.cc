#include "neural/vits/vits_config.h"

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

class Fields : public JsonFields {
 public:
  using JsonFields::JsonFields;

  std::vector<std::int64_t> Ints(const char* key, std::vector<std::int64_t> fallback) const {
    if (!Has(key)) return fallback;
    const auto& v = json().at(key);
    std::vector<std::int64_t> out;
    if (!v.is_array() || v.empty()) BadField(key, "a non-empty list of integers >= 1");
    for (const auto& item : v) {
      if (!item.is_number_integer() || item.get<std::int64_t>() < 1) BadField(key, "a non-empty list of integers >= 1");
      out.push_back(item.get<std::int64_t>());
    }
    return out;
  }

  std::vector<std::vector<std::int64_t>> IntLists(const char* key, std::vector<std::vector<std::int64_t>> fallback) const {
    if (!Has(key)) return fallback;
    const auto& v = json().at(key);
    std::vector<std::vector<std::int64_t>> out;
    if (!v.is_array() || v.empty()) BadField(key, "a list of lists of integers >= 1");
    for (const auto& row : v) {
      if (!row.is_array() || row.empty()) BadField(key, "a list of lists of integers >= 1");
      out.emplace_back();
      for (const auto& item : row) {
        if (!item.is_number_integer() || item.get<std::int64_t>() < 1) BadField(key, "a list of lists of integers >= 1");
        out.back().push_back(item.get<std::int64_t>());
      }
    }
    return out;
  }
};

}  // namespace

std::int64_t VitsConfig::hop_length() const {
  std::int64_t hop = 1;
  for (const std::int64_t rate : upsample_rates) hop *= rate;
  return hop;
}

VitsConfig LoadVitsConfig(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string path = (fs::path(dir) / "config.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) Fail(ErrorCode::kNotFound, dir + ": no config.json: not a Hugging Face checkpoint directory");
  const nlohmann::json json = ReadJsonObject(path);
  const Fields f(json, path);
  const std::string model_type = f.String("model_type", "");
  if (model_type != "vits") {
    Fail(ErrorCode::kInvalidArgument, path + ": model_type is \"" + model_type +
                                          "\", not \"vits\": this is not a VITS (MMS-TTS) checkpoint");
  }
  VitsConfig c;
  c.vocab_size = f.Int("vocab_size", c.vocab_size, 1);
  c.hidden_size = f.Int("hidden_size", c.hidden_size, 1);
  c.num_hidden_layers = f.Int("num_hidden_layers", c.num_hidden_layers, 1);
  c.num_attention_heads = f.Int("num_attention_heads", c.num_attention_heads, 1);
  c.window_size = f.Int("window_size", 0, 0);  // null or absent: no relative positions
  c.use_bias = f.Bool("use_bias", c.use_bias);
  c.ffn_dim = f.Int("ffn_dim", c.ffn_dim, 1);
  c.ffn_kernel_size = f.Int("ffn_kernel_size", c.ffn_kernel_size, 1);
  c.flow_size = f.Int("flow_size", c.flow_size, 2);
  c.hidden_act = ParseActivation(f.String("hidden_act", "relu"), path + ": field \"hidden_act\"");
  c.layer_norm_eps = f.Number("layer_norm_eps", c.layer_norm_eps, true);
  c.use_stochastic_duration_prediction =
      f.Bool("use_stochastic_duration_prediction", c.use_stochastic_duration_prediction);
  c.num_speakers = f.Int("num_speakers", c.num_speakers, 1);
  c.speaker_embedding_size = f.Int("speaker_embedding_size", c.speaker_embedding_size, 0);
  c.upsample_initial_channel = f.Int("upsample_initial_channel", c.upsample_initial_channel, 1);
  c.upsample_rates = f.Ints("upsample_rates", c.upsample_rates);
  c.upsample_kernel_sizes = f.Ints("upsample_kernel_sizes", c.upsample_kernel_sizes);
  c.resblock_kernel_sizes = f.Ints("resblock_kernel_sizes", c.resblock_kernel_sizes);
  c.resblock_dilation_sizes = f.IntLists("resblock_dilation_sizes", c.resblock_dilation_sizes);
  if (f.Has("resblock_type")) {
    const std::string type = f.String("resblock_type", "1");
    if (type != "1" && type != "2") f.BadField("resblock_type", "\"1\" or \"2\"");
    c.resblock_type = type == "2" ? 2 : 1;
  }
  c.leaky_relu_slope = f.Number("leaky_relu_slope", c.leaky_relu_slope, false);
  c.depth_separable_channels = f.Int("depth_separable_channels", c.depth_separable_channels, 2);
  c.depth_separable_num_layers = f.Int("depth_separable_num_layers", c.depth_separable_num_layers, 1);
  c.duration_predictor_flow_bins = f.Int("duration_predictor_flow_bins", c.duration_predictor_flow_bins, 1);
  c.duration_predictor_tail_bound = f.Number("duration_predictor_tail_bound", c.duration_predictor_tail_bound, true);
  c.duration_predictor_kernel_size = f.Int("duration_predictor_kernel_size", c.duration_predictor_kernel_size, 1);
  c.duration_predictor_num_flows = f.Int("duration_predictor_num_flows", c.duration_predictor_num_flows, 1);
  c.duration_predictor_filter_channels =
      f.Int("duration_predictor_filter_channels", c.duration_predictor_filter_channels, 1);
  c.prior_encoder_num_flows = f.Int("prior_encoder_num_flows", c.prior_encoder_num_flows, 1);
  c.prior_encoder_num_wavenet_layers = f.Int("prior_encoder_num_wavenet_layers", c.prior_encoder_num_wavenet_layers, 1);
  c.wavenet_kernel_size = f.Int("wavenet_kernel_size", c.wavenet_kernel_size, 1);
  c.wavenet_dilation_rate = f.Int("wavenet_dilation_rate", c.wavenet_dilation_rate, 1);
  c.speaking_rate = f.Number("speaking_rate", c.speaking_rate, true);
  c.noise_scale = f.Number("noise_scale", c.noise_scale, false);
  c.noise_scale_duration = f.Number("noise_scale_duration", c.noise_scale_duration, false);
  c.sampling_rate = f.Int("sampling_rate", c.sampling_rate, 1);
  if (c.num_speakers > 1 || c.speaker_embedding_size != 0) {
    Fail(ErrorCode::kUnimplemented, path + ": num_speakers is " + std::to_string(c.num_speakers) +
                                        " (speaker_embedding_size " + std::to_string(c.speaker_embedding_size) +
                                        "): multi-speaker VITS checkpoints are not supported (MMS-TTS has one speaker)");
  }
  ValidateVitsConfig(c, path);
  return c;
}

void ValidateVitsConfig(const VitsConfig& c, const std::string& source) {
  auto bad = [&](const std::string& what) { Fail(ErrorCode::kInvalidArgument, source + ": " + what); };
  if (c.hidden_size % c.num_attention_heads != 0) {
    bad("hidden_size " + std::to_string(c.hidden_size) + " is not divisible by num_attention_heads " +
        std::to_string(c.num_attention_heads));
  }
  if (c.flow_size % 2 != 0) bad("flow_size " + std::to_string(c.flow_size) + " is odd (the flow splits it in halves)");
  if (c.depth_separable_channels != 2) {
    // The duration flows carry (log-duration, its companion): two channels.
    bad("depth_separable_channels is " + std::to_string(c.depth_separable_channels) + ", expected 2");
  }
  if (c.use_stochastic_duration_prediction && c.duration_predictor_num_flows < 2) {
    bad("duration_predictor_num_flows is " + std::to_string(c.duration_predictor_num_flows) +
        ", expected at least 2 (inference skips one flow)");
  }
  if (c.upsample_rates.size() != c.upsample_kernel_sizes.size()) {
    bad("upsample_rates has " + std::to_string(c.upsample_rates.size()) + " entries but upsample_kernel_sizes has " +
        std::to_string(c.upsample_kernel_sizes.size()));
  }
  if (c.resblock_kernel_sizes.size() != c.resblock_dilation_sizes.size()) {
    bad("resblock_kernel_sizes has " + std::to_string(c.resblock_kernel_sizes.size()) +
        " entries but resblock_dilation_sizes has " + std::to_string(c.resblock_dilation_sizes.size()));
  }
  if ((c.upsample_initial_channel >> c.upsample_rates.size()) < 1) {
    bad("upsample_initial_channel " + std::to_string(c.upsample_initial_channel) + " is too small for " +
        std::to_string(c.upsample_rates.size()) + " upsamplers (each halves the channels)");
  }
}

}  // namespace lingcast::neural
