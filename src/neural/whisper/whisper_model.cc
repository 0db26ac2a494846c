#include "neural/whisper/whisper_model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"
#include "neural/whisper/whisper_ct2.h"

namespace lingcast::neural {
namespace {

// Encoder graphs kept per model (one per batch size; they share one memory pool,
// about the largest batch's activations); the least recently used dropped past that.
constexpr std::size_t kEncoderGraphsPerModel = 4;

LinearWeights LoadLinear(const WhisperModel::WeightSource& weight, const std::string& prefix, std::int64_t out,
                         std::int64_t in, bool bias = true) {
  return LinearWeights{weight(prefix + ".weight", {out, in}), bias ? weight(prefix + ".bias", {out}) : torch::Tensor()};
}

LayerNormWeights LoadNorm(const WhisperModel::WeightSource& weight, const std::string& prefix, std::int64_t dim) {
  return LayerNormWeights{weight(prefix + ".weight", {dim}), weight(prefix + ".bias", {dim})};
}

// Whisper's key projections have no bias.
AttentionWeights LoadAttention(const WhisperModel::WeightSource& weight, const std::string& prefix, std::int64_t dim,
                               std::int64_t heads) {
  return AttentionWeights{LoadLinear(weight, prefix + ".q_proj", dim, dim), LoadLinear(weight, prefix + ".k_proj", dim, dim, false),
                          LoadLinear(weight, prefix + ".v_proj", dim, dim), LoadLinear(weight, prefix + ".out_proj", dim, dim),
                          heads};
}

void CheckTokenIds(const torch::Tensor& ids, std::int64_t vocab) {
  if (ids.numel() == 0) return;
  const std::int64_t low = ids.min().item<std::int64_t>();
  const std::int64_t high = ids.max().item<std::int64_t>();
  if (low < 0 || high >= vocab) {
    Fail(ErrorCode::kInvalidArgument,
         "decoder token id " + std::to_string(low < 0 ? low : high) + " is outside the vocabulary of " + std::to_string(vocab));
  }
}

// Keeps the logits after the prompt token at `position` (the no-speech
// probability reads those after <|startoftranscript|>).
class PromptLogitsCapture : public StepDecoder {
 public:
  PromptLogitsCapture(WhisperDecoderState& inner, std::int64_t position) : inner_(inner), position_(position) {}
  torch::Tensor Step(const torch::Tensor& tokens) override {
    torch::Tensor logits = inner_.Step(tokens);
    if (fed_++ == position_) kept_ = logits;
    return logits;
  }
  void Select(const torch::Tensor& rows) override { inner_.Select(rows); }
  torch::Tensor Prefill(const torch::Tensor& tokens) override {
    const std::int64_t t = tokens.size(1);
    const bool keeps = position_ >= fed_ && position_ < fed_ + t && position_ - fed_ != t - 1;
    std::vector<std::int64_t> rows;
    if (keeps) rows.push_back(position_ - fed_);
    rows.push_back(t - 1);
    const torch::Tensor picked = inner_.PrefillRows(tokens, rows);
    if (position_ >= fed_ && position_ < fed_ + t) kept_ = picked.select(1, 0);
    fed_ += t;
    return picked.select(1, picked.size(1) - 1);
  }
  const torch::Tensor& kept() const { return kept_; }

 private:
  WhisperDecoderState& inner_;
  const std::int64_t position_;
  std::int64_t fed_ = 0;
  torch::Tensor kept_;
};

class StaticPromptLogitsCapture : public StaticStepDecoder {
 public:
  StaticPromptLogitsCapture(StaticStepDecoder& inner, std::int64_t position) : inner_(inner), position_(position) {}
  torch::Tensor Forward(const torch::Tensor& tokens, const torch::Tensor& positions) override {
    torch::Tensor logits = inner_.Forward(tokens, positions);
    // The first call feeds the whole prompt from position 0, before any graph capture.
    if (first_call_ && position_ >= 0 && position_ < tokens.size(1)) kept_ = logits.select(1, position_).clone();
    first_call_ = false;
    return logits;
  }
  torch::Device device() const override { return inner_.device(); }
  std::int64_t capacity() const override { return inner_.capacity(); }
  const torch::Tensor& kept() const { return kept_; }

