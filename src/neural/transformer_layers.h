// Layers: the attention and transformer blocks of encoder-decoder models, with
// the decoder's key/value caches. Post-norm blocks (the residual is added, then
// the sum is normalized), as Marian and BART compute them.
#pragma once

#include <cstdint>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/ops.h"

namespace lingcast::neural {

struct AttentionWeights {
  LinearWeights q, k, v, out;
  std::int64_t heads = 1;
};

struct EncoderLayerWeights {
  AttentionWeights self_attn;
  LayerNormWeights self_attn_norm;
  LinearWeights fc1, fc2;
  LayerNormWeights final_norm;
};

struct DecoderLayerWeights {
  AttentionWeights self_attn;
  LayerNormWeights self_attn_norm;
  AttentionWeights cross_attn;
  LayerNormWeights cross_attn_norm;
  LinearWeights fc1, fc2;
  LayerNormWeights final_norm;
};

// A decoder layer's self-attention keys and values, preallocated for the longest
// output so that a step writes in place instead of concatenating (N, H, T, Dh).
class KvCache {
 public:
  void Allocate(std::int64_t rows, std::int64_t heads, std::int64_t capacity, std::int64_t head_dim,
                const torch::TensorOptions& options);
  // Appends (N, H, t, Dh) keys and values; kInvalidArgument past the capacity.
  void Append(const torch::Tensor& keys, const torch::Tensor& values);
  torch::Tensor keys() const { return keys_.narrow(2, 0, length_); }
  torch::Tensor values() const { return values_.narrow(2, 0, length_); }
  std::int64_t length() const { return length_; }
  // Keeps rows `rows` (int64 indices, repeats allowed), in that order.
  void Select(const torch::Tensor& rows);

 private:
  torch::Tensor keys_, values_;
  std::int64_t length_ = 0;
};

// Cross-attention keys and values: projected from the encoder output once.
struct CrossKv {
  torch::Tensor keys, values;  // (N, H, S, Dh)
  void Select(const torch::Tensor& rows) {
    keys = keys.index_select(0, rows);
    values = values.index_select(0, rows);
  }
};

// x (N, S, D) -> (N, S, D); `padding_mask` from PaddingMask().
torch::Tensor EncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           const torch::Tensor& padding_mask);

CrossKv ProjectCrossKv(const AttentionWeights& w, const torch::Tensor& encoder_out);

// x (N, t, D): t new positions after the cached ones; appends their keys and values
// to `cache`. `cross_mask` is the encoder's padding mask.
torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           KvCache& cache, const CrossKv& cross, const torch::Tensor& cross_mask);

// Pre-norm variants (Whisper): each sublayer normalizes its input and adds its
// output to the residual stream (x + f(norm(x))); the stack's final layer norm is
// the model's. The weight structs are the same: `*_norm` is the norm before the
// sublayer rather than after it.
torch::Tensor PreNormEncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x);
torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  KvCache& cache, const CrossKv& cross);

}  // namespace lingcast::neural
