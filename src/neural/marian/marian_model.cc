#include "neural/marian/marian_model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>

#include "neural/core/cuda_graph.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"

namespace lingcast::neural {
namespace {

LinearWeights LoadLinear(const MarianModel::WeightSource& weight, const std::string& prefix, std::int64_t out,
                         std::int64_t in) {
  return LinearWeights{weight(prefix + ".weight", {out, in}), weight(prefix + ".bias", {out})};
}

LayerNormWeights LoadNorm(const MarianModel::WeightSource& weight, const std::string& prefix, std::int64_t dim) {
  return LayerNormWeights{weight(prefix + ".weight", {dim}), weight(prefix + ".bias", {dim})};
}

AttentionWeights LoadAttention(const MarianModel::WeightSource& weight, const std::string& prefix, std::int64_t dim,
                               std::int64_t heads) {
  return AttentionWeights{LoadLinear(weight, prefix + ".q_proj", dim, dim), LoadLinear(weight, prefix + ".k_proj", dim, dim),
                          LoadLinear(weight, prefix + ".v_proj", dim, dim), LoadLinear(weight, prefix + ".out_proj", dim, dim),
                          heads};
}

void CheckTokenIds(const torch::Tensor& ids, std::int64_t vocab, const char* what) {
  if (ids.numel() == 0) return;
  const std::int64_t low = ids.min().item<std::int64_t>();
  const std::int64_t high = ids.max().item<std::int64_t>();
  if (low < 0 || high >= vocab) {
    Fail(ErrorCode::kInvalidArgument, std::string(what) + " token id " + std::to_string(low < 0 ? low : high) +
                                          " is outside the vocabulary of " + std::to_string(vocab));
  }
}

}  // namespace

std::shared_ptr<const MarianModel> MarianModel::Load(const std::string& dir, const ModelOptions& options) {
  torch::NoGradGuard no_grad;
  const MarianConfig config = LoadMarianConfig(dir);
  const Checkpoint checkpoint = Checkpoint::Open(dir);
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  const WeightSource weight = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    return checkpoint.LoadWeight(name, shape, tensor_options);
  };
  // Which embedding each side reads: its own tensor when the checkpoint has one
  // (transformers 5 saves encoder, decoder and shared embeddings separately when
  // they are not tied), else the shared one (older exports keep one tied name).
  auto first_present = [&](const std::vector<std::string>& names) {
    for (const auto& name : names) {
      if (checkpoint.Contains(name)) return name;
    }
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "'" : ", '") + name + "'";
    Fail(ErrorCode::kNotFound, dir + ": the checkpoint has none of the embedding tensors " + list);
  };
  const std::string encoder_name = "model.encoder.embed_tokens.weight";
  const std::string decoder_name = "model.decoder.embed_tokens.weight";
  const std::string shared_name = "model.shared.weight";
  const std::string encoder_embedding = config.share_encoder_decoder_embeddings
                                            ? first_present({encoder_name, shared_name, decoder_name})
                                            : first_present({encoder_name});
  const std::string decoder_embedding = config.share_encoder_decoder_embeddings
                                            ? first_present({decoder_name, shared_name, encoder_name})
                                            : first_present({decoder_name});
  return Build(config, options, weight, encoder_embedding, decoder_embedding, checkpoint.Contains("lm_head.weight"));
}

std::shared_ptr<const MarianModel> MarianModel::Random(const MarianConfig& config, const ModelOptions& options,
                                                       std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  auto generator = at::detail::createCPUGenerator(seed);
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  const WeightSource weight = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    const bool norm = name.find("layer_norm") != std::string::npos;
    const bool bias = name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0;
    if (norm) return (bias ? torch::zeros(shape) : torch::ones(shape)).to(tensor_options);
    if (bias || name == "final_logits_bias") return torch::zeros(shape).to(tensor_options);
    return (at::normal(0.0, 0.02, shape, generator)).to(tensor_options);
  };
  MarianConfig c = config;
  c.share_encoder_decoder_embeddings = true;
  c.decoder_vocab_size = c.vocab_size;
  return Build(c, options, weight, "model.shared.weight", "model.shared.weight", false);
}

