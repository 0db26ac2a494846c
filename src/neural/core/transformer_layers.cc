#include "neural/core/transformer_layers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

double Scale(const AttentionWeights& w) {
  const auto head_dim = w.q.weight.size(0) / w.heads;
  return 1.0 / std::sqrt(static_cast<double>(head_dim));
}

torch::Tensor FeedForward(const torch::Tensor& x, const LinearWeights& fc1, const LinearWeights& fc2,
                          Activation activation) {
  return Linear(Activate(Linear(x, fc1), activation), fc2);
}

// q, k and v of `x`, split into heads (N, H, T, Dh).
std::array<torch::Tensor, 3> ProjectQkv(const AttentionWeights& a, const torch::Tensor& x) {
  if (a.qkv.weight.defined()) {
    const std::vector<torch::Tensor> parts = Linear(x, a.qkv).chunk(3, -1);
    return {SplitHeads(parts[0], a.heads), SplitHeads(parts[1], a.heads), SplitHeads(parts[2], a.heads)};
  }
  return {SplitHeads(Linear(x, a.q), a.heads), SplitHeads(Linear(x, a.k), a.heads), SplitHeads(Linear(x, a.v), a.heads)};
}

// Self-attention of t new positions after the cached ones (N, t, D) -> (N, t, D).
torch::Tensor SelfAttend(const AttentionWeights& s, const torch::Tensor& x, KvCache& cache) {
  const std::int64_t past = cache.length();
  const std::int64_t t = x.size(1);
  auto [q, k, v] = ProjectQkv(s, x);
  cache.Append(k, v);
  // One new position attends to everything cached: no mask needed.
  const torch::Tensor causal = t > 1 ? CausalMask(past, t, x.options()) : torch::Tensor();
  return Linear(MergeHeads(Attention(q, cache.keys(), cache.values(), causal, Scale(s))), s.out);
}

torch::Tensor SelfAttend(const AttentionWeights& s, const torch::Tensor& x, StaticKvCache& cache,
                         const torch::Tensor& positions, const torch::Tensor& self_mask) {
  auto [q, k, v] = ProjectQkv(s, x);
  cache.Write(k, v, positions);
  return Linear(MergeHeads(Attention(q, cache.keys(), cache.values(), self_mask, Scale(s))), s.out);
}

// Cross-attention of q (N, H, L, Dh) over `cross`. Keys and values of one
// audio (batch 1) serve any number of query rows (beams, scored openings): the
// rows are folded into the query positions, one attention without copying the
// keys N times. Exact: no query masks another, and a padding mask of batch 1
// (one row for every query) holds for every row.
torch::Tensor CrossAttend(const torch::Tensor& q, const CrossKv& cross, const torch::Tensor& mask, double scale) {
  const std::int64_t n = q.size(0);
  if (n == 1 || cross.keys.size(0) != 1 || (mask.defined() && (mask.size(0) != 1 || mask.size(-2) != 1))) {
    return Attention(q, cross.keys, cross.values, mask, scale);
  }
  const std::int64_t heads = q.size(1), length = q.size(2), head_dim = q.size(3);
  const torch::Tensor folded = q.transpose(0, 1).reshape({1, heads, n * length, head_dim});
  return Attention(folded, cross.keys, cross.values, mask, scale).view({heads, n, length, head_dim}).transpose(0, 1);
}

// A post-norm decoder layer around `self_attend` (x -> its self-attention output).
template <typename SelfAttendFn>
torch::Tensor PostNormDecoder(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                              SelfAttendFn&& self_attend, const CrossKv& cross, const torch::Tensor& cross_mask) {
  torch::Tensor h = LayerNorm(x + self_attend(x), w.self_attn_norm);
  const auto& c = w.cross_attn;
  torch::Tensor cq = SplitHeads(Linear(h, c.q), c.heads);
  torch::Tensor crossed = Linear(MergeHeads(CrossAttend(cq, cross, cross_mask, Scale(c))), c.out);
  h = LayerNorm(h + crossed, w.cross_attn_norm);
  return LayerNorm(h + FeedForward(h, w.fc1, w.fc2, activation), w.final_norm);
}

