// WhisperModel: transformers' WhisperForConditionalGeneration on libtorch.
//
// Encoder: two 1-D convolutions with GELU (the second halves the frames), the
// stored sinusoidal positions, pre-norm transformer layers and a final layer
// norm. Decoder: token embeddings plus learned positions, pre-norm layers with
// self-attention (cached) and cross-attention over the encoder output (keys and
// values projected once), a final layer norm, and the output projection tied to
// the token embeddings. Loaded from a checkpoint directory as published
// (transformers' safetensors, or CTranslate2's model.bin: whisper_ct2.h);
// immutable after loading, so one model serves any number of decoder states.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/generation.h"
#include "neural/core/graph_cache.h"  // GraphCache: the encoder's CUDA graphs
#include "neural/core/model_options.h"
#include "neural/core/thread_annotations.h"
#include "neural/core/transformer_layers.h"
#include "neural/whisper/whisper_config.h"
#include "neural/whisper/whisper_step_batcher.h"

namespace lingcast::neural {

class WhisperDecoderState;
class WhisperStaticDecoder;

enum class EncoderPath {
  // On CUDA (a libtorch with CUDA): the whole pass recorded as one CUDA graph
  // per batch size and replayed (its input shape is fixed: (B, mels, 3000)); the
  // first call at a batch size runs eagerly, the second records; a capture that
  // fails leaves that batch size eager (a line on stderr). Encoder calls on one
  // model are then serialized. Elsewhere the same as kEager.
  kAuto,
  kEager,  // kernel by kernel, as before graphs
};

class WhisperModel : public std::enable_shared_from_this<WhisperModel> {
 public:
  using WeightSource = std::function<torch::Tensor(const std::string&, const std::vector<std::int64_t>&)>;

  // Throws NeuralError naming the file and tensor for anything missing or wrong.
  static std::shared_ptr<const WhisperModel> Load(const std::string& dir, const ModelOptions& options = {});
  // Random weights of `config`'s sizes (normal, std 0.02; layer norms at 1 and 0):
  // for benchmarks at real sizes without a download.
  static std::shared_ptr<const WhisperModel> Random(const WhisperConfig& config, const ModelOptions& options = {},
                                                    std::uint64_t seed = 0);

  const WhisperConfig& config() const { return config_; }
  const ModelOptions& options() const { return options_; }
  // Bytes of every weight the model holds (the tied table once).
  std::int64_t WeightBytes() const;
  // Mel frames the encoder takes: 2 * max_source_positions (3000 = 30 s).
  std::int64_t input_frames() const { return 2 * config_.max_source_positions; }

  // features (B, num_mel_bins, F) -> the encoder's last hidden state (B, F / 2,
  // d_model), a tensor of its own (never a graph's buffer). F is input_frames (the
  // 30 s window, as the model was trained) or any even count up to it: the first
  // F / 2 positions only, so a short utterance costs its length rather than a
  // window's (WhisperOptions::encode_heard_only says what that costs in
  // accuracy). kInvalidArgument for another shape. CUDA graphs serve the whole
  // window only; shorter inputs run eagerly.
  torch::Tensor Encode(const torch::Tensor& features, EncoderPath path = EncoderPath::kAuto) const;
  // What the encoder's CUDA graphs did so far (all zero without them).
  GraphCacheStats encoder_graph_stats() const;
  // What the decoder steps of concurrent requests did (whisper_step_batcher.h).
  StepBatchingStats step_batching_stats() const { return step_batcher_->stats(); }

  // A decoder over `encoder_out`, each row repeated `repeat` times in a row (the
  // beams), with caches for up to `capacity` positions (at most max_target_positions).
  // The cross-attention keys and values of a single encoder output are kept once
  // for all its rows, however many Select() makes.
  std::unique_ptr<WhisperDecoderState> StartDecoder(const torch::Tensor& encoder_out, std::int64_t repeat,
                                                    std::int64_t capacity) const;

  // The static-shape decoder of greedy search on the device (StaticGreedySearch):
  // one row per encoder output, caches for `capacity` positions.
  std::unique_ptr<WhisperStaticDecoder> StartStaticDecoder(const torch::Tensor& encoder_out, std::int64_t capacity) const;

  // Logits (B, T, V) for whole decoder inputs at once (teacher forcing).
  torch::Tensor Logits(const torch::Tensor& encoder_out, const torch::Tensor& decoder_input_ids) const;

  // The cross-attention probabilities (float32) of `heads` ((decoder layer,
  // head) pairs) over the encoder frames for one sequence `ids` fed at once
  // (teacher forcing, causal as during generation): (heads.size(), ids.size(),
  // S), for the word timestamps (whisper_word_timestamps.h). A pass of its own on
  // the eager path, so decoding without word timestamps pays nothing for it;
  // layers after the last one asked for are not run. encoder_out: (1, S, D).
  // `cross`: the decoder layers' cross-attention keys and values of this encoder
  // output when a decode already projected them (Generate's `cross`); else
  // projected here (on a CPU that is most of this pass's cost).
  torch::Tensor CrossAttentionWeights(const torch::Tensor& encoder_out, const std::vector<std::int64_t>& ids,
                                      const std::vector<std::pair<std::int64_t, std::int64_t>>& heads,
                                      const std::vector<CrossKv>* cross = nullptr) const;