std::shared_ptr<MarianModel> MarianModel::Build(const MarianConfig& c, const ModelOptions& options,
                                                const WeightSource& weight, const std::string& encoder_embedding,
                                                const std::string& decoder_embedding, bool has_lm_head) {
  CheckModelOptions(options, "Marian model");
  std::shared_ptr<MarianModel> model(new MarianModel());
  model->config_ = c;
  model->options_ = options;
  model->kept_decoders_ = std::make_shared<MarianDecoderCache>(kKeptDecoders, options.graph_cache_bytes);
  const std::int64_t d = c.d_model;
  model->encoder_embed_.weight = weight(encoder_embedding, {c.vocab_size, d});
  model->decoder_embed_ = decoder_embedding == encoder_embedding
                              ? model->encoder_embed_
                              : LinearWeights{weight(decoder_embedding, {c.decoder_vocab_size, d}), {}};
  model->lm_head_ = has_lm_head ? LinearWeights{weight("lm_head.weight", {c.decoder_vocab_size, d}), {}}
                                : model->decoder_embed_;
  model->final_logits_bias_ = weight("final_logits_bias", {1, c.decoder_vocab_size});
  model->positions_ =
      SinusoidalPositions(c.max_position_embeddings, d).to(torch::TensorOptions().dtype(options.dtype).device(options.device));
  model->embed_scale_ = c.scale_embedding ? std::sqrt(static_cast<double>(d)) : 1.0;

  for (std::int64_t i = 0; i < c.encoder_layers; ++i) {
    const std::string p = "model.encoder.layers." + std::to_string(i);
    model->encoder_layers_.push_back(EncoderLayerWeights{
        LoadAttention(weight, p + ".self_attn", d, c.encoder_attention_heads), LoadNorm(weight, p + ".self_attn_layer_norm", d),
        LoadLinear(weight, p + ".fc1", c.encoder_ffn_dim, d), LoadLinear(weight, p + ".fc2", d, c.encoder_ffn_dim),
        LoadNorm(weight, p + ".final_layer_norm", d)});
  }
  for (std::int64_t i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "model.decoder.layers." + std::to_string(i);
    model->decoder_layers_.push_back(DecoderLayerWeights{
        LoadAttention(weight, p + ".self_attn", d, c.decoder_attention_heads), LoadNorm(weight, p + ".self_attn_layer_norm", d),
        LoadAttention(weight, p + ".encoder_attn", d, c.decoder_attention_heads),
        LoadNorm(weight, p + ".encoder_attn_layer_norm", d), LoadLinear(weight, p + ".fc1", c.decoder_ffn_dim, d),
        LoadLinear(weight, p + ".fc2", d, c.decoder_ffn_dim), LoadNorm(weight, p + ".final_layer_norm", d)});
  }
  for (auto& layer : model->encoder_layers_) FuseQkv(layer.self_attn);
  for (auto& layer : model->decoder_layers_) FuseQkv(layer.self_attn);
  if (options.quantization == Quantization::kInt8) {
    const Int8Kernel kernel = options.int8_kernel;
    for (auto& layer : model->encoder_layers_) QuantizeInt8(layer, kernel);
    for (auto& layer : model->decoder_layers_) QuantizeInt8(layer, kernel);
    // Tables shared before stay shared: each distinct one is quantized once.
    const bool decoder_is_encoder = model->decoder_embed_.weight.is_same(model->encoder_embed_.weight);
    const bool head_is_decoder = model->lm_head_.weight.is_same(model->decoder_embed_.weight);
    model->encoder_embed_ = QuantizeInt8(model->encoder_embed_, kernel);
    model->decoder_embed_ = decoder_is_encoder ? model->encoder_embed_ : QuantizeInt8(model->decoder_embed_, kernel);
    model->lm_head_ = head_is_decoder ? model->decoder_embed_ : QuantizeInt8(model->lm_head_, kernel);
  }
  return model;
}