 private:
  StaticStepDecoder& inner_;
  const std::int64_t position_;
  bool first_call_ = true;
  torch::Tensor kept_;
};

}  // namespace

std::shared_ptr<const WhisperModel> WhisperModel::Load(const std::string& dir, const ModelOptions& options) {
  torch::NoGradGuard no_grad;
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  if (IsCt2WhisperDir(dir)) {
    // The mapping is read once and let go when the model is built (weights are copied out of it).
    const std::shared_ptr<const Ct2Checkpoint> ct2 = Ct2Checkpoint::Open(dir);
    return Build(Ct2WhisperConfig(dir, *ct2), options, Ct2WhisperWeights(*ct2, tensor_options), Ct2HasOwnProjection(*ct2));
  }
  const WhisperConfig config = LoadWhisperConfig(dir);
  const Checkpoint checkpoint = Checkpoint::Open(dir);
  const WeightSource weight = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    return checkpoint.LoadWeight(name, shape, tensor_options);
  };
  return Build(config, options, weight, checkpoint.Contains("proj_out.weight"));
}

std::shared_ptr<const WhisperModel> WhisperModel::Random(const WhisperConfig& config, const ModelOptions& options,
                                                         std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  auto generator = at::detail::createCPUGenerator(seed);
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  const WeightSource weight = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    const bool norm = name.find("layer_norm") != std::string::npos;
    const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    if (norm) return (bias ? torch::zeros(shape) : torch::ones(shape)).to(tensor_options);
    if (bias) return torch::zeros(shape).to(tensor_options);
    return at::normal(0.0, 0.02, shape, generator).to(tensor_options);
  };
  return Build(config, options, weight, false);
}

std::shared_ptr<WhisperModel> WhisperModel::Build(const WhisperConfig& c, const ModelOptions& options,
                                                  const WeightSource& weight, bool has_proj_out) {
  CheckModelOptions(options, "Whisper model");
  std::shared_ptr<WhisperModel> model(new WhisperModel());
  model->config_ = c;
  model->options_ = options;
  model->step_batcher_ = std::make_unique<WhisperStepBatcher>(*model, options.step_batching);
  const std::int64_t d = c.d_model;
  model->conv1_ = LinearWeights{weight("model.encoder.conv1.weight", {d, c.num_mel_bins, 3}), weight("model.encoder.conv1.bias", {d})};
  model->conv2_ = LinearWeights{weight("model.encoder.conv2.weight", {d, d, 3}), weight("model.encoder.conv2.bias", {d})};
  model->encoder_positions_ = weight("model.encoder.embed_positions.weight", {c.max_source_positions, d});
  // Each layer is fused and (with int8) quantized as soon as it is loaded, so
  // the float copy of at most one layer (or the token table) is alive at a
  // time: the peak RSS of loading is about the quantized model's, not the
  // float model's plus the quantized one.
  const bool int8 = options.quantization == Quantization::kInt8;
  const Int8Kernel kernel = options.int8_kernel;
  for (std::int64_t i = 0; i < c.encoder_layers; ++i) {
    const std::string p = "model.encoder.layers." + std::to_string(i);
    EncoderLayerWeights layer{
        LoadAttention(weight, p + ".self_attn", d, c.encoder_attention_heads), LoadNorm(weight, p + ".self_attn_layer_norm", d),
        LoadLinear(weight, p + ".fc1", c.encoder_ffn_dim, d), LoadLinear(weight, p + ".fc2", d, c.encoder_ffn_dim),
        LoadNorm(weight, p + ".final_layer_norm", d)};
    FuseQkv(layer.self_attn);
    if (int8) QuantizeInt8(layer, kernel);
    model->encoder_layers_.push_back(std::move(layer));
  }
  model->encoder_norm_ = LoadNorm(weight, "model.encoder.layer_norm", d);

  model->token_embed_.weight = weight("model.decoder.embed_tokens.weight", {c.vocab_size, d});
  // The tied table's products are one row a decode step (the prompt's last
  // position included): no packed copy of its 51865 rows.
  if (int8) model->token_embed_ = QuantizeInt8(model->token_embed_, kernel, /*pack=*/false);
  model->decoder_positions_ = weight("model.decoder.embed_positions.weight", {c.max_target_positions, d});
  for (std::int64_t i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "model.decoder.layers." + std::to_string(i);
    DecoderLayerWeights layer{
        LoadAttention(weight, p + ".self_attn", d, c.decoder_attention_heads), LoadNorm(weight, p + ".self_attn_layer_norm", d),
        LoadAttention(weight, p + ".encoder_attn", d, c.decoder_attention_heads),
        LoadNorm(weight, p + ".encoder_attn_layer_norm", d), LoadLinear(weight, p + ".fc1", c.decoder_ffn_dim, d),
        LoadLinear(weight, p + ".fc2", d, c.decoder_ffn_dim), LoadNorm(weight, p + ".final_layer_norm", d)};
    FuseQkv(layer.self_attn);
    if (int8) QuantizeInt8(layer, kernel);
    model->decoder_layers_.push_back(std::move(layer));
  }
  model->decoder_norm_ = LoadNorm(weight, "model.decoder.layer_norm", d);
  if (has_proj_out) {
    const LinearWeights proj_out{weight("proj_out.weight", {c.vocab_size, d}), {}};
    model->proj_out_ = int8 ? QuantizeInt8(proj_out, kernel) : proj_out;
  } else {
    model->proj_out_ = model->token_embed_;
  }
  return model;
}