template <typename SelfAttendFn>
torch::Tensor PreNormDecoder(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                             SelfAttendFn&& self_attend, const CrossKv& cross) {
  torch::Tensor h = x + self_attend(LayerNorm(x, w.self_attn_norm));
  const auto& c = w.cross_attn;
  torch::Tensor cq = SplitHeads(Linear(LayerNorm(h, w.cross_attn_norm), c.q), c.heads);
  h = h + Linear(MergeHeads(CrossAttend(cq, cross, torch::Tensor(), Scale(c))), c.out);
  return h + FeedForward(LayerNorm(h, w.final_norm), w.fc1, w.fc2, activation);
}

}  // namespace

void FuseQkv(AttentionWeights& w) {
  const std::int64_t d = w.q.weight.size(0);
  auto bias_of = [&](const LinearWeights& l) {
    return l.bias.defined() ? l.bias : torch::zeros({l.weight.size(0)}, l.weight.options());
  };
  w.qkv.weight = torch::cat({w.q.weight, w.k.weight, w.v.weight}, 0);
  const bool any_bias = w.q.bias.defined() || w.k.bias.defined() || w.v.bias.defined();
  if (any_bias) w.qkv.bias = torch::cat({bias_of(w.q), bias_of(w.k), bias_of(w.v)}, 0);
  LinearWeights* parts[] = {&w.q, &w.k, &w.v};
  for (std::int64_t i = 0; i < 3; ++i) {
    LinearWeights& part = *parts[i];
    part.weight = w.qkv.weight.narrow(0, i * d, d);
    if (part.bias.defined()) part.bias = w.qkv.bias.narrow(0, i * d, d);
  }
}

void QuantizeInt8(AttentionWeights& w, Int8Kernel kernel) {
  w.out = QuantizeInt8(w.out, kernel);
  if (!w.qkv.weight.defined()) {
    for (LinearWeights* part : {&w.q, &w.k, &w.v}) *part = QuantizeInt8(*part, kernel);
    return;
  }
  w.qkv = QuantizeInt8(w.qkv, kernel);
  const std::int64_t d = w.q.weight.size(0);
  LinearWeights* parts[] = {&w.q, &w.k, &w.v};
  for (std::int64_t i = 0; i < 3; ++i) {
    // A copy of the whole, so that every kernel choice made for it holds for
    // its parts too; then its tensors narrowed to the part's rows.
    const bool has_bias = parts[i]->bias.defined();
    LinearWeights part = w.qkv;
    part.weight = w.qkv.weight.narrow(0, i * d, d);
    part.scales = w.qkv.scales.narrow(0, i * d, d);
    if (w.qkv.cpu_int8_row_sums.defined()) part.cpu_int8_row_sums = w.qkv.cpu_int8_row_sums.narrow(0, i * d, d);
    // Whole 16-row blocks of the packed copy are views; otherwise the part's
    // products of many rows run through the row-major kernel.
    part.cpu_int8_packed = w.qkv.cpu_int8_packed.defined() && d % 16 == 0
                               ? w.qkv.cpu_int8_packed.narrow(0, i * d / 16, d / 16)
                               : torch::Tensor();
    part.bias = has_bias ? w.qkv.bias.narrow(0, i * d, d) : torch::Tensor();
    *parts[i] = std::move(part);
  }
}

void QuantizeInt8(EncoderLayerWeights& w, Int8Kernel kernel) {
  QuantizeInt8(w.self_attn, kernel);
  w.fc1 = QuantizeInt8(w.fc1, kernel);
  w.fc2 = QuantizeInt8(w.fc2, kernel);
}

void QuantizeInt8(DecoderLayerWeights& w, Int8Kernel kernel) {
  QuantizeInt8(w.self_attn, kernel);
  QuantizeInt8(w.cross_attn, kernel);
  w.fc1 = QuantizeInt8(w.fc1, kernel);
  w.fc2 = QuantizeInt8(w.fc2, kernel);
}

