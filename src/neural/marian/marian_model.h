// MarianModel: transformers' MarianMTModel (OPUS-MT) on libtorch.
//
// Encoder and decoder of post-norm transformer layers with sinusoidal positions,
// embeddings scaled by sqrt(d_model) when the config says so, the output
// projection tied to the decoder embeddings, and final_logits_bias. Loaded from a
// checkpoint directory as published (config.json, model.safetensors or shards);
// immutable after loading (but for the greedy decoders it keeps across calls,
// marian_decoder_cache.h), so one model serves any number of decoder states.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/generation.h"
#include "neural/core/model_options.h"
#include "neural/core/transformer_layers.h"
#include "neural/marian/marian_config.h"
#include "neural/marian/marian_decoder_cache.h"

namespace lingcast::neural {

class MarianDecoderState;
class MarianStaticDecoder;

class MarianModel : public std::enable_shared_from_this<MarianModel> {
 public:
  // Weight name + expected shape -> tensor (already on the device, in the dtype).
  using WeightSource = std::function<torch::Tensor(const std::string&, const std::vector<std::int64_t>&)>;

  // Throws NeuralError naming the file and tensor for anything missing or wrong.
  static std::shared_ptr<const MarianModel> Load(const std::string& dir, const ModelOptions& options = {});

  // Random weights of `config`'s sizes (normal, std 0.02 like transformers' init;
  // layer norms at 1 and 0): for benchmarks at real sizes without a download.
  static std::shared_ptr<const MarianModel> Random(const MarianConfig& config, const ModelOptions& options = {},
                                                   std::uint64_t seed = 0);

  const MarianConfig& config() const { return config_; }
  const ModelOptions& options() const { return options_; }
  // Bytes of every weight the model holds (tied tables once).
  std::int64_t WeightBytes() const;

  // input_ids (B, S) int64; attention_mask (B, S), 1 for tokens and 0 for padding.
  // Returns the encoder's last hidden state (B, S, d_model).
  torch::Tensor Encode(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) const;

  // A decoder over `encoder_out`, each input repeated `repeat` times in a row (the
  // beams), with caches for up to `capacity` decoder positions.
  std::unique_ptr<MarianDecoderState> StartDecoder(const torch::Tensor& encoder_out,
                                                   const torch::Tensor& attention_mask, std::int64_t repeat,
                                                   std::int64_t capacity) const;

  // The static-shape decoder of greedy search on the device (StaticGreedySearch):
  // one row per input, caches for `capacity` positions (at most
  // max_position_embeddings).
  std::unique_ptr<MarianStaticDecoder> StartStaticDecoder(const torch::Tensor& encoder_out,
                                                          const torch::Tensor& attention_mask,
                                                          std::int64_t capacity) const;

  // Logits (B, T, V) for whole decoder inputs at once (teacher forcing).
  torch::Tensor Logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                       const torch::Tensor& decoder_input_ids) const;

  // Encodes and decodes a batch; sequences start with the decoder start token.
  // Options default from the config (beams, length penalty, bad words, forced eos).
  // Greedy search takes the static path where UseStaticPath says so (CUDA by default):
  // with DecodePath::kAuto and options.cuda_graphs on CUDA, GenerateBucketed's;
  // with kStatic, unpadded with a graph captured per call (the path before kept
  // graphs, kept for comparison).
  std::vector<std::vector<std::int64_t>> Generate(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                  const GenerationOptions& options) const;
  // Greedy search on the static path with the input padded to its bucket
  // (MarianSourceBucket, MarianBatchBucket; the padding masked) and the decoder of
  // that bucket kept across calls (on CUDA with its captured step graph), so a
  // line of a bucket seen before replays rather than captures. The same sequences
  // as unpadded greedy search. kInvalidArgument for beams or a process_scores.
  std::vector<std::vector<std::int64_t>> GenerateBucketed(const torch::Tensor& input_ids,
                                                          const torch::Tensor& attention_mask,
                                                          const GenerationOptions& options,
                                                          StaticSearchReport* report = nullptr) const;
  GenerationOptions DefaultGenerationOptions() const;
  // Decoders kept for GenerateBucketed: most buckets kept (and at most
  // options().graph_cache_bytes of them), and what was reused.
  static constexpr std::size_t kKeptDecoders = 16;
  MarianDecoderCacheStats KeptDecoderStats() const { return kept_decoders_->stats(); }

