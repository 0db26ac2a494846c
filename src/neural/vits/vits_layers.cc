// Each function follows transformers' modeling_vits.py operation by operation
// (same order of multiplications and masks), so fp32 results agree to rounding.
#include "neural/vits/vits_layers.h"

#include <algorithm>
#include <cmath>

namespace lingcast::neural::vits {
namespace {

using torch::indexing::None;
using torch::indexing::Slice;

torch::Tensor ChannelNorm(const torch::Tensor& x, const LayerNormWeights& w) {
  return LayerNorm(x.transpose(1, -1), w).transpose(1, -1);
}

// The (1, 2 * length - 1, head_dim) slice of a relative table for `length` keys:
// zero-padded beyond the window.
torch::Tensor RelativeEmbeddings(const torch::Tensor& table, std::int64_t window, std::int64_t length) {
  const std::int64_t pad = std::max<std::int64_t>(length - (window + 1), 0);
  torch::Tensor padded = pad > 0 ? torch::constant_pad_nd(table, {0, 0, pad, pad, 0, 0}) : table;
  const std::int64_t start = std::max<std::int64_t>((window + 1) - length, 0);
  return padded.index({Slice(), Slice(start, start + 2 * length - 1)});
}

// (BH, T, 2T - 1) logits by relative offset -> (BH, T, T) by key position.
torch::Tensor RelativeToAbsolute(const torch::Tensor& x) {
  const std::int64_t bh = x.size(0), length = x.size(1);
  torch::Tensor flat = torch::constant_pad_nd(x, {0, 1}).reshape({bh, length * 2 * length});
  flat = torch::constant_pad_nd(flat, {0, length - 1});
  return flat.view({bh, length + 1, 2 * length - 1}).index({Slice(), Slice(None, length), Slice(length - 1, None)});
}

// (BH, T, T) weights by key position -> (BH, T, 2T - 1) by relative offset.
torch::Tensor AbsoluteToRelative(const torch::Tensor& x) {
  const std::int64_t bh = x.size(0), length = x.size(1);
  torch::Tensor flat = torch::constant_pad_nd(x, {0, length - 1}).reshape({bh, length * (2 * length - 1)});
  flat = torch::constant_pad_nd(flat, {length, 0});
  return flat.view({bh, length, 2 * length}).index({Slice(), Slice(), Slice(1, None)});
}

torch::Tensor AttentionForward(const Attention& w, const torch::Tensor& x, const torch::Tensor& additive_mask) {
  const std::int64_t n = x.size(0), t = x.size(1), d = x.size(2), heads = w.heads, head_dim = d / heads;
  const double scaling = std::pow(static_cast<double>(head_dim), -0.5);
  auto split = [&](const torch::Tensor& y) {
    return y.view({n, t, heads, head_dim}).transpose(1, 2).reshape({n * heads, t, head_dim});
  };
  const torch::Tensor q = split(Linear(x, w.q) * scaling);
  const torch::Tensor k = split(Linear(x, w.k));
  const torch::Tensor v = split(Linear(x, w.v));
  torch::Tensor scores = torch::bmm(q, k.transpose(1, 2));
  if (w.window > 0) {
    const torch::Tensor rel_k = RelativeEmbeddings(w.rel_k, w.window, t);
    scores = scores + RelativeToAbsolute(torch::matmul(q, rel_k.transpose(-2, -1)));
  }
  if (additive_mask.defined()) scores = (scores.view({n, heads, t, t}) + additive_mask).view({n * heads, t, t});
  const torch::Tensor probs = torch::softmax(scores, -1);
  torch::Tensor out = torch::bmm(probs, v);
  if (w.window > 0) {
    const torch::Tensor rel_v = RelativeEmbeddings(w.rel_v, w.window, t);
    out = out + torch::matmul(AbsoluteToRelative(probs), rel_v);
  }
  out = out.view({n, heads, t, head_dim}).transpose(1, 2).reshape({n, t, d});
  return Linear(out, w.out);
}

torch::Tensor FeedForward(const EncoderLayer& w, Activation act, const torch::Tensor& x, const torch::Tensor& mask) {
  const torch::Tensor m = mask.permute({0, 2, 1});
  torch::Tensor h = x.permute({0, 2, 1}) * m;
  const bool pad = w.ffn_pad_left > 0 || w.ffn_pad_right > 0;
  if (pad) h = torch::constant_pad_nd(h, {w.ffn_pad_left, w.ffn_pad_right});
  h = Activate(Apply(w.ffn_1, h), act) * m;
  if (pad) h = torch::constant_pad_nd(h, {w.ffn_pad_left, w.ffn_pad_right});
  h = Apply(w.ffn_2, h) * m;
  return h.permute({0, 2, 1});
}

torch::Tensor DepthSeparable(const DepthSeparableConv& w, torch::Tensor x, const torch::Tensor& mask,
                             const torch::Tensor& conditioning) {
  if (conditioning.defined()) x = x + conditioning;
  for (std::size_t i = 0; i < w.dilated.size(); ++i) {
    torch::Tensor h = Apply(w.dilated[i], x * mask);
    h = torch::gelu(ChannelNorm(h, w.norms_1[i]));
    h = Apply(w.pointwise[i], h);
    h = torch::gelu(ChannelNorm(h, w.norms_2[i]));
    x = x + h;
  }
  return x * mask;
}

torch::Tensor ConvFlowReverse(const ConvFlow& w, const StochasticDurationPredictor& p, const torch::Tensor& x,
                              const torch::Tensor& mask, const torch::Tensor& conditioning) {
  const torch::Tensor first = x.narrow(1, 0, 1), second = x.narrow(1, 1, 1);
  torch::Tensor h = Apply(w.pre, first);
  h = DepthSeparable(w.dds, h, mask, conditioning);
  h = Apply(w.proj, h) * mask;
  const std::int64_t n = first.size(0), c = first.size(1), t = first.size(2);
  h = h.reshape({n, c, -1, t}).permute({0, 1, 3, 2});
  const double root = std::sqrt(static_cast<double>(p.filter_channels));
  const torch::Tensor widths = h.index({"...", Slice(None, p.bins)}) / root;
  const torch::Tensor heights = h.index({"...", Slice(p.bins, 2 * p.bins)}) / root;
  const torch::Tensor derivatives = h.index({"...", Slice(2 * p.bins, None)});
  // In fp32 whatever the model's dtype: in half precision the spline's
  // discriminant can round below zero and its square root give NaN durations
  // (transformers' fp16 fails there too); a no-op for fp32 models.
  const torch::Tensor moved = InverseSpline(second.to(torch::kFloat), widths.to(torch::kFloat),
                                            heights.to(torch::kFloat), derivatives.to(torch::kFloat), p.tail_bound)
                                  .to(second.scalar_type());
  return torch::cat({first, moved}, 1) * mask;
}

torch::Tensor WaveNetForward(const WaveNet& w, torch::Tensor x, const torch::Tensor& mask) {
  torch::Tensor out = torch::zeros_like(x);
  const std::int64_t layers = static_cast<std::int64_t>(w.in_layers.size());
  for (std::int64_t i = 0; i < layers; ++i) {
    const torch::Tensor h = Apply(w.in_layers[static_cast<std::size_t>(i)], x);
    const torch::Tensor acts = torch::tanh(h.narrow(1, 0, w.hidden)) * torch::sigmoid(h.narrow(1, w.hidden, w.hidden));
    const torch::Tensor res_skip = Apply(w.res_skip_layers[static_cast<std::size_t>(i)], acts);
    if (i < layers - 1) {
      x = (x + res_skip.narrow(1, 0, w.hidden)) * mask;
      out = out + res_skip.narrow(1, w.hidden, w.hidden);
    } else {
      out = out + res_skip;
    }
  }
  return out * mask;
}

}  // namespace

torch::Tensor Apply(const Conv& conv, const torch::Tensor& x) {
  if (conv.cudnn) return torch::conv1d(x, conv.weight, conv.bias, 1, conv.padding, conv.dilation, conv.groups);
  return at::_convolution(x, conv.weight, conv.bias, /*stride=*/{1}, {conv.padding}, {conv.dilation},
                          /*transposed=*/false, /*output_padding=*/{0}, conv.groups, /*benchmark=*/false,
                          /*deterministic=*/false, /*cudnn_enabled=*/false, at::globalContext().allowTF32CuDNN());
}

torch::Tensor Apply(const ConvTranspose& conv, const torch::Tensor& x) {
  if (conv.cudnn) return torch::conv_transpose1d(x, conv.weight, conv.bias, conv.stride, conv.padding);
  return at::_convolution(x, conv.weight, conv.bias, {conv.stride}, {conv.padding}, /*dilation=*/{1},
                          /*transposed=*/true, /*output_padding=*/{0}, /*groups=*/1, /*benchmark=*/false,
                          /*deterministic=*/false, /*cudnn_enabled=*/false, at::globalContext().allowTF32CuDNN());
}

torch::Tensor EncoderLayerForward(const EncoderLayer& w, Activation act, const torch::Tensor& x,
                                  const torch::Tensor& mask, const torch::Tensor& additive_mask) {
  torch::Tensor h = LayerNorm(x + AttentionForward(w.attention, x, additive_mask), w.norm);
  return LayerNorm(h + FeedForward(w, act, h, mask), w.final_norm);
}

torch::Tensor StochasticDurations(const StochasticDurationPredictor& w, const torch::Tensor& x,
                                  const torch::Tensor& mask, const torch::Tensor& scaled_noise) {
  torch::Tensor inputs = Apply(w.pre, x);
  inputs = DepthSeparable(w.dds, inputs, mask, {});
  inputs = Apply(w.proj, inputs) * mask;
  // Reverse order (`flows` has no first conv flow: the reference drops it, "a
  // useless vflow"), ending with the elementwise affine flow.
  torch::Tensor latents = scaled_noise;
  for (std::size_t i = w.flows.size(); i-- > 0;) {
    latents = torch::flip(latents, {1});
    latents = ConvFlowReverse(w.flows[i], w, latents, mask, inputs);
  }
  latents = torch::flip(latents, {1});
  latents = (latents - w.translate) * torch::exp(-w.log_scale) * mask;
  return latents.narrow(1, 0, 1);
}

torch::Tensor DeterministicDurations(const DurationPredictor& w, const torch::Tensor& x, const torch::Tensor& mask) {
  torch::Tensor h = ChannelNorm(torch::relu(Apply(w.conv_1, x * mask)), w.norm_1);
  h = ChannelNorm(torch::relu(Apply(w.conv_2, h * mask)), w.norm_2);
  return Apply(w.proj, h * mask) * mask;
}

torch::Tensor InverseSpline(const torch::Tensor& x, const torch::Tensor& unnormalized_widths,
                            const torch::Tensor& unnormalized_heights, const torch::Tensor& unnormalized_derivatives,
                            double tail_bound) {
  constexpr double kMinBinWidth = 1e-3, kMinBinHeight = 1e-3, kMinDerivative = 1e-3;
  const double lower = -tail_bound, upper = tail_bound;
  const torch::Tensor inside = (x >= lower).logical_and(x <= upper);
  // Outside the interval the transform is the identity; inside, the spline is
  // evaluated on the clamped input (the same value there).
  const torch::Tensor inputs = x.clamp(lower, upper);
  const std::int64_t bins = unnormalized_widths.size(-1);

  torch::Tensor derivatives_raw = torch::constant_pad_nd(unnormalized_derivatives, {1, 1});
  const double edge = std::log(std::exp(1 - kMinDerivative) - 1);
  derivatives_raw.index_put_({"...", 0}, edge);
  derivatives_raw.index_put_({"...", -1}, edge);

  auto cumulative = [&](const torch::Tensor& unnormalized, double min_size) {
    torch::Tensor sizes = torch::softmax(unnormalized, -1);
    sizes = min_size + (1 - min_size * static_cast<double>(bins)) * sizes;
    torch::Tensor cum = torch::constant_pad_nd(torch::cumsum(sizes, -1), {1, 0}, 0.0);
    cum = (upper - lower) * cum + lower;
    cum.index_put_({"...", 0}, lower);
    cum.index_put_({"...", -1}, upper);
    return cum;
  };
  const torch::Tensor cumwidths = cumulative(unnormalized_widths, kMinBinWidth);
  const torch::Tensor widths = cumwidths.index({"...", Slice(1, None)}) - cumwidths.index({"...", Slice(None, -1)});
  const torch::Tensor derivatives = kMinDerivative + torch::softplus(derivatives_raw);
  torch::Tensor cumheights = cumulative(unnormalized_heights, kMinBinHeight);
  const torch::Tensor heights = cumheights.index({"...", Slice(1, None)}) - cumheights.index({"...", Slice(None, -1)});

  cumheights.index({"...", -1}).add_(1e-6);  // the reference nudges its bin edges in place
  const torch::Tensor bin = ((inputs.unsqueeze(-1) >= cumheights).sum(-1) - 1).unsqueeze(-1);
  auto at = [&](const torch::Tensor& t) { return t.gather(-1, bin).select(-1, 0); };
  const torch::Tensor input_cumwidths = at(cumwidths);
  const torch::Tensor input_bin_widths = at(widths);
  const torch::Tensor input_cumheights = at(cumheights);
  const torch::Tensor delta = heights / widths;
  const torch::Tensor input_delta = at(delta);
  const torch::Tensor input_derivatives = at(derivatives);
  const torch::Tensor input_derivatives_plus_one = at(derivatives.index({"...", Slice(1, None)}));
  const torch::Tensor input_heights = at(heights);

  const torch::Tensor intermediate1 = input_derivatives + input_derivatives_plus_one - 2 * input_delta;
  const torch::Tensor intermediate2 = inputs - input_cumheights;
  const torch::Tensor intermediate3 = intermediate2 * intermediate1;
  const torch::Tensor a = input_heights * (input_delta - input_derivatives) + intermediate3;
  const torch::Tensor b = input_heights * input_derivatives - intermediate3;
  const torch::Tensor c = -input_delta * intermediate2;
  const torch::Tensor discriminant = b.pow(2) - 4 * a * c;
  const torch::Tensor root = (2 * c) / (-b - torch::sqrt(discriminant));
  const torch::Tensor outputs = root * input_bin_widths + input_cumwidths;
  return torch::where(inside, outputs, x);
}

torch::Tensor FlowReverse(const std::vector<CouplingLayer>& flows, const torch::Tensor& x, const torch::Tensor& mask) {
  torch::Tensor latents = x;
  for (auto flow = flows.rbegin(); flow != flows.rend(); ++flow) {
    latents = torch::flip(latents, {1});
    const std::int64_t half = latents.size(1) / 2;
    const torch::Tensor first = latents.narrow(1, 0, half), second = latents.narrow(1, half, half);
    torch::Tensor h = Apply(flow->pre, first) * mask;
    h = WaveNetForward(flow->wavenet, h, mask);
    const torch::Tensor mean = Apply(flow->post, h) * mask;
    // The reference's log-stddev is zero here: exp(-0) scales by exactly 1.
    latents = torch::cat({first, (second - mean) * mask}, 1);
  }
  return latents;
}

namespace {

// Input samples either side that one output sample of `conv` reads.
double Reach(const Conv& conv) {
  const std::int64_t span = conv.dilation * (conv.weight.size(2) - 1);
  return static_cast<double>(std::max(conv.padding, span - conv.padding));
}

// Input samples either side that one output sample of `conv` reads: output o
// takes inputs i with i * stride - padding <= o < i * stride - padding + kernel.
double Reach(const ConvTranspose& conv) {
  return std::ceil(static_cast<double>(conv.weight.size(2) + conv.padding) / static_cast<double>(conv.stride));
}

}  // namespace

std::int64_t FlowReachFrames(const std::vector<CouplingLayer>& flows) {
  double reach = 0;
  for (const CouplingLayer& flow : flows) {
    reach += Reach(flow.pre) + Reach(flow.post);
    for (const Conv& conv : flow.wavenet.in_layers) reach += Reach(conv);
    for (const Conv& conv : flow.wavenet.res_skip_layers) reach += Reach(conv);
  }
  return static_cast<std::int64_t>(std::ceil(reach)) + 1;
}

std::int64_t HifiGanReachFrames(const HifiGan& w) {
  double samples_per_frame = 1, reach = Reach(w.pre);
  const std::size_t kernels = w.upsamplers.empty() ? 0 : w.blocks.size() / w.upsamplers.size();
  for (std::size_t i = 0; i < w.upsamplers.size(); ++i) {
    reach += Reach(w.upsamplers[i]) / samples_per_frame;
    samples_per_frame *= static_cast<double>(w.upsamplers[i].stride);
    double deepest = 0;  // the blocks run side by side, each a chain
    for (std::size_t j = 0; j < kernels; ++j) {
      const ResidualBlock& block = w.blocks[i * kernels + j];
      double chain = 0;
      for (const Conv& conv : block.convs_1) chain += Reach(conv);
      for (const Conv& conv : block.convs_2) chain += Reach(conv);
      deepest = std::max(deepest, chain);
    }
    reach += deepest / samples_per_frame;
  }
  reach += Reach(w.post) / samples_per_frame;
  return static_cast<std::int64_t>(std::ceil(reach)) + 1;
}

torch::Tensor HifiGanForward(const HifiGan& w, const torch::Tensor& spectrogram, const torch::Tensor& frame_mask) {
  // The mask at each resolution: the frames', then repeated per upsampling.
  std::vector<torch::Tensor> masks;
  if (frame_mask.defined()) {
    masks.push_back(frame_mask);
    for (const ConvTranspose& up : w.upsamplers) {
      const torch::Tensor& m = masks.back();
      masks.push_back(m.unsqueeze(-1).expand({m.size(0), m.size(1), m.size(2), up.stride}).reshape(
          {m.size(0), m.size(1), m.size(2) * up.stride}));
    }
  }
  auto activate = [&](const torch::Tensor& x, std::size_t level, double slope) {
    const torch::Tensor y = torch::leaky_relu(x, slope);
    return masks.empty() ? y : y * masks[level];
  };
  torch::Tensor h = Apply(w.pre, spectrogram);
  const std::size_t kernels = w.blocks.size() / w.upsamplers.size();
  for (std::size_t i = 0; i < w.upsamplers.size(); ++i) {
    h = Apply(w.upsamplers[i], activate(h, i, w.leaky_relu_slope));
    torch::Tensor sum;
    for (std::size_t j = 0; j < kernels; ++j) {
      const ResidualBlock& block = w.blocks[i * kernels + j];
      torch::Tensor r = h;
      for (std::size_t k = 0; k < block.convs_1.size(); ++k) {
        torch::Tensor y = Apply(block.convs_1[k], activate(r, i + 1, w.leaky_relu_slope));
        if (!block.convs_2.empty()) y = Apply(block.convs_2[k], activate(y, i + 1, w.leaky_relu_slope));
        r = y + r;
      }
      sum = j == 0 ? r : sum + r;
    }
    h = sum / static_cast<double>(kernels);
  }
  h = Apply(w.post, activate(h, w.upsamplers.size(), 0.01));  // the reference's default slope, 0.01
  return torch::tanh(h);
}

}  // namespace lingcast::neural::vits