namespace {
void Append(const LinearWeights& w, std::vector<torch::Tensor>& out) {
  out.insert(out.end(), {w.weight, w.bias, w.scales, w.cpu_int8_row_sums, w.cpu_int8_packed});
}
void Append(const LayerNormWeights& w, std::vector<torch::Tensor>& out) { out.insert(out.end(), {w.weight, w.bias}); }
void Append(const AttentionWeights& w, std::vector<torch::Tensor>& out) {
  for (const LinearWeights* part : {&w.q, &w.k, &w.v, &w.out, &w.qkv}) Append(*part, out);
}
}  // namespace

void AppendTensors(const EncoderLayerWeights& w, std::vector<torch::Tensor>& out) {
  Append(w.self_attn, out);
  Append(w.self_attn_norm, out);
  Append(w.fc1, out);
  Append(w.fc2, out);
  Append(w.final_norm, out);
}

void AppendTensors(const DecoderLayerWeights& w, std::vector<torch::Tensor>& out) {
  Append(w.self_attn, out);
  Append(w.self_attn_norm, out);
  Append(w.cross_attn, out);
  Append(w.cross_attn_norm, out);
  Append(w.fc1, out);
  Append(w.fc2, out);
  Append(w.final_norm, out);
}

void KvCache::Allocate(std::int64_t rows, std::int64_t heads, std::int64_t capacity, std::int64_t head_dim,
                       const torch::TensorOptions& options) {
  keys_ = torch::empty({rows, heads, capacity, head_dim}, options);
  values_ = torch::empty({rows, heads, capacity, head_dim}, options);
  length_ = 0;
}

void KvCache::Append(const torch::Tensor& keys, const torch::Tensor& values) {
  const std::int64_t t = keys.size(2);
  if (length_ + t > keys_.size(2)) {
    Fail(ErrorCode::kInvalidArgument, "decoder cache holds " + std::to_string(keys_.size(2)) +
                                          " positions; cannot add " + std::to_string(t) + " after " +
                                          std::to_string(length_));
  }
  keys_.narrow(2, length_, t).copy_(keys);
  values_.narrow(2, length_, t).copy_(values);
  length_ += t;
}

void KvCache::Select(const torch::Tensor& rows) {
  keys_ = keys_.index_select(0, rows);
  values_ = values_.index_select(0, rows);
}

void StaticKvCache::Allocate(std::int64_t rows, std::int64_t heads, std::int64_t capacity, std::int64_t head_dim,
                             const torch::TensorOptions& options) {
  // Zeros, not garbage: masked positions get weight 0, and 0 * NaN would be NaN.
  keys_ = torch::zeros({rows, heads, capacity, head_dim}, options);
  values_ = torch::zeros({rows, heads, capacity, head_dim}, options);
}

void StaticKvCache::Write(const torch::Tensor& keys, const torch::Tensor& values, const torch::Tensor& positions) {
  keys_.index_copy_(2, positions, keys);
  values_.index_copy_(2, positions, values);
}

torch::Tensor EncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           const torch::Tensor& padding_mask) {
  const auto& a = w.self_attn;
  auto [q, k, v] = ProjectQkv(a, x);
  torch::Tensor attended = Linear(MergeHeads(Attention(q, k, v, padding_mask, Scale(a))), a.out);
  torch::Tensor h = LayerNorm(x + attended, w.self_attn_norm);
  return LayerNorm(h + FeedForward(h, w.fc1, w.fc2, activation), w.final_norm);
}

void StartStaticLayers(const std::vector<DecoderLayerWeights>& layers, const torch::Tensor& encoder_out,
                       std::int64_t heads, std::int64_t d_model, std::int64_t capacity, std::int64_t max_positions,
                       const torch::TensorOptions& options, std::vector<CrossKv>& cross,
                       std::vector<StaticKvCache>& caches) {
  capacity = std::min((capacity + 15) / 16 * 16, max_positions);
  for (const DecoderLayerWeights& layer : layers) {
    cross.push_back(ProjectCrossKv(layer.cross_attn, encoder_out));
    caches.emplace_back();
    caches.back().Allocate(encoder_out.size(0), heads, capacity, d_model / heads, options);
  }
}