  // The source lengths a live job's lines mostly have: 8 buckets, 1-64 tokens.
  static std::vector<std::int64_t> DefaultWarmSourceLengths();
  // On CUDA with GenerateBucketed's path (greedy, options.path kAuto, cuda_graphs):
  // decodes a placeholder line of each length's bucket at `batch` rows under
  // `options` (its max_new_tokens is part of the bucket), so each bucket's first
  // real line replays a kept decoder's graph instead of paying the first meeting
  // of its shapes (~160 ms at OPUS-MT base on an H200). Returns the buckets
  // warmed: 0 where that path is not taken (the CPU, beams), a no-op.
  std::int64_t WarmBuckets(const std::vector<std::int64_t>& source_lengths, std::int64_t batch,
                           const GenerationOptions& options) const;

 private:
  friend class MarianDecoderState;
  friend class MarianStaticDecoder;
  MarianModel() = default;
  static std::shared_ptr<MarianModel> Build(const MarianConfig& config, const ModelOptions& options,
                                            const WeightSource& weight, const std::string& encoder_embedding,
                                            const std::string& decoder_embedding, bool has_lm_head);

  torch::Tensor Embed(const torch::Tensor& ids, const LinearWeights& table, std::int64_t offset,
                      const char* what) const;
  torch::Tensor DecodeStep(const torch::Tensor& decoder_ids, std::vector<KvCache>& caches,
                           const std::vector<CrossKv>& cross, const torch::Tensor& cross_mask) const;
  // StartStaticDecoder's decoder; one that keeps the model alive when
  // `own_model` (a decoder kept in kept_decoders_ must not: the model would
  // then own itself, and never be freed).
  std::unique_ptr<MarianStaticDecoder> MakeStaticDecoder(const torch::Tensor& encoder_out,
                                                         const torch::Tensor& attention_mask, std::int64_t capacity,
                                                         bool own_model) const;
  // `options` checked and capped to the position table.
  GenerationOptions CheckedGeneration(const GenerationOptions& options) const;

  MarianConfig config_;
  ModelOptions options_;
  double embed_scale_ = 1.0;
  // Embedding tables as LinearWeights: the output projection is tied to the
  // decoder's, and a quantized table is stored once, in int8.
  LinearWeights encoder_embed_, decoder_embed_, lm_head_;
  torch::Tensor final_logits_bias_, positions_;
  std::vector<EncoderLayerWeights> encoder_layers_;
  std::vector<DecoderLayerWeights> decoder_layers_;
  // Not part of the model's value: the greedy decoders GenerateBucketed keeps
  // (thread-safe itself, hence usable from const methods).
  std::shared_ptr<MarianDecoderCache> kept_decoders_;  // made by Build, with options_'s byte bound
};

class MarianDecoderState : public StepDecoder {
 public:
  torch::Tensor Step(const torch::Tensor& tokens) override;
  void Select(const torch::Tensor& rows) override;

 private:
  friend class MarianModel;
  explicit MarianDecoderState(std::shared_ptr<const MarianModel> model) : model_(std::move(model)) {}

  std::shared_ptr<const MarianModel> model_;
  std::vector<KvCache> caches_;
  std::vector<CrossKv> cross_;
  torch::Tensor cross_mask_;
};

class MarianStaticDecoder : public StaticStepDecoder {
 public:
  torch::Tensor Forward(const torch::Tensor& tokens, const torch::Tensor& positions) override;
  torch::Device device() const override { return model_->options_.device; }
  std::int64_t capacity() const override { return caches_.front().capacity(); }
  // Device memory of its caches, cross-attention inputs and mask.
  std::int64_t Bytes() const;

 private:
  friend class MarianModel;
  // `owner`: the model itself, or null for a decoder the model keeps (which
  // its model outlives).
  MarianStaticDecoder(const MarianModel& model, std::shared_ptr<const MarianModel> owner)
      : model_(&model), owner_(std::move(owner)) {}
  // Points the decoder at another input of the same shapes, in place (a kept CUDA
  // graph reads these storages): its cross-attention keys, values and mask.
  void Refill(const torch::Tensor& encoder_out, const torch::Tensor& attention_mask);

  const MarianModel* model_;                  // never null
  std::shared_ptr<const MarianModel> owner_;  // keeps *model_ alive, unless the model keeps this decoder
  std::vector<StaticKvCache> caches_;
  std::vector<CrossKv> cross_;
  torch::Tensor cross_mask_;
};

}  // namespace lingcast::neural
