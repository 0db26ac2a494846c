// Layers: the attention and transformer blocks of encoder-decoder models, with
// the decoder's key/value caches. Post-norm blocks (the residual is added, then
// the sum is normalized), as Marian and BART compute them.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/ops.h"
#include "neural/core/quantization.h"

namespace lingcast::neural {

struct AttentionWeights {
  LinearWeights q, k, v, out;
  std::int64_t heads = 1;
  // q, k and v as one (3 * D, D) projection when FuseQkv made it (one matrix
  // product instead of three); q, k and v are then views into it.
  LinearWeights qkv;
};

// Joins `w`'s q, k and v projections into `w.qkv` (a missing bias counts as
// zeros: Whisper's keys have none) and makes q, k, v views into it, so the fused
// weights take no more memory than the three did.
void FuseQkv(AttentionWeights& w);

// Every linear projection of `w` quantized to int8 (quantization.h); after
// FuseQkv, the fused projection is quantized and q, k, v stay views into it.
void QuantizeInt8(AttentionWeights& w, Int8Kernel kernel);

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

void QuantizeInt8(EncoderLayerWeights& w, Int8Kernel kernel);
void QuantizeInt8(DecoderLayerWeights& w, Int8Kernel kernel);
// Appends every tensor a layer holds (for DistinctBytes).
void AppendTensors(const EncoderLayerWeights& w, std::vector<torch::Tensor>& out);
void AppendTensors(const DecoderLayerWeights& w, std::vector<torch::Tensor>& out);

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
  std::int64_t capacity() const { return keys_.defined() ? keys_.size(2) : 0; }
  std::int64_t rows() const { return keys_.defined() ? keys_.size(0) : 0; }
  // Keeps rows `rows` (int64 indices, repeats allowed), in that order.
  void Select(const torch::Tensor& rows);

 private:
  torch::Tensor keys_, values_;
  std::int64_t length_ = 0;
};

// The static-shape twin of KvCache, for a decode step a CUDA graph can replay:
// zeros up to `capacity` positions, written in place at positions held in a
// device tensor, and read whole (positions past the current one are masked by
// PositionMask, so their zeros get no weight). Nothing reads back to the host.
class StaticKvCache {
 public:
  void Allocate(std::int64_t rows, std::int64_t heads, std::int64_t capacity, std::int64_t head_dim,
                const torch::TensorOptions& options);
  // Writes (N, H, t, Dh) keys and values at `positions` (t int64, on the device).
  void Write(const torch::Tensor& keys, const torch::Tensor& values, const torch::Tensor& positions);
  const torch::Tensor& keys() const { return keys_; }
  const torch::Tensor& values() const { return values_; }
  std::int64_t capacity() const { return keys_.size(2); }

 private:
  torch::Tensor keys_, values_;
};

// Cross-attention keys and values: projected from the encoder output once.
struct CrossKv {
  // (N, H, S, Dh); N is 1 where the rows of a decoder all attend to one audio.
  torch::Tensor keys, values;
  void Select(const torch::Tensor& rows) {
    keys = keys.index_select(0, rows);
    values = values.index_select(0, rows);
  }
};

// A static decoder's per-layer state for `encoder_out`: each layer's
// cross-attention keys and values, and a self-attention cache of `capacity`
// positions rounded up to a multiple of 16 (at most `max_positions`): the fused
// attention kernels take key lengths and masks aligned so without padding them.
void StartStaticLayers(const std::vector<DecoderLayerWeights>& layers, const torch::Tensor& encoder_out,
                       std::int64_t heads, std::int64_t d_model, std::int64_t capacity, std::int64_t max_positions,
                       const torch::TensorOptions& options, std::vector<CrossKv>& cross,
                       std::vector<StaticKvCache>& caches);

// x (N, S, D) -> (N, S, D); `padding_mask` from PaddingMask().
torch::Tensor EncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           const torch::Tensor& padding_mask);

CrossKv ProjectCrossKv(const AttentionWeights& w, const torch::Tensor& encoder_out);

// x (N, t, D): t new positions after the cached ones; appends their keys and values
// to `cache`. `cross_mask` is the encoder's padding mask.
torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           KvCache& cache, const CrossKv& cross, const torch::Tensor& cross_mask);

// The same at static shapes: x (N, t, D) at `positions` (t int64 on the device);
// keys and values are written into `cache` in place; `self_mask` is
// PositionMask(positions, cache.capacity(), dtype).
torch::Tensor DecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                           StaticKvCache& cache, const torch::Tensor& positions, const torch::Tensor& self_mask,
                           const CrossKv& cross, const torch::Tensor& cross_mask);

// Pre-norm variants (Whisper): each sublayer normalizes its input and adds its
// output to the residual stream (x + f(norm(x))); the stack's final layer norm is
// the model's. The weight structs are the same: `*_norm` is the norm before the
// sublayer rather than after it.
torch::Tensor PreNormEncoderLayer(const EncoderLayerWeights& w, Activation activation, const torch::Tensor& x);
torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  KvCache& cache, const CrossKv& cross);
torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  StaticKvCache& cache, const torch::Tensor& positions, const torch::Tensor& self_mask,
                                  const CrossKv& cross);
// One new position of several independent decoders at once (requests of many
// sessions batched: whisper_step_batcher.h). x (R, 1, D) holds decoder i's
// rows[i] rows one decoder after another; the linear layers run once over all R
// rows (on a CPU a step's cost is mostly reading their weights), the attention
// of each decoder over its own cache (appended in place) and its own encoder
// output. The same values as each decoder's own PreNormDecoderLayer, up to the
// rounding of a product over more rows.
torch::Tensor PreNormDecoderLayer(const DecoderLayerWeights& w, Activation activation, const torch::Tensor& x,
                                  const std::vector<std::int64_t>& rows, const std::vector<KvCache*>& caches,
                                  const std::vector<const CrossKv*>& cross);

}  // namespace lingcast::neural