CrossKv ProjectCrossKv(const AttentionWeights& w, const torch::Tensor& encoder_out) {
  return CrossKv{SplitHeads(Linear(encoder_out, w.k), w.heads).contiguous(),
                 SplitHeads(Linear(encoder_out, w.v), w.heads).contiguous()};
}

torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           KvCache& cache, const CrossKv& cross, const torch::Tensor& cross_mask) {
  return PostNormDecoder(
      w, activation, x, [&](const torch::Tensor& in) { return SelfAttend(w.self_attn, in, cache); }, cross, cross_mask);
}

torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           StaticKvCache& cache, const torch::Tensor& positions, const torch::Tensor& self_mask,
                           const CrossKv& cross, const torch::Tensor& cross_mask) {
  return PostNormDecoder(
      w, activation, x, [&](const torch::Tensor& in) { return SelfAttend(w.self_attn, in, cache, positions, self_mask); },
      cross, cross_mask);
}

torch::Tensor PreNormEncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x) {
  const auto& a = w.self_attn;
  auto [q, k, v] = ProjectQkv(a, LayerNorm(x, w.self_attn_norm));
  torch::Tensor h = x + Linear(MergeHeads(Attention(q, k, v, torch::Tensor(), Scale(a))), a.out);
  return h + FeedForward(LayerNorm(h, w.final_norm), w.fc1, w.fc2, activation);
}

torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  KvCache& cache, const CrossKv& cross) {
  return PreNormDecoder(
      w, activation, x, [&](const torch::Tensor& in) { return SelfAttend(w.self_attn, in, cache); }, cross);
}

torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  StaticKvCache& cache, const torch::Tensor& positions, const torch::Tensor& self_mask,
                                  const CrossKv& cross) {
  return PreNormDecoder(
      w, activation, x, [&](const torch::Tensor& in) { return SelfAttend(w.self_attn, in, cache, positions, self_mask); },
      cross);
}

torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  const std::vector<std::int64_t>& rows, const std::vector<KvCache*>& caches,
                                  const std::vector<const CrossKv*>& cross) {
  if (rows.size() != caches.size() || rows.size() != cross.size() || x.size(1) != 1) {
    Fail(ErrorCode::kInvalidArgument, "a step of " + std::to_string(rows.size()) + " decoders needs as many caches and "
                                      "encoder outputs, and one position each");
  }
  const auto& s = w.self_attn;
  auto [q, k, v] = ProjectQkv(s, LayerNorm(x, w.self_attn_norm));
  const std::vector<torch::Tensor> qs = q.split_with_sizes(rows, 0), ks = k.split_with_sizes(rows, 0),
                                   vs = v.split_with_sizes(rows, 0);
  std::vector<torch::Tensor> attended;
  attended.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    caches[i]->Append(ks[i], vs[i]);
    attended.push_back(Attention(qs[i], caches[i]->keys(), caches[i]->values(), torch::Tensor(), Scale(s)));
  }
  torch::Tensor h = x + Linear(MergeHeads(torch::cat(attended, 0)), s.out);
  const auto& c = w.cross_attn;
  const std::vector<torch::Tensor> cqs =
      SplitHeads(Linear(LayerNorm(h, w.cross_attn_norm), c.q), c.heads).split_with_sizes(rows, 0);
  attended.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    attended.push_back(CrossAttend(cqs[i], *cross[i], torch::Tensor(), Scale(c)));
  }
  h = h + Linear(MergeHeads(torch::cat(attended, 0)), c.out);
  return h + FeedForward(LayerNorm(h, w.final_norm), w.fc1, w.fc2, activation);
}

}  // namespace lingcast::neural