std::int64_t MarianModel::WeightBytes() const {
  std::vector<torch::Tensor> tensors;
  for (const LinearWeights* table : {&encoder_embed_, &decoder_embed_, &lm_head_}) {
    tensors.insert(tensors.end(), {table->weight, table->scales});
  }
  tensors.insert(tensors.end(), {final_logits_bias_, positions_});
  for (const auto& layer : encoder_layers_) AppendTensors(layer, tensors);
  for (const auto& layer : decoder_layers_) AppendTensors(layer, tensors);
  return DistinctBytes(tensors);
}

torch::Tensor MarianModel::Embed(const torch::Tensor& ids, const LinearWeights& table, std::int64_t offset,
                                 const char* what) const {
  const std::int64_t length = ids.size(1);
  if (offset + length > config_.max_position_embeddings) {
    Fail(ErrorCode::kInvalidArgument, std::string(what) + " of " + std::to_string(offset + length) +
                                          " tokens is longer than the model's max_position_embeddings (" +
                                          std::to_string(config_.max_position_embeddings) + ")");
  }
  torch::Tensor x = EmbeddingRows(table, ids.to(options_.device));
  if (embed_scale_ != 1.0) x = x * embed_scale_;
  return x + positions_.narrow(0, offset, length);
}

torch::Tensor MarianModel::Encode(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) const {
  torch::NoGradGuard no_grad;
  if (input_ids.dim() != 2 || attention_mask.sizes() != input_ids.sizes()) {
    Fail(ErrorCode::kInvalidArgument, "encoder input must be (batch, length) token ids with a mask of the same shape");
  }
  CheckTokenIds(input_ids, config_.vocab_size, "input");
  torch::Tensor x = Embed(input_ids, encoder_embed_, 0, "an input");
  const torch::Tensor mask = PaddingMask(attention_mask.to(options_.device).to(torch::kBool), options_.dtype);
  for (const auto& layer : encoder_layers_) x = EncoderLayer(layer, config_.activation, x, mask);
  return x;
}

std::unique_ptr<MarianDecoderState> MarianModel::StartDecoder(const torch::Tensor& encoder_out,
                                                              const torch::Tensor& attention_mask, std::int64_t repeat,
                                                              std::int64_t capacity) const {
  torch::NoGradGuard no_grad;
  std::unique_ptr<MarianDecoderState> state(new MarianDecoderState(shared_from_this()));
  torch::Tensor encoded = repeat > 1 ? encoder_out.repeat_interleave(repeat, 0) : encoder_out;
  torch::Tensor mask = attention_mask.to(options_.device).to(torch::kBool);
  if (repeat > 1) mask = mask.repeat_interleave(repeat, 0);
  state->cross_mask_ = PaddingMask(mask, options_.dtype);
  const std::int64_t heads = config_.decoder_attention_heads;
  const auto tensor_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  for (const auto& layer : decoder_layers_) {
    state->cross_.push_back(ProjectCrossKv(layer.cross_attn, encoded));
    state->caches_.emplace_back();
    state->caches_.back().Allocate(encoded.size(0), heads, capacity, config_.d_model / heads, tensor_options);
  }
  return state;
}

std::unique_ptr<MarianStaticDecoder> MarianModel::StartStaticDecoder(const torch::Tensor& encoder_out,
                                                                    const torch::Tensor& attention_mask,
                                                                    std::int64_t capacity) const {
  return MakeStaticDecoder(encoder_out, attention_mask, capacity, /*own_model=*/true);
}

std::unique_ptr<MarianStaticDecoder> MarianModel::MakeStaticDecoder(const torch::Tensor& encoder_out,
                                                                   const torch::Tensor& attention_mask,
                                                                   std::int64_t capacity, bool own_model) const {
  torch::NoGradGuard no_grad;
  if (capacity < 1 || capacity > config_.max_position_embeddings) {
    Fail(ErrorCode::kInvalidArgument, "a Marian decoder holds 1 to " + std::to_string(config_.max_position_embeddings) +
                                          " positions (max_position_embeddings), not " + std::to_string(capacity));
  }
  std::unique_ptr<MarianStaticDecoder> state(
      new MarianStaticDecoder(*this, own_model ? shared_from_this() : nullptr));
  state->cross_mask_ = PaddingMask(attention_mask.to(options_.device).to(torch::kBool), options_.dtype);
  StartStaticLayers(decoder_layers_, encoder_out, config_.decoder_attention_heads, config_.d_model, capacity, config_.max_position_embeddings,
                    torch::TensorOptions().dtype(options_.dtype).device(options_.device), state->cross_,
                    state->caches_);
  return state;
}

