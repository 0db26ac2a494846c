#include "neural/transformer_layers.h"

#include <cmath>
#include <string>

#include "neural/neural_error.h"

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

}  // namespace

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

torch::Tensor EncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           const torch::Tensor& padding_mask) {
  const auto& a = w.self_attn;
  torch::Tensor q = SplitHeads(Linear(x, a.q), a.heads);
  torch::Tensor k = SplitHeads(Linear(x, a.k), a.heads);
  torch::Tensor v = SplitHeads(Linear(x, a.v), a.heads);
  torch::Tensor attended = Linear(MergeHeads(Attention(q, k, v, padding_mask, Scale(a))), a.out);
  torch::Tensor h = LayerNorm(x + attended, w.self_attn_norm);
  return LayerNorm(h + FeedForward(h, w.fc1, w.fc2, activation), w.final_norm);
}

CrossKv ProjectCrossKv(const AttentionWeights& w, const torch::Tensor& encoder_out) {
  return CrossKv{SplitHeads(Linear(encoder_out, w.k), w.heads).contiguous(),
                 SplitHeads(Linear(encoder_out, w.v), w.heads).contiguous()};
}

torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           KvCache& cache, const CrossKv& cross, const torch::Tensor& cross_mask) {
  const auto& s = w.self_attn;
  const std::int64_t past = cache.length();
  const std::int64_t t = x.size(1);
  cache.Append(SplitHeads(Linear(x, s.k), s.heads), SplitHeads(Linear(x, s.v), s.heads));
  torch::Tensor q = SplitHeads(Linear(x, s.q), s.heads);
  // One new position attends to everything cached: no mask needed.
  torch::Tensor causal = t > 1 ? CausalMask(past, t, x.options()) : torch::Tensor();
  torch::Tensor h = Linear(MergeHeads(Attention(q, cache.keys(), cache.values(), causal, Scale(s))), s.out);
  h = LayerNorm(x + h, w.self_attn_norm);

  const auto& c = w.cross_attn;
  torch::Tensor cq = SplitHeads(Linear(h, c.q), c.heads);
  torch::Tensor crossed = Linear(MergeHeads(Attention(cq, cross.keys, cross.values, cross_mask, Scale(c))), c.out);
  h = LayerNorm(h + crossed, w.cross_attn_norm);
  return LayerNorm(h + FeedForward(h, w.fc1, w.fc2, activation), w.final_norm);
}

torch::Tensor PreNormEncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x) {
  const auto& a = w.self_attn;
  const torch::Tensor normed = LayerNorm(x, w.self_attn_norm);
  torch::Tensor q = SplitHeads(Linear(normed, a.q), a.heads);
  torch::Tensor k = SplitHeads(Linear(normed, a.k), a.heads);
  torch::Tensor v = SplitHeads(Linear(normed, a.v), a.heads);
  torch::Tensor h = x + Linear(MergeHeads(Attention(q, k, v, torch::Tensor(), Scale(a))), a.out);
  return h + FeedForward(LayerNorm(h, w.final_norm), w.fc1, w.fc2, activation);
}

torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  KvCache& cache, const CrossKv& cross) {
  const auto& s = w.self_attn;
  const std::int64_t past = cache.length();
  const std::int64_t t = x.size(1);
  torch::Tensor normed = LayerNorm(x, w.self_attn_norm);
  cache.Append(SplitHeads(Linear(normed, s.k), s.heads), SplitHeads(Linear(normed, s.v), s.heads));
  torch::Tensor q = SplitHeads(Linear(normed, s.q), s.heads);
  torch::Tensor causal = t > 1 ? CausalMask(past, t, x.options()) : torch::Tensor();
  torch::Tensor h = x + Linear(MergeHeads(Attention(q, cache.keys(), cache.values(), causal, Scale(s))), s.out);

  const auto& c = w.cross_attn;
  torch::Tensor cq = SplitHeads(Linear(LayerNorm(h, w.cross_attn_norm), c.q), c.heads);
  h = h + Linear(MergeHeads(Attention(cq, cross.keys, cross.values, torch::Tensor(), Scale(c))), c.out);
  return h + FeedForward(LayerNorm(h, w.final_norm), w.fc1, w.fc2, activation);
}

}  // namespace lingcast::neural