  // Greedy or beam search (options.num_beams) over `encoder_out` (B rows), with
  // options.prompt as the decoder prompt; greedy takes the static path where
  // UseStaticPath says so (CUDA by default).
  std::vector<std::vector<std::int64_t>> Generate(const torch::Tensor& encoder_out, const GenerationOptions& options,
                                                  StaticSearchReport* report = nullptr) const;
  // The same, and in `logits` the logits (B * beams, V) float32 after the prompt
  // token at `position` (the no-speech probability reads those after
  // <|startoftranscript|>); undefined when the prompt has no such position.
  // `cross`, when given: each decoder layer's cross-attention keys and values of
  // the first encoder row, as the decode projected them (for CrossAttentionWeights).
  std::vector<std::vector<std::int64_t>> Generate(const torch::Tensor& encoder_out, const GenerationOptions& options,
                                                  std::int64_t position, torch::Tensor& logits,
                                                  StaticSearchReport* report = nullptr,
                                                  std::vector<CrossKv>* cross = nullptr) const;

 private:
  friend class WhisperDecoderState;
  friend class WhisperStaticDecoder;
  friend class WhisperStepBatcher;
  WhisperModel() = default;
  static std::shared_ptr<WhisperModel> Build(const WhisperConfig& config, const ModelOptions& options,
                                             const WeightSource& weight, bool has_proj_out);
  // ids (N, t), already checked against the vocabulary (CheckStep, or the
  // Prefill functions), at positions past.. -> logits (N, t, V); with `rows`, those of
  // the positions rows (indices into the t) only: (N, rows.size(), V).
  torch::Tensor DecodeTokens(const torch::Tensor& ids, std::vector<KvCache>& caches, const std::vector<CrossKv>& cross,
                             const std::vector<std::int64_t>* rows = nullptr) const;
  // The encoder's layers on features already on the device in the compute dtype.
  torch::Tensor EncodeOnDevice(const torch::Tensor& features) const;
  // kInvalidArgument for a step `state` cannot take: tokens not (rows) ids of
  // the vocabulary, or no position left.
  void CheckStep(const WhisperDecoderState& state, const torch::Tensor& tokens) const;
  // One step of one decoder: tokens (N) -> logits (N, V) float32.
  torch::Tensor StepAlone(WhisperDecoderState& state, const torch::Tensor& tokens) const;
  // One step of several decoders in one pass (PreNormDecoderLayer's
  // many-decoder form): each state's logits, as StepAlone gives them.
  std::vector<torch::Tensor> StepAcross(const std::vector<WhisperDecoderState*>& states,
                                        const std::vector<torch::Tensor>& tokens) const;

  WhisperConfig config_;
  ModelOptions options_;
  LinearWeights conv1_, conv2_;  // weights (out, in, 3)
  torch::Tensor encoder_positions_, decoder_positions_;
  // The output projection is tied to the token embeddings: a quantized table is
  // stored once, in int8. The convolutions stay in the compute dtype.
  LinearWeights token_embed_, proj_out_;
  LayerNormWeights encoder_norm_, decoder_norm_;
  std::vector<EncoderLayerWeights> encoder_layers_;
  std::vector<DecoderLayerWeights> decoder_layers_;
  // One graph per batch size (EncoderPath::kAuto on CUDA); created on first use.
  mutable std::mutex encoder_graphs_mutex_;
  mutable std::unique_ptr<GraphCache> encoder_graphs_ ABSL_GUARDED_BY(encoder_graphs_mutex_);
  // Joins concurrent decoders' steps (ModelOptions::step_batching); made by Build.
  std::unique_ptr<WhisperStepBatcher> step_batcher_;
};

class WhisperDecoderState : public StepDecoder {
 public:
  ~WhisperDecoderState() override { model_->step_batcher_->Leave(); }
  WhisperDecoderState(const WhisperDecoderState&) = delete;
  WhisperDecoderState& operator=(const WhisperDecoderState&) = delete;
  // Through the model's step batcher: joined with other live decoders' steps.
  torch::Tensor Step(const torch::Tensor& tokens) override;
  void Select(const torch::Tensor& rows) override;
  torch::Tensor Prefill(const torch::Tensor& tokens) override;
  // Like Prefill, but the logits at every prompt position (N, T, V) float32.
  torch::Tensor PrefillAll(const torch::Tensor& tokens);
  // Like Prefill, but the logits at the prompt positions `rows` only (N,
  // rows.size(), V) float32: the output projection over 51865 tokens is most of
  // a long prompt's cost, and generation reads one or two of its rows.
  torch::Tensor PrefillRows(const torch::Tensor& tokens, const std::vector<std::int64_t>& rows);
  std::int64_t length() const { return caches_.front().length(); }

 private:
  friend class WhisperModel;
  explicit WhisperDecoderState(std::shared_ptr<const WhisperModel> model) : model_(std::move(model)) {
    model_->step_batcher_->Join();
  }

  std::shared_ptr<const WhisperModel> model_;
  std::vector<KvCache> caches_;
  std::vector<CrossKv> cross_;
};

class WhisperStaticDecoder : public StaticStepDecoder {
 public:
  torch::Tensor Forward(const torch::Tensor& tokens, const torch::Tensor& positions) override;
  torch::Device device() const override { return model_->options_.device; }
  std::int64_t capacity() const override { return caches_.front().capacity(); }

 private:
  friend class WhisperModel;
  explicit WhisperStaticDecoder(std::shared_ptr<const WhisperModel> model) : model_(std::move(model)) {}

  std::shared_ptr<const WhisperModel> model_;
  std::vector<StaticKvCache> caches_;
  std::vector<CrossKv> cross_;
};

}  // namespace lingcast::neural