std::int64_t WhisperModel::WeightBytes() const {
  std::vector<torch::Tensor> tensors = {conv1_.weight, conv1_.bias, conv2_.weight, conv2_.bias,
                                        encoder_positions_, decoder_positions_, token_embed_.weight,
                                        token_embed_.scales, token_embed_.cpu_int8_row_sums, proj_out_.weight,
                                        proj_out_.scales, proj_out_.cpu_int8_row_sums, proj_out_.cpu_int8_packed,
                                        encoder_norm_.weight, encoder_norm_.bias, decoder_norm_.weight,
                                        decoder_norm_.bias};
  for (const auto& layer : encoder_layers_) AppendTensors(layer, tensors);
  for (const auto& layer : decoder_layers_) AppendTensors(layer, tensors);
  return DistinctBytes(tensors);
}

torch::Tensor WhisperModel::Encode(const torch::Tensor& features, EncoderPath path) const {
  torch::NoGradGuard no_grad;
  if (features.dim() != 3 || features.size(1) != config_.num_mel_bins || features.size(2) < 2 ||
      features.size(2) > input_frames() || features.size(2) % 2 != 0) {
    Fail(ErrorCode::kInvalidArgument, "Whisper's encoder takes (batch, " + std::to_string(config_.num_mel_bins) +
                                          ", frames) mel features, an even number of frames up to " +
                                          std::to_string(input_frames()) + ", not " + ShapeString(features.sizes().vec()));
  }
  const torch::Tensor on_device = features.to(options_.device, options_.dtype);
  if (path == EncoderPath::kEager || features.size(2) != input_frames() || !GraphCache::Supported(options_.device)) {
    return EncodeOnDevice(on_device);
  }
  // Eager, the encoder is ~250 kernels whose launches take longer than the GPU
  // needs for them; replayed as one graph the host launches once.
  std::lock_guard<std::mutex> lock(encoder_graphs_mutex_);
  if (!encoder_graphs_) encoder_graphs_ = std::make_unique<GraphCache>(kEncoderGraphsPerModel, options_.graph_cache_bytes);
  const std::int64_t eager_before = encoder_graphs_->stats().eager;
  const std::vector<torch::Tensor> out =
      encoder_graphs_->Run("Whisper encoder, batch " + std::to_string(features.size(0)), {on_device},
                           [&](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{EncodeOnDevice(in[0])}; });
  // A replay's output is the graph's buffer, overwritten by the next call: the
  // caller gets its own copy (~2 MB at whisper-small size, a few microseconds).
  return encoder_graphs_->stats().eager > eager_before ? out[0] : out[0].clone();
}