torch::Tensor MarianModel::DecodeStep(const torch::Tensor& decoder_ids, std::vector<KvCache>& caches,
                                      const std::vector<CrossKv>& cross, const torch::Tensor& cross_mask) const {
  CheckTokenIds(decoder_ids, config_.decoder_vocab_size, "decoder");
  torch::Tensor x = Embed(decoder_ids, decoder_embed_, caches.front().length(), "an output");
  for (std::size_t i = 0; i < decoder_layers_.size(); ++i) {
    x = DecoderLayer(decoder_layers_[i], config_.activation, x, caches[i], cross[i], cross_mask);
  }
  return Linear(x, lm_head_) + final_logits_bias_;
}

torch::Tensor MarianModel::Logits(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                  const torch::Tensor& decoder_input_ids) const {
  torch::NoGradGuard no_grad;
  auto state = StartDecoder(Encode(input_ids, attention_mask), attention_mask, 1, decoder_input_ids.size(1));
  return DecodeStep(decoder_input_ids, state->caches_, state->cross_, state->cross_mask_);
}

GenerationOptions MarianModel::DefaultGenerationOptions() const {
  GenerationOptions o;
  o.max_new_tokens = std::min(config_.max_length, config_.max_position_embeddings) - 1;
  o.num_beams = config_.num_beams;
  o.length_penalty = config_.length_penalty;
  o.start_token_id = config_.decoder_start_token_id;
  o.eos_token_id = config_.eos_token_id;
  o.pad_token_id = config_.pad_token_id;
  o.forced_eos_token_id = config_.forced_eos_token_id;
  o.suppressed_tokens = config_.bad_words_ids;
  return o;
}

GenerationOptions MarianModel::CheckedGeneration(const GenerationOptions& options) const {
  GenerationOptions o = options;
  // Decoder positions past the sinusoid table do not exist: cap the length there.
  o.max_new_tokens = std::min(o.max_new_tokens, config_.max_position_embeddings - 1);
  for (std::int64_t id : o.suppressed_tokens) {
    if (id < 0 || id >= config_.decoder_vocab_size) {
      Fail(ErrorCode::kInvalidArgument, "suppressed token id " + std::to_string(id) + " is outside the vocabulary of " +
                                            std::to_string(config_.decoder_vocab_size));
    }
  }
  return o;
}

std::vector<std::vector<std::int64_t>> MarianModel::Generate(const torch::Tensor& input_ids,
                                                             const torch::Tensor& attention_mask,
                                                             const GenerationOptions& options) const {
  torch::NoGradGuard no_grad;
  const GenerationOptions o = CheckedGeneration(options);
  // kStatic keeps the unpadded path that captures its graph per call (for comparison).
  if (o.path == DecodePath::kAuto && UseStaticPath(o, options_.device) && o.cuda_graphs &&
      StepGraph::Supported(options_.device)) {
    return GenerateBucketed(input_ids, attention_mask, o);
  }
  const torch::Tensor encoded = Encode(input_ids, attention_mask);
  const std::int64_t beams = std::max<std::int64_t>(o.num_beams, 1);
  const std::int64_t capacity = std::max<std::int64_t>(o.max_new_tokens, 1);
  if (UseStaticPath(o, options_.device)) {
    auto state = StartStaticDecoder(encoded, attention_mask, capacity);
    return StaticGreedySearch(*state, input_ids.size(0), o);
  }
  auto state = StartDecoder(encoded, attention_mask, beams, capacity);
  if (beams == 1) return GreedySearch(*state, input_ids.size(0), o);
  return BeamSearch(*state, input_ids.size(0), o);
}

