// The layers of VITS (transformers' VitsModel), inference direction only: the
// text encoder's relative-position attention and convolutional FFN, the duration
// predictors (stochastic: dilated depth-separable convolutions and rational-
// quadratic spline flows run in reverse; deterministic: two convolutions), the
// residual coupling flow with its WaveNet, and the HiFi-GAN decoder.
//
// Tensors are channels-first (N, C, T) as the reference's Conv1d layers take them,
// except the text encoder's (N, T, C); `mask` is (N, 1, T), 1 for a position and
// 0 for padding. Weight norm is already folded into the weights (vits_model.cc).
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/ops.h"

namespace lingcast::neural::vits {

// `cudnn` false: on CUDA through PyTorch's own convolution kernels, not cuDNN's
// (VitsModelOptions::cudnn_convolutions says why); no difference on the CPU.
struct Conv {
  torch::Tensor weight, bias;  // bias may be undefined
  std::int64_t padding = 0, dilation = 1, groups = 1;
  bool cudnn = true;
};
struct ConvTranspose {
  torch::Tensor weight, bias;
  std::int64_t stride = 1, padding = 0;
  bool cudnn = true;
};
torch::Tensor Apply(const Conv& conv, const torch::Tensor& x);
torch::Tensor Apply(const ConvTranspose& conv, const torch::Tensor& x);

// Text encoder.
struct Attention {
  LinearWeights q, k, v, out;
  torch::Tensor rel_k, rel_v;  // (1, 2 * window + 1, head_dim), undefined without a window
  std::int64_t heads = 1, window = 0;
};
struct EncoderLayer {
  Attention attention;
  LayerNormWeights norm;
  Conv ffn_1, ffn_2;
  std::int64_t ffn_pad_left = 0, ffn_pad_right = 0;
  LayerNormWeights final_norm;
};
// x (N, T, D); mask (N, T, 1); additive_mask (N, 1, 1, T) or undefined.
torch::Tensor EncoderLayerForward(const EncoderLayer& w, Activation act, const torch::Tensor& x,
                                  const torch::Tensor& mask, const torch::Tensor& additive_mask);

// Duration predictors. x (N, hidden, T) -> log-durations (N, 1, T).
struct DepthSeparableConv {
  std::vector<Conv> dilated, pointwise;
  std::vector<LayerNormWeights> norms_1, norms_2;
};
struct ConvFlow {
  Conv pre, proj;
  DepthSeparableConv dds;
};
struct StochasticDurationPredictor {
  Conv pre, proj;
  DepthSeparableConv dds;
  torch::Tensor translate, log_scale;  // the elementwise affine flow, (2, 1)
  std::vector<ConvFlow> flows;         // the conv flows after the first (unused), in forward order
  std::int64_t bins = 10;
  double tail_bound = 5.0;
  std::int64_t filter_channels = 0;
};
// `scaled_noise` (N, 2, T): the standard normal draws times the duration noise scale.
torch::Tensor StochasticDurations(const StochasticDurationPredictor& w, const torch::Tensor& x,
                                  const torch::Tensor& mask, const torch::Tensor& scaled_noise);
struct DurationPredictor {
  Conv conv_1, conv_2, proj;
  LayerNormWeights norm_1, norm_2;
};
torch::Tensor DeterministicDurations(const DurationPredictor& w, const torch::Tensor& x, const torch::Tensor& mask);

// The inverse of the reference's rational-quadratic spline (identity outside
// [-tail_bound, tail_bound]). x (N, 1, T); widths, heights (N, 1, T, bins);
// derivatives (N, 1, T, bins - 1).
torch::Tensor InverseSpline(const torch::Tensor& x, const torch::Tensor& widths, const torch::Tensor& heights,
                            const torch::Tensor& derivatives, double tail_bound);

// Prior flow, reverse: latents (N, flow_size, T') -> spectrogram-side latents.
struct WaveNet {
  std::vector<Conv> in_layers, res_skip_layers;
  std::int64_t hidden = 0;
};
struct CouplingLayer {
  Conv pre, post;
  WaveNet wavenet;
};
torch::Tensor FlowReverse(const std::vector<CouplingLayer>& flows, const torch::Tensor& x, const torch::Tensor& mask);
// How many frames away (either side) the flow's output at a frame can depend on
// its input: the sum of its convolutions' reaches.
std::int64_t FlowReachFrames(const std::vector<CouplingLayer>& flows);

// HiFi-GAN: (N, flow_size, T') -> waveform (N, 1, T' * hop).
struct ResidualBlock {
  // Type 1: convs_2[k] follows convs_1[k]; type 2 (Piper): convs_2 is empty.
  std::vector<Conv> convs_1, convs_2;
};
struct HifiGan {
  Conv pre, post;
  std::vector<ConvTranspose> upsamplers;
  std::vector<ResidualBlock> blocks;  // kernels per upsampler, upsampler-major
  double leaky_relu_slope = 0.1;
};
// `frame_mask` (1, 1, T') or undefined: with it, the spectrogram may be padded
// past its frames (a CUDA graph's bucket) and every convolution's input is zeroed
// past them at its resolution, so the samples of the real frames are what the
// unpadded spectrogram gives (its convolutions see zeros past the end too).
torch::Tensor HifiGanForward(const HifiGan& w, const torch::Tensor& spectrogram,
                             const torch::Tensor& frame_mask = {});
// How many input frames away (either side) a sample can depend on: each
// convolution's reach at its resolution, in frames, summed along the deepest
// path, rounded up, plus one. Decoding frames [b, e) from the input frames
// [b - reach, e + reach) gives the same samples as decoding the whole input.
std::int64_t HifiGanReachFrames(const HifiGan& w);

}  // namespace lingcast::neural::vits
