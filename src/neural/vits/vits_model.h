// VitsModel: transformers' VitsModel (VITS, as MMS-TTS publishes it) on libtorch.
//
// Characters -> text encoder (relative-position transformer) -> per-token
// durations (stochastic or deterministic predictor) -> the prior expanded to
// frames and sampled -> the coupling flow in reverse -> HiFi-GAN -> waveform.
// Loaded from a checkpoint directory as published (config.json,
// model.safetensors or shards; weight norm stored as weight_g / weight_v or as
// parametrizations.weight.original0 / original1 is folded at load). Immutable
// after loading: one model serves any number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/graph_cache.h"
#include "neural/core/thread_annotations.h"
#include "neural/core/vocoder_chunks.h"
#include "neural/vits/vits_config.h"

namespace lingcast::neural {
struct VitsModelOptions {
  torch::Device device = torch::kCPU;
  torch::ScalarType dtype = torch::kFloat;  // kFloat, or kHalf / kBFloat16 on a GPU
  // On CUDA (a libtorch with CUDA): each stage recorded as a CUDA graph per
  // padded length and replayed (core/graph_cache.h); the first synthesis at a length
  // bucket runs eagerly, the second records. Same results as eager (the padding
  // is masked). Synthesis calls on one model are then serialized.
  bool cuda_graphs = true;
  // What the stage graphs may keep, least recently used freed past it
  // (GraphCache, cache_budget.h); 0: bounded by count only (48 graphs).
  std::int64_t graph_cache_bytes = std::int64_t{256} << 20;
  // On CUDA: convolutions through cuDNN. cuDNN plans each convolution anew at
  // every input length it has not seen, and HiFi-GAN has dozens, so the first
  // line at each new length pays that planning; false takes PyTorch's own
  // kernels (im2col and a GEMM), which plan nothing: on an H100 a HiFi-GAN V1
  // at a new length took 107-146 ms with cuDNN, 8 ms at a length seen before,
  // and about 40 ms either way without (docs/gpu.md). The same numbers to float
  // rounding; no difference on the CPU.
  bool cudnn_convolutions = true;
};

// The buckets VitsModel::WarmGraphs records before the first line: every text
// bucket up to `max_tokens` tokens and every frame bucket up to `max_frames`
// frames (0: none of that stage).
struct VitsWarmup {
  std::int64_t max_tokens = 192;  // MMS-TTS: ~95 characters (a blank between each)
  std::int64_t max_frames = 640;  // ~10 s at 16 kHz, 256 samples a frame
};

// The standard normal draws of one synthesis, to replay exactly what another
// run (the reference) drew. Shapes: duration (N, 2, T) (stochastic predictor
// only), prior (N, flow_size, frames).
struct VitsNoise {
  torch::Tensor duration;
  torch::Tensor prior;
};

struct VitsSynthesisOptions {
  std::optional<double> speaking_rate;         // default: the config's (durations / rate)
  std::optional<double> noise_scale;           // default: the config's
  std::optional<double> noise_scale_duration;  // default: the config's
  std::uint64_t seed = 0;                      // for the noise, drawn on the CPU as torch.randn draws
  const VitsNoise* noise = nullptr;            // replayed noise instead of the seed
};

struct VitsTextEncoding {
  torch::Tensor hidden;               // (N, T, hidden_size)
  torch::Tensor prior_means;          // (N, T, flow_size)
  torch::Tensor prior_log_variances;  // (N, T, flow_size)
};

struct VitsOutput {
  torch::Tensor waveform;             // (N, samples) in [-1, 1]; rows padded to the longest
  torch::Tensor durations;            // (N, T) int64 frames per token; 0 for padding
  std::vector<std::int64_t> lengths;  // samples of each row (frames * hop_length)
};

// One chunk of a streamed synthesis: `samples` (float32 on the CPU) follow the
// chunk before; `durations` (1, T) int64 are every token's frames (the same in
// every chunk). Returning false stops the synthesis.
using VitsChunkSink = std::function<bool(const torch::Tensor& durations, const torch::Tensor& samples)>;

class VitsModel {
 public:
  // Throws NeuralError naming the file and tensor for anything missing or wrong.
  static std::shared_ptr<const VitsModel> Load(const std::string& dir, const VitsModelOptions& options = {});

  // Random weights of `config`'s sizes, scaled so activations stay in range and
  // tokens last a few frames: for benchmarks at real sizes without a download.
  static std::shared_ptr<const VitsModel> Random(const VitsConfig& config, const VitsModelOptions& options = {},
                                                 std::uint64_t seed = 0);

  const VitsConfig& config() const { return config_; }
  const VitsModelOptions& options() const { return options_; }