std::vector<std::vector<std::int64_t>> MarianModel::GenerateBucketed(const torch::Tensor& input_ids,
                                                                     const torch::Tensor& attention_mask,
                                                                     const GenerationOptions& options,
                                                                     StaticSearchReport* report) const {
  torch::NoGradGuard no_grad;
  const GenerationOptions o = CheckedGeneration(options);
  if (o.num_beams != 1 || o.process_scores) {
    Fail(ErrorCode::kInvalidArgument, "bucketed decoding is greedy with on-device logits processors only "
                                      "(num_beams 1, no process_scores)");
  }
  if (input_ids.dim() != 2 || attention_mask.sizes() != input_ids.sizes()) {
    Fail(ErrorCode::kInvalidArgument, "encoder input must be (batch, length) token ids with a mask of the same shape");
  }
  const std::int64_t batch = input_ids.size(0);
  const std::int64_t length = input_ids.size(1);
  const std::int64_t capacity = std::max<std::int64_t>(o.max_new_tokens, 1);
  if (batch == 0 || length == 0) {
    auto state = StartStaticDecoder(Encode(input_ids, attention_mask), attention_mask, capacity);
    return StaticGreedySearch(*state, batch, o, report);
  }
  const MarianDecoderKey key{MarianBatchBucket(batch), MarianSourceBucket(length, config_.max_position_embeddings),
                             o.max_new_tokens};
  // Padded positions are masked out of every attention; padded rows repeat the
  // first (a row of padding alone would attend to nothing) and are dropped.
  const auto long_cpu = torch::TensorOptions().dtype(torch::kLong);
  torch::Tensor ids = torch::full({key.batch, key.source_length}, config_.pad_token_id, long_cpu);
  torch::Tensor mask = torch::zeros({key.batch, key.source_length}, long_cpu);
  ids.narrow(0, 0, batch).narrow(1, 0, length).copy_(input_ids);
  mask.narrow(0, 0, batch).narrow(1, 0, length).copy_(attention_mask);
  if (key.batch > batch) {
    ids.narrow(0, batch, key.batch - batch).copy_(ids.narrow(0, 0, 1).expand({key.batch - batch, key.source_length}));
    mask.narrow(0, batch, key.batch - batch).copy_(mask.narrow(0, 0, 1).expand({key.batch - batch, key.source_length}));
  }
  const torch::Tensor encoded = Encode(ids, mask);
  std::unique_ptr<MarianDecoderCache::Entry> kept = kept_decoders_->Take(key);
  const bool new_bucket = kept->decoder == nullptr;
  if (kept->decoder) {
    kept->decoder->Refill(encoded, mask);
  } else {
    kept->decoder = MakeStaticDecoder(encoded, mask, capacity, /*own_model=*/false);
  }
  std::vector<std::vector<std::int64_t>> out = StaticGreedySearch(*kept->decoder, key.batch, o, report, &kept->search);
  const StaticSearchKeep& search = kept->search;
  kept->bytes = kept->decoder->Bytes() +
                StorageBytes({search.tokens, search.unfinished, search.position, search.suppress}) +
                (search.graph ? search.graph->pool_bytes() : 0);
  kept_decoders_->Return(std::move(kept));
  // A bucket's first line ran its shapes eagerly once (~160 ms); what that left
  // cached, the replays of later lines never need.
  if (new_bucket) ReleaseCachedDeviceMemory(options_.device);
  out.resize(static_cast<std::size_t>(batch));
  return out;
}

std::vector<std::int64_t> MarianModel::DefaultWarmSourceLengths() { return {8, 16, 24, 32, 40, 48, 56, 64}; }