GraphCacheStats WhisperModel::encoder_graph_stats() const {
  std::lock_guard<std::mutex> lock(encoder_graphs_mutex_);
  return encoder_graphs_ ? encoder_graphs_->stats() : GraphCacheStats{};
}

torch::Tensor WhisperModel::EncodeOnDevice(const torch::Tensor& features) const {
  torch::Tensor x = torch::gelu(torch::conv1d(features, conv1_.weight, conv1_.bias, 1, 1));
  x = torch::gelu(torch::conv1d(x, conv2_.weight, conv2_.bias, 2, 1));
  x = x.permute({0, 2, 1}) + encoder_positions_.narrow(0, 0, x.size(2));
  for (const auto& layer : encoder_layers_) x = PreNormEncoderLayer(layer, config_.activation, x);
  return LayerNorm(x, encoder_norm_);
}

std::unique_ptr<WhisperDecoderState> WhisperModel::StartDecoder(const torch::Tensor& encoder_out, std::int64_t repeat,
                                                                std::int64_t capacity) const {
  torch::NoGradGuard no_grad;
  if (capacity < 1 || capacity > config_.max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "a Whisper decoder holds 1 to " + std::to_string(config_.max_target_positions) +
                                          " positions, not " + std::to_string(capacity));
  }
  std::unique_ptr<WhisperDecoderState> state(new WhisperDecoderState(shared_from_this()));
  const std::int64_t heads = config_.decoder_attention_heads;
  const auto tensor_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  for (const auto& layer : decoder_layers_) {
    // The keys and values of each encoder output once: rows of one audio
    // (beams, scored openings) share them. One audio's stay one row, which
    // every decoder row attends to (CrossAttend); a batch's are repeated.
    CrossKv kv = ProjectCrossKv(layer.cross_attn, encoder_out);
    if (repeat > 1 && encoder_out.size(0) > 1) {
      kv.keys = kv.keys.repeat_interleave(repeat, 0);
      kv.values = kv.values.repeat_interleave(repeat, 0);
    }
    state->cross_.push_back(std::move(kv));
    state->caches_.emplace_back();
    state->caches_.back().Allocate(encoder_out.size(0) * std::max<std::int64_t>(repeat, 1), heads, capacity,
                                   config_.d_model / heads, tensor_options);
  }
  return state;
}

std::unique_ptr<WhisperStaticDecoder> WhisperModel::StartStaticDecoder(const torch::Tensor& encoder_out,
                                                                      std::int64_t capacity) const {
  torch::NoGradGuard no_grad;
  if (capacity < 1 || capacity > config_.max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "a Whisper decoder holds 1 to " + std::to_string(config_.max_target_positions) +
                                          " positions, not " + std::to_string(capacity));
  }
  std::unique_ptr<WhisperStaticDecoder> state(new WhisperStaticDecoder(shared_from_this()));
  StartStaticLayers(decoder_layers_, encoder_out, config_.decoder_attention_heads, config_.d_model, capacity, config_.max_target_positions,
                    torch::TensorOptions().dtype(options_.dtype).device(options_.device), state->cross_,
                    state->caches_);
  return state;
}

std::vector<std::vector<std::int64_t>> WhisperModel::Generate(const torch::Tensor& encoder_out,
                                                              const GenerationOptions& options,
                                                              StaticSearchReport* report) const {
  torch::Tensor unused;
  return Generate(encoder_out, options, -1, unused, report);
}

