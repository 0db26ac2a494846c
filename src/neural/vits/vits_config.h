// VitsConfig: what lingcast reads from a VITS (MMS-TTS) checkpoint's config.json.
// Missing fields take transformers' VitsConfig defaults, as from_pretrained does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "neural/core/ops.h"

namespace lingcast::neural {

struct VitsConfig {
  std::int64_t vocab_size = 38;
  std::int64_t hidden_size = 192;
  std::int64_t num_hidden_layers = 6;
  std::int64_t num_attention_heads = 2;
  std::int64_t window_size = 4;  // relative-position window; 0: none
  bool use_bias = true;
  std::int64_t ffn_dim = 768;
  std::int64_t ffn_kernel_size = 3;
  std::int64_t flow_size = 192;
  Activation hidden_act = Activation::kRelu;
  double layer_norm_eps = 1e-5;
  bool use_stochastic_duration_prediction = true;
  std::int64_t num_speakers = 1;
  std::int64_t speaker_embedding_size = 0;
  std::int64_t upsample_initial_channel = 512;
  std::vector<std::int64_t> upsample_rates = {8, 8, 2, 2};
  std::vector<std::int64_t> upsample_kernel_sizes = {16, 16, 4, 4};
  std::vector<std::int64_t> resblock_kernel_sizes = {3, 7, 11};
  std::vector<std::vector<std::int64_t>> resblock_dilation_sizes = {{1, 3, 5}, {1, 3, 5}, {1, 3, 5}};
  // HiFi-GAN's residual block: 1 (two convolutions per dilation, transformers'
  // only kind) or 2 (one per dilation: Piper's medium and low voices). Not a
  // transformers field: tools/neural/piper_to_checkpoint.py writes it, as "1"/"2"
  // the way the original VITS config says it.
  int resblock_type = 1;
  double leaky_relu_slope = 0.1;
  std::int64_t depth_separable_channels = 2;
  std::int64_t depth_separable_num_layers = 3;
  std::int64_t duration_predictor_flow_bins = 10;
  double duration_predictor_tail_bound = 5.0;
  std::int64_t duration_predictor_kernel_size = 3;
  std::int64_t duration_predictor_num_flows = 4;
  std::int64_t duration_predictor_filter_channels = 256;
  std::int64_t prior_encoder_num_flows = 4;
  std::int64_t prior_encoder_num_wavenet_layers = 4;
  std::int64_t wavenet_kernel_size = 5;
  std::int64_t wavenet_dilation_rate = 1;
  double speaking_rate = 1.0;
  double noise_scale = 0.667;
  double noise_scale_duration = 0.8;
  std::int64_t sampling_rate = 16000;

  // Waveform samples per spectrogram frame: the product of the upsample rates.
  std::int64_t hop_length() const;
};

// Reads DIR/config.json. Throws NeuralError naming the file and field: kNotFound
// without config.json, kInvalidArgument for a bad field or a config that is not
// VITS's (model_type), kUnimplemented for what lingcast does not compute (several
// speakers).
VitsConfig LoadVitsConfig(const std::string& dir);

// Checks the sizes agree with each other (heads divide the hidden size, one kernel
// per upsample rate, ...); kInvalidArgument naming `source` and the fields.
void ValidateVitsConfig(const VitsConfig& config, const std::string& source);

}  // namespace lingcast::neural