std::int64_t MarianModel::WarmBuckets(const std::vector<std::int64_t>& source_lengths, std::int64_t batch,
                                      const GenerationOptions& options) const {
  torch::NoGradGuard no_grad;
  GenerationOptions o = CheckedGeneration(options);
  if (!(o.path == DecodePath::kAuto && UseStaticPath(o, options_.device) && o.cuda_graphs &&
        StepGraph::Supported(options_.device) && o.num_beams == 1 && !o.process_scores) ||
      batch < 1) {
    return 0;
  }
  // A placeholder token that is neither padding nor eos (its meaning is irrelevant:
  // the shapes are what is warmed).
  std::int64_t filler = 0;
  while (filler == config_.pad_token_id || filler == config_.eos_token_id) ++filler;
  std::vector<MarianDecoderKey> warmed;
  for (const std::int64_t length : source_lengths) {
    if (length < 1 || length > config_.max_position_embeddings) continue;
    const MarianDecoderKey key{MarianBatchBucket(batch), MarianSourceBucket(length, config_.max_position_embeddings),
                               o.max_new_tokens};
    if (std::find(warmed.begin(), warmed.end(), key) != warmed.end()) continue;
    const torch::Tensor ids = torch::full({batch, key.source_length}, filler, torch::kLong);
    StaticSearchReport report;
    GenerateBucketed(ids, torch::ones_like(ids), o, &report);
    if (!report.cuda_graph) {
      // The placeholder ended at once (eos first), before the step was recorded:
      // again with eos suppressed, which only changes the mask the graph reads.
      GenerationOptions no_eos = o;
      no_eos.suppressed_tokens.push_back(o.eos_token_id);
      GenerateBucketed(ids, torch::ones_like(ids), no_eos, &report);
    }
    warmed.push_back(key);
  }
  return static_cast<std::int64_t>(warmed.size());
}

std::int64_t MarianStaticDecoder::Bytes() const {
  std::vector<torch::Tensor> tensors = {cross_mask_};
  for (const auto& cache : caches_) {
    tensors.push_back(cache.keys());
    tensors.push_back(cache.values());
  }
  for (const auto& cross : cross_) {
    tensors.push_back(cross.keys);
    tensors.push_back(cross.values);
  }
  return StorageBytes(tensors);
}

torch::Tensor MarianDecoderState::Step(const torch::Tensor& tokens) {
  torch::NoGradGuard no_grad;
  torch::Tensor ids = tokens.view({tokens.size(0), 1});
  return model_->DecodeStep(ids, caches_, cross_, cross_mask_).select(1, 0).to(torch::kFloat);
}

torch::Tensor MarianStaticDecoder::Forward(const torch::Tensor& tokens, const torch::Tensor& positions) {
  torch::NoGradGuard no_grad;
  const MarianModel& m = *model_;
  // No token-id check here: it would wait for the device, and greedy search feeds
  // only argmax results and the (checked) prompt.
  torch::Tensor x = EmbeddingRows(m.decoder_embed_, tokens);
  if (m.embed_scale_ != 1.0) x = x * m.embed_scale_;
  x = x + m.positions_.index_select(0, positions);
  const torch::Tensor self_mask = PositionMask(positions, capacity(), m.options_.dtype);
  for (std::size_t i = 0; i < m.decoder_layers_.size(); ++i) {
    x = DecoderLayer(m.decoder_layers_[i], m.config_.activation, x, caches_[i], positions, self_mask, cross_[i],
                     cross_mask_);
  }
  return (Linear(x, m.lm_head_) + m.final_logits_bias_).to(torch::kFloat);
}

void MarianStaticDecoder::Refill(const torch::Tensor& encoder_out, const torch::Tensor& attention_mask) {
  torch::NoGradGuard no_grad;
  const MarianModel& m = *model_;
  cross_mask_.copy_(PaddingMask(attention_mask.to(m.options_.device).to(torch::kBool), m.options_.dtype));
  for (std::size_t i = 0; i < m.decoder_layers_.size(); ++i) {
    const CrossKv fresh = ProjectCrossKv(m.decoder_layers_[i].cross_attn, encoder_out);
    cross_[i].keys.copy_(fresh.keys);
    cross_[i].values.copy_(fresh.values);
  }
}

void MarianDecoderState::Select(const torch::Tensor& rows) {
  const torch::Tensor on_device = rows.to(model_->options_.device);
  for (auto& cache : caches_) cache.Select(on_device);
  for (auto& cross : cross_) cross.Select(on_device);
  cross_mask_ = cross_mask_.index_select(0, on_device);
}

}  // namespace lingcast::neural