std::vector<std::vector<std::int64_t>> WhisperModel::Generate(const torch::Tensor& encoder_out,
                                                              const GenerationOptions& options, std::int64_t position,
                                                              torch::Tensor& logits, StaticSearchReport* report,
                                                              std::vector<CrossKv>* cross) const {
  // Every row of a state's cross keys and values of batch row 0 is the same (its
  // beams repeat it), so the first one stands for them.
  auto keep_cross = [cross](const std::vector<CrossKv>& state_cross) {
    if (cross == nullptr) return;
    cross->clear();
    for (const CrossKv& layer : state_cross) cross->push_back({layer.keys.narrow(0, 0, 1), layer.values.narrow(0, 0, 1)});
  };
  torch::NoGradGuard no_grad;
  const auto prompt_length = static_cast<std::int64_t>(std::max<std::size_t>(options.prompt.size(), 1));
  const std::int64_t capacity = prompt_length + options.max_new_tokens;
  const std::int64_t batch = encoder_out.size(0);
  if (!options.prompt.empty()) CheckTokenIds(torch::tensor(options.prompt, torch::kLong), config_.vocab_size);
  std::vector<std::vector<std::int64_t>> out;
  if (UseStaticPath(options, options_.device)) {
    auto state = StartStaticDecoder(encoder_out, capacity);
    StaticPromptLogitsCapture decoder(*state, position);
    out = StaticGreedySearch(decoder, batch, options, report);
    logits = decoder.kept();
    keep_cross(state->cross_);
    return out;
  }
  const std::int64_t beams = std::max<std::int64_t>(options.num_beams, 1);
  auto state = StartDecoder(encoder_out, beams, capacity);
  PromptLogitsCapture decoder(*state, position);
  out = beams == 1 ? GreedySearch(decoder, batch, options) : BeamSearch(decoder, batch, options);
  logits = decoder.kept();
  keep_cross(state->cross_);
  return out;
}

torch::Tensor WhisperModel::DecodeTokens(const torch::Tensor& ids, std::vector<KvCache>& caches,
                                         const std::vector<CrossKv>& cross, const std::vector<std::int64_t>* rows) const {
  const std::int64_t past = caches.front().length();
  const std::int64_t t = ids.size(1);
  if (past + t > config_.max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "an output of " + std::to_string(past + t) +
                                          " tokens is longer than the model's max_target_positions (" +
                                          std::to_string(config_.max_target_positions) + ")");
  }
  torch::Tensor x = EmbeddingRows(token_embed_, ids.to(options_.device)) + decoder_positions_.narrow(0, past, t);
  for (std::size_t i = 0; i < decoder_layers_.size(); ++i) {
    x = PreNormDecoderLayer(decoder_layers_[i], config_.activation, x, caches[i], cross[i]);
  }
  if (rows != nullptr) x = x.index_select(1, torch::tensor(*rows, torch::kLong).to(x.device()));
  return Linear(LayerNorm(x, decoder_norm_), proj_out_);
}