  // input_ids (N, T) int64; attention_mask (N, T) 1 for tokens, 0 for padding, or
  // undefined for none. kInvalidArgument for ids outside the vocabulary.
  VitsTextEncoding EncodeText(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) const;

  // The whole synthesis. T must be at least 1. kInvalidArgument for a replayed
  // noise tensor of the wrong shape (naming both shapes).
  VitsOutput Synthesize(const torch::Tensor& input_ids, const torch::Tensor& attention_mask = {},
                        const VitsSynthesisOptions& options = {}) const;

  // The synthesis of one row (input_ids (1, T)), its waveform handed to `sink`
  // chunk by chunk as the decoder makes it. Each chunk of frames goes through
  // the flow and HiFi-GAN with as many frames of context either side as their
  // convolutions reach (context_frames()), so the samples are Synthesize's, to
  // float rounding. The flow runs twice: over the first chunk's reach, then over
  // the rest. With CUDA graphs the whole waveform is one chunk (a GPU decodes a
  // clause in milliseconds). Errors as Synthesize.
  void SynthesizeInChunks(const torch::Tensor& input_ids, const VitsSynthesisOptions& options,
                          const VocoderChunking& chunking, const VitsChunkSink& sink) const;

  // Frames either side of a chunk that its samples depend on: {through the
  // flow, through HiFi-GAN}.
  std::pair<std::int64_t, std::int64_t> context_frames() const;

  // What the CUDA graphs did so far (all zero without them).
  GraphCacheStats graph_stats() const;

  // On CUDA with graphs: records both stages at batch 1 for every bucket of
  // `warmup` (each run eagerly once, then captured), on placeholder inputs, so
  // a live job's first lines replay instead of paying a first call at each new
  // bucket (200+ ms for MMS-TTS on an H200). Returns the graphs recorded; 0
  // without graphs (the CPU), a no-op.
  std::int64_t WarmGraphs(const VitsWarmup& warmup = {}) const;

  ~VitsModel();

  struct Weights;  // the layers' tensors (vits_layers.h), defined in vits_model.cc

 private:
  VitsModel();
  // The text encoder on device tensors: ids (N, T), keep (N, T) 1/0;
  // `masked` adds the attention mask for padding.
  VitsTextEncoding Encode(const torch::Tensor& ids, const torch::Tensor& keep, bool masked) const;
  // Text encoder + duration predictor: {prior means, prior log-variances,
  // exp(log-durations) * mask (N, 1, T)}; noise (N, 2, T) already scaled
  // (undefined for the deterministic predictor).
  std::vector<torch::Tensor> EncodeAndPredict(const torch::Tensor& ids, const torch::Tensor& keep, bool masked,
                                              const torch::Tensor& scaled_noise) const;
  // Flow in reverse + HiFi-GAN: prior (N, flow, F), flow_mask (N, 1, F);
  // decoder_mask (1, 1, F) or undefined (unpadded) -> waveform (N, 1, F * hop).
  torch::Tensor Decode(const torch::Tensor& prior, const torch::Tensor& flow_mask,
                       const torch::Tensor& decoder_mask) const;
  bool UseGraphs() const;
  // Everything before the decoder: durations and the sampled prior of every
  // frame. With `graphs`, lengths are padded to buckets and the text stage runs
  // through graphs_ (the caller holds graphs_mutex_).
  struct Prior {
    torch::Tensor prior;       // (N, flow_size, padded_frames)
    torch::Tensor flow_mask;   // (N, 1, padded_frames)
    torch::Tensor durations;   // (N, T) int64 on the CPU
    torch::Tensor predicted;   // (N) frames of each row
    std::int64_t frames = 0;   // the longest row's
    std::int64_t padded_frames = 0;
  };
  Prior SamplePrior(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                    const VitsSynthesisOptions& options, bool graphs) const;
  // The two stages through graphs_ (the caller holds graphs_mutex_), keyed by
  // their padded shapes: the text stage's inputs {ids, keep[, scaled noise]}, the
  // decode stage's {prior, flow_mask, decoder_mask}.
  std::vector<torch::Tensor> TextStageGraph(const std::vector<torch::Tensor>& inputs, bool masked) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(graphs_mutex_);
  torch::Tensor DecodeStageGraph(const std::vector<torch::Tensor>& inputs) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(graphs_mutex_);

  VitsConfig config_;
  VitsModelOptions options_;
  std::unique_ptr<Weights> weights_;
  mutable std::mutex graphs_mutex_;
  mutable std::unique_ptr<GraphCache> graphs_ ABSL_GUARDED_BY(graphs_mutex_);
};

}  // namespace lingcast::neural