torch::Tensor WhisperModel::CrossAttentionWeights(const torch::Tensor& encoder_out, const std::vector<std::int64_t>& ids,
                                                 const std::vector<std::pair<std::int64_t, std::int64_t>>& heads,
                                                 const std::vector<CrossKv>* cross) const {
  torch::NoGradGuard no_grad;
  const auto t = static_cast<std::int64_t>(ids.size());
  if (encoder_out.dim() != 3 || encoder_out.size(0) != 1) {
    Fail(ErrorCode::kInvalidArgument, "CrossAttentionWeights takes one encoder output (1, frames, d_model), not " +
                                          ShapeString(encoder_out.sizes().vec()));
  }
  if (t == 0 || t > config_.max_target_positions) {
    Fail(ErrorCode::kInvalidArgument, "a sequence of " + std::to_string(t) + " tokens for cross-attention weights (1 .. " +
                                          std::to_string(config_.max_target_positions) + ")");
  }
  if (heads.empty()) Fail(ErrorCode::kInvalidArgument, "CrossAttentionWeights needs at least one (layer, head) pair");
  if (cross != nullptr && static_cast<std::int64_t>(cross->size()) != config_.decoder_layers) {
    Fail(ErrorCode::kInvalidArgument, "cross-attention keys and values for " + std::to_string(cross->size()) +
                                          " layers, the decoder has " + std::to_string(config_.decoder_layers));
  }
  std::int64_t last_layer = -1;
  for (const auto& [layer, head] : heads) {
    if (layer < 0 || layer >= config_.decoder_layers || head < 0 || head >= config_.decoder_attention_heads) {
      Fail(ErrorCode::kInvalidArgument, "alignment head [" + std::to_string(layer) + ", " + std::to_string(head) +
                                            "] is outside the decoder's " + std::to_string(config_.decoder_layers) + " layers of " +
                                            std::to_string(config_.decoder_attention_heads) + " heads");
    }
    last_layer = std::max(last_layer, layer);
  }
  const torch::Tensor id_tensor = torch::tensor(ids, torch::kLong).view({1, t});
  CheckTokenIds(id_tensor, config_.vocab_size);
  torch::Tensor x = EmbeddingRows(token_embed_, id_tensor.to(options_.device)) + decoder_positions_.narrow(0, 0, t);
  const torch::Tensor causal = CausalMask(0, t, x.options());
  const double scale = 1.0 / std::sqrt(static_cast<double>(config_.d_model / config_.decoder_attention_heads));
  std::vector<torch::Tensor> picked(heads.size());
  // The pre-norm layer of transformer_layers written out, to keep the
  // cross-attention probabilities it does not return.
  for (std::int64_t l = 0; l <= last_layer; ++l) {
    const DecoderLayerWeights& w = decoder_layers_[static_cast<std::size_t>(l)];
    const AttentionWeights& s = w.self_attn;
    const torch::Tensor normed = LayerNorm(x, w.self_attn_norm);
    const torch::Tensor attended = Attention(SplitHeads(Linear(normed, s.q), s.heads), SplitHeads(Linear(normed, s.k), s.heads),
                                             SplitHeads(Linear(normed, s.v), s.heads), causal, scale);
    torch::Tensor h = x + Linear(MergeHeads(attended), s.out);
    const AttentionWeights& c = w.cross_attn;
    const CrossKv kv = cross != nullptr ? (*cross)[static_cast<std::size_t>(l)] : ProjectCrossKv(c, encoder_out);
    const torch::Tensor cq = SplitHeads(Linear(LayerNorm(h, w.cross_attn_norm), c.q), c.heads);
    const torch::Tensor probs = torch::softmax(torch::matmul(cq.to(torch::kFloat) * scale, kv.keys.to(torch::kFloat).transpose(-1, -2)), -1);
    for (std::size_t k = 0; k < heads.size(); ++k) {
      if (heads[k].first == l) picked[k] = probs[0][heads[k].second];
    }
    if (l == last_layer) break;
    h = h + Linear(MergeHeads(torch::matmul(probs.to(x.scalar_type()), kv.values)), c.out);
    x = h + Linear(Activate(Linear(LayerNorm(h, w.final_norm), w.fc1), config_.activation), w.fc2);
  }
  return torch::stack(picked);
}

torch::Tensor WhisperModel::Logits(const torch::Tensor& encoder_out, const torch::Tensor& decoder_input_ids) const {
  torch::NoGradGuard no_grad;
  auto state = StartDecoder(encoder_out, 1, decoder_input_ids.size(1));
  return state->PrefillAll(decoder_input_ids);
}

torch::Tensor WhisperDecoderState::Step(const torch::Tensor& tokens) { return model_->step_batcher_->Step(*this, tokens); }

void WhisperModel::CheckStep(const WhisperDecoderState& state, const torch::Tensor& tokens) const {
  const KvCache& cache = state.caches_.front();
  if (tokens.dim() != 1 || tokens.size(0) != cache.rows()) {
    Fail(ErrorCode::kInvalidArgument, "a decoder step of " + std::to_string(cache.rows()) + " rows takes " +
                                          std::to_string(cache.rows()) + " token ids, not " + ShapeString(tokens.sizes().vec()));
  }
  CheckTokenIds(tokens, config_.vocab_size);
  if (cache.length() + 1 > cache.capacity()) {
    Fail(ErrorCode::kInvalidArgument, "decoder cache holds " + std::to_string(cache.capacity()) +
                                          " positions; cannot add 1 after " + std::to_string(cache.length()));
  }
}

torch::Tensor WhisperModel::StepAlone(WhisperDecoderState& state, const torch::Tensor& tokens) const {
  torch::NoGradGuard no_grad;
  return DecodeTokens(tokens.view({tokens.size(0), 1}), state.caches_, state.cross_).select(1, 0).to(torch::kFloat);
}

std::vector<torch::Tensor> WhisperModel::StepAcross(const std::vector<WhisperDecoderState*>& states,
                                                    const std::vector<torch::Tensor>& tokens) const {
  torch::NoGradGuard no_grad;
  std::vector<std::int64_t> rows;
  std::vector<torch::Tensor> embedded;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const std::int64_t past = states[i]->caches_.front().length();
    rows.push_back(tokens[i].size(0));
    embedded.push_back(EmbeddingRows(token_embed_, tokens[i].view({tokens[i].size(0), 1}).to(options_.device)) +
                       decoder_positions_.narrow(0, past, 1));
  }
  torch::Tensor x = torch::cat(embedded, 0);
  std::vector<KvCache*> caches(states.size());
  std::vector<const CrossKv*> cross(states.size());
  for (std::size_t layer = 0; layer < decoder_layers_.size(); ++layer) {
    for (std::size_t i = 0; i < states.size(); ++i) {
      caches[i] = &states[i]->caches_[layer];
      cross[i] = &states[i]->cross_[layer];
    }
    x = PreNormDecoderLayer(decoder_layers_[layer], config_.activation, x, rows, caches, cross);
  }
  const torch::Tensor logits = Linear(LayerNorm(x, decoder_norm_), proj_out_).select(1, 0).to(torch::kFloat);
  return logits.split_with_sizes(rows, 0);
}

torch::Tensor WhisperDecoderState::PrefillAll(const torch::Tensor& tokens) {
  torch::NoGradGuard no_grad;
  CheckTokenIds(tokens, model_->config_.vocab_size);
  return model_->DecodeTokens(tokens, caches_, cross_).to(torch::kFloat);
}

torch::Tensor WhisperDecoderState::PrefillRows(const torch::Tensor& tokens, const std::vector<std::int64_t>& rows) {
  torch::NoGradGuard no_grad;
  CheckTokenIds(tokens, model_->config_.vocab_size);
  return model_->DecodeTokens(tokens, caches_, cross_, &rows).to(torch::kFloat);
}

torch::Tensor WhisperDecoderState::Prefill(const torch::Tensor& tokens) {
  return PrefillRows(tokens, {tokens.size(1) - 1}).select(1, 0);
}

torch::Tensor WhisperStaticDecoder::Forward(const torch::Tensor& tokens, const torch::Tensor& positions) {
  torch::NoGradGuard no_grad;
  const WhisperModel& m = *model_;
  // No token-id check here: it would wait for the device; greedy search feeds
  // only argmax results and the (checked) prompt.
  torch::Tensor x = EmbeddingRows(m.token_embed_, tokens) + m.decoder_positions_.index_select(0, positions);
  const torch::Tensor self_mask = PositionMask(positions, capacity(), m.options_.dtype);
  for (std::size_t i = 0; i < m.decoder_layers_.size(); ++i) {
    x = PreNormDecoderLayer(m.decoder_layers_[i], m.config_.activation, x, caches_[i], positions, self_mask, cross_[i]);
  }
  return Linear(LayerNorm(x, m.decoder_norm_), m.proj_out_).to(torch::kFloat);
}

void WhisperDecoderState::Select(const torch::Tensor& rows) {
  const torch::Tensor on_device = rows.to(model_->options_.device);
  for (auto& cache : caches_) cache.Select(on_device);
  // One audio's cross keys and values serve every row as they are.
  for (auto& cross : cross_) {
    if (cross.keys.size(0) > 1) cross.Select(on_device);
  }
}

}  // namespace lingcast::neural
