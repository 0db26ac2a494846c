#include "neural/vits/vits_model.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <functional>
#include <mutex>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"
#include "neural/vits/vits_layers.h"

namespace lingcast::neural {

struct VitsModel::Weights {
  torch::Tensor embed;  // (vocab, hidden)
  std::vector<vits::EncoderLayer> layers;
  vits::Conv project;
  vits::StochasticDurationPredictor stochastic;
  vits::DurationPredictor deterministic;
  std::vector<vits::CouplingLayer> flows;
  vits::HifiGan decoder;
};

namespace {

using Shape = std::vector<std::int64_t>;
// Weight name + expected shape -> tensor (on the device, in the dtype).
using WeightSource = std::function<torch::Tensor(const std::string&, const Shape&)>;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Builds the weights from a source, naming tensors as transformers' VitsModel does.
class Builder {
 public:
  Builder(const VitsConfig& c, const WeightSource& source, bool cudnn) : c_(c), w_(source), cudnn_(cudnn) {}

  std::unique_ptr<VitsModel::Weights> Build() {
    auto m = std::make_unique<VitsModel::Weights>();
    const std::int64_t h = c_.hidden_size;
    m->embed = w_("text_encoder.embed_tokens.weight", {c_.vocab_size, h});
    for (std::int64_t i = 0; i < c_.num_hidden_layers; ++i) m->layers.push_back(EncoderLayer(i));
    m->project = Conv("text_encoder.project", 2 * c_.flow_size, h, 1);
    if (c_.use_stochastic_duration_prediction) {
      m->stochastic = Stochastic();
    } else {
      m->deterministic = Deterministic();
    }
    for (std::int64_t i = 0; i < c_.prior_encoder_num_flows; ++i) m->flows.push_back(Coupling(i));
    m->decoder = Decoder();
    return m;
  }

 private:
  vits::Conv Conv(const std::string& p, std::int64_t out, std::int64_t in, std::int64_t kernel, std::int64_t padding = 0,
                  std::int64_t dilation = 1, std::int64_t groups = 1, bool bias = true) {
    return vits::Conv{w_(p + ".weight", {out, in / groups, kernel}), bias ? w_(p + ".bias", {out}) : torch::Tensor(),
                      padding, dilation, groups, cudnn_};
  }
  LinearWeights Linear(const std::string& p, std::int64_t out, std::int64_t in) {
    return LinearWeights{w_(p + ".weight", {out, in}), c_.use_bias ? w_(p + ".bias", {out}) : torch::Tensor()};
  }
  LayerNormWeights Norm(const std::string& p, std::int64_t dim, double eps) {
    return LayerNormWeights{w_(p + ".weight", {dim}), w_(p + ".bias", {dim}), eps};
  }

  vits::EncoderLayer EncoderLayer(std::int64_t i) {
    const std::string p = "text_encoder.encoder.layers." + std::to_string(i);
    const std::int64_t h = c_.hidden_size, head_dim = h / c_.num_attention_heads, k = c_.ffn_kernel_size;
    vits::EncoderLayer l;
    l.attention.q = Linear(p + ".attention.q_proj", h, h);
    l.attention.k = Linear(p + ".attention.k_proj", h, h);
    l.attention.v = Linear(p + ".attention.v_proj", h, h);
    l.attention.out = Linear(p + ".attention.out_proj", h, h);
    l.attention.heads = c_.num_attention_heads;
    l.attention.window = c_.window_size;
    if (c_.window_size > 0) {
      l.attention.rel_k = w_(p + ".attention.emb_rel_k", {1, 2 * c_.window_size + 1, head_dim});
      l.attention.rel_v = w_(p + ".attention.emb_rel_v", {1, 2 * c_.window_size + 1, head_dim});
    }
    l.norm = Norm(p + ".layer_norm", h, c_.layer_norm_eps);
    l.ffn_1 = Conv(p + ".feed_forward.conv_1", c_.ffn_dim, h, k);
    l.ffn_2 = Conv(p + ".feed_forward.conv_2", h, c_.ffn_dim, k);
    if (k > 1) {
      l.ffn_pad_left = (k - 1) / 2;
      l.ffn_pad_right = k / 2;
    }
    l.final_norm = Norm(p + ".final_layer_norm", h, c_.layer_norm_eps);
    return l;
  }

  vits::DepthSeparableConv DepthSeparable(const std::string& p) {
    const std::int64_t h = c_.hidden_size, k = c_.duration_predictor_kernel_size;
    vits::DepthSeparableConv d;
    std::int64_t dilation = 1;
    for (std::int64_t i = 0; i < c_.depth_separable_num_layers; ++i, dilation *= k) {
      const std::string n = std::to_string(i);
      d.dilated.push_back(Conv(p + ".convs_dilated." + n, h, h, k, (k * dilation - dilation) / 2, dilation, h));
      d.pointwise.push_back(Conv(p + ".convs_pointwise." + n, h, h, 1));
      d.norms_1.push_back(Norm(p + ".norms_1." + n, h, 1e-5));  // nn.LayerNorm's default eps there
      d.norms_2.push_back(Norm(p + ".norms_2." + n, h, 1e-5));
    }
    return d;
  }

  vits::StochasticDurationPredictor Stochastic() {
    const std::string p = "duration_predictor";
    const std::int64_t h = c_.hidden_size, bins = c_.duration_predictor_flow_bins;
    vits::StochasticDurationPredictor s;
    s.pre = Conv(p + ".conv_pre", h, h, 1);
    s.proj = Conv(p + ".conv_proj", h, h, 1);
    s.dds = DepthSeparable(p + ".conv_dds");
    s.translate = w_(p + ".flows.0.translate", {2, 1});
    s.log_scale = w_(p + ".flows.0.log_scale", {2, 1});
    // The first conv flow (transformers' flows.1) is never used at inference (the
    // reference drops it in reverse: "a useless vflow"), and Piper's export leaves
    // it out, so it is not loaded.
    for (std::int64_t i = 2; i <= c_.duration_predictor_num_flows; ++i) {
      const std::string f = p + ".flows." + std::to_string(i);
      s.flows.push_back(vits::ConvFlow{Conv(f + ".conv_pre", h, 1, 1), Conv(f + ".conv_proj", bins * 3 - 1, h, 1),
                                       DepthSeparable(f + ".conv_dds")});
    }
    s.bins = bins;
    s.tail_bound = c_.duration_predictor_tail_bound;
    s.filter_channels = h;
    return s;
  }

  vits::DurationPredictor Deterministic() {
    const std::string p = "duration_predictor";
    const std::int64_t h = c_.hidden_size, f = c_.duration_predictor_filter_channels,
                       k = c_.duration_predictor_kernel_size;
    return vits::DurationPredictor{Conv(p + ".conv_1", f, h, k, k / 2), Conv(p + ".conv_2", f, f, k, k / 2),
                                   Conv(p + ".proj", 1, f, 1), Norm(p + ".norm_1", f, c_.layer_norm_eps),
                                   Norm(p + ".norm_2", f, c_.layer_norm_eps)};
  }

  vits::CouplingLayer Coupling(std::int64_t i) {
    const std::string p = "flow.flows." + std::to_string(i);
    const std::int64_t h = c_.hidden_size, half = c_.flow_size / 2, k = c_.wavenet_kernel_size;
    vits::CouplingLayer l;
    l.pre = Conv(p + ".conv_pre", h, half, 1);
    l.post = Conv(p + ".conv_post", half, h, 1);
    l.wavenet.hidden = h;
    std::int64_t dilation = 1;
    for (std::int64_t j = 0; j < c_.prior_encoder_num_wavenet_layers; ++j, dilation *= c_.wavenet_dilation_rate) {
      const std::string n = std::to_string(j);
      l.wavenet.in_layers.push_back(
          Conv(p + ".wavenet.in_layers." + n, 2 * h, h, k, (k * dilation - dilation) / 2, dilation));
      const bool last = j == c_.prior_encoder_num_wavenet_layers - 1;
      l.wavenet.res_skip_layers.push_back(Conv(p + ".wavenet.res_skip_layers." + n, last ? h : 2 * h, h, 1));
    }
    return l;
  }

  vits::HifiGan Decoder() {
    vits::HifiGan d;
    std::int64_t channels = c_.upsample_initial_channel;
    d.pre = Conv("decoder.conv_pre", channels, c_.flow_size, 7, 3);
    const std::size_t kernels = c_.resblock_kernel_sizes.size();
    for (std::size_t i = 0; i < c_.upsample_rates.size(); ++i) {
      const std::int64_t rate = c_.upsample_rates[i], k = c_.upsample_kernel_sizes[i], out = channels / 2;
      const std::string p = "decoder.upsampler." + std::to_string(i);
      d.upsamplers.push_back(vits::ConvTranspose{w_(p + ".weight", {channels, out, k}), w_(p + ".bias", {out}), rate,
                                                 (k - rate) / 2, cudnn_});
      channels = out;
      for (std::size_t j = 0; j < kernels; ++j) {
        const std::string b = "decoder.resblocks." + std::to_string(i * kernels + j);
        const std::int64_t rk = c_.resblock_kernel_sizes[j];
        vits::ResidualBlock block;
        for (std::size_t n = 0; n < c_.resblock_dilation_sizes[j].size(); ++n) {
          const std::int64_t dilation = c_.resblock_dilation_sizes[j][n];
          block.convs_1.push_back(Conv(b + ".convs1." + std::to_string(n), channels, channels, rk,
                                       (rk * dilation - dilation) / 2, dilation));
          if (c_.resblock_type == 1) {
            block.convs_2.push_back(Conv(b + ".convs2." + std::to_string(n), channels, channels, rk, (rk - 1) / 2));
          }
        }
        d.blocks.push_back(std::move(block));
      }
    }
    d.post = Conv("decoder.conv_post", 1, channels, 7, 3, 1, 1, /*bias=*/false);
    d.leaky_relu_slope = c_.leaky_relu_slope;
    return d;
  }

  const VitsConfig& c_;
  const WeightSource& w_;
  bool cudnn_;
};

std::string ShapeOf(const torch::Tensor& t) { return ShapeString(t.sizes().vec()); }

torch::Tensor CheckedNoise(const torch::Tensor& noise, const Shape& shape, const char* what,
                           const torch::TensorOptions& options) {
  if (!noise.defined()) Fail(ErrorCode::kInvalidArgument, std::string("replayed noise: no ") + what + " noise given");
  if (noise.sizes().vec() != shape) {
    Fail(ErrorCode::kInvalidArgument, std::string("replayed noise: the ") + what + " noise has shape " + ShapeOf(noise) +
                                          ", this synthesis draws " + ShapeString(shape));
  }
  return noise.to(options);
}

void CheckIds(const torch::Tensor& input_ids, std::int64_t vocab_size) {
  if (input_ids.numel() == 0) return;
  const std::int64_t low = input_ids.min().item<std::int64_t>(), high = input_ids.max().item<std::int64_t>();
  if (low < 0 || high >= vocab_size) {
    Fail(ErrorCode::kInvalidArgument, "token id " + std::to_string(low < 0 ? low : high) +
                                          " is outside the model's vocabulary of " + std::to_string(vocab_size));
  }
}

// Graph buckets: tokens in steps of 16, frames in steps of 32 (0.5 s of audio at
// mms-tts-eng's hop of 256 samples), coarser past 16 steps (core/graph_cache.h);
// graphs kept per model, the least recently used dropped past that.
constexpr std::int64_t kTokenStep = 16, kFrameStep = 32;
constexpr std::size_t kGraphsPerModel = 48;

}  // namespace

VitsModel::VitsModel() = default;
VitsModel::~VitsModel() = default;

std::shared_ptr<const VitsModel> VitsModel::Load(const std::string& dir, const VitsModelOptions& options) {
  torch::NoGradGuard no_grad;
  const VitsConfig config = LoadVitsConfig(dir);
  const Checkpoint checkpoint = Checkpoint::Open(dir);
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  const auto fold_options = torch::TensorOptions().dtype(torch::kFloat);
  // Weight norm (w = g * v / |v|, norms over all but the first dimension) is folded
  // here, once, in fp32 with the function PyTorch's parametrization itself calls.
  const WeightSource weight = [&](const std::string& name, const Shape& shape) {
    if (checkpoint.Contains(name) || !EndsWith(name, ".weight")) return checkpoint.LoadWeight(name, shape, tensor_options);
    const std::string stem = name.substr(0, name.size() - 7);
    const std::pair<std::string, std::string> forms[] = {
        {stem + ".weight_g", stem + ".weight_v"},
        {stem + ".parametrizations.weight.original0", stem + ".parametrizations.weight.original1"}};
    for (const auto& [g_name, v_name] : forms) {
      if (!checkpoint.Contains(g_name) && !checkpoint.Contains(v_name)) continue;
      Shape g_shape(shape.size(), 1);
      g_shape[0] = shape[0];
      const torch::Tensor g = checkpoint.LoadWeight(g_name, g_shape, fold_options);
      const torch::Tensor v = checkpoint.LoadWeight(v_name, shape, fold_options);
      return torch::_weight_norm(v, g, 0).to(tensor_options);
    }
    return checkpoint.LoadWeight(name, shape, tensor_options);  // kNotFound naming it
  };
  std::shared_ptr<VitsModel> model(new VitsModel());
  model->config_ = config;
  model->options_ = options;
  model->weights_ = Builder(config, weight, options.cudnn_convolutions).Build();
  return model;
}

std::shared_ptr<const VitsModel> VitsModel::Random(const VitsConfig& config, const VitsModelOptions& options,
                                                   std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  ValidateVitsConfig(config, "random VITS config");
  auto generator = at::detail::createCPUGenerator(seed);
  const auto tensor_options = torch::TensorOptions().dtype(options.dtype).device(options.device);
  const WeightSource weight = [&](const std::string& name, const Shape& shape) {
    auto constant = [&](double value) { return torch::full(shape, value).to(tensor_options); };
    const bool norm = name.find("norm") != std::string::npos;
    if (EndsWith(name, ".bias")) return constant(0.0);
    if (norm) return constant(1.0);
    // As the fixtures do: log-durations of about one (a few frames a token).
    if (EndsWith(name, "translate")) return constant(-1.0);
    if (EndsWith(name, "log_scale")) return constant(1.2);
    std::int64_t fan_in = 1;
    for (std::size_t i = 1; i < shape.size(); ++i) fan_in *= shape[i];
    if (name.find("upsampler") != std::string::npos) fan_in = shape[0] * shape[2];  // transposed: (in, out, k)
    const double std = name.find("embed") != std::string::npos ? std::pow(static_cast<double>(shape[1]), -0.5)
                                                                  : std::pow(static_cast<double>(fan_in), -0.5);
    return at::normal(0.0, std, shape, generator).to(tensor_options);
  };
  std::shared_ptr<VitsModel> model(new VitsModel());
  model->config_ = config;
  model->options_ = options;
  model->weights_ = Builder(config, weight, options.cudnn_convolutions).Build();
  return model;
}

VitsTextEncoding VitsModel::EncodeText(const torch::Tensor& input_ids, const torch::Tensor& attention_mask) const {
  torch::NoGradGuard no_grad;
  if (input_ids.dim() != 2) Fail(ErrorCode::kInvalidArgument, "input_ids has shape " + ShapeOf(input_ids) + ", expected (N, T)");
  CheckIds(input_ids, config_.vocab_size);
  const torch::Tensor ids = input_ids.to(options_.device);
  const torch::Tensor keep = attention_mask.defined() ? attention_mask.to(options_.device) : torch::ones_like(ids);
  return Encode(ids, keep, attention_mask.defined());
}

VitsTextEncoding VitsModel::Encode(const torch::Tensor& ids, const torch::Tensor& keep, bool masked) const {
  const auto float_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  const torch::Tensor mask = keep.unsqueeze(-1).to(float_options);  // (N, T, 1)
  const torch::Tensor additive = masked ? PaddingMask(keep.to(torch::kBool), options_.dtype) : torch::Tensor();
  torch::Tensor h = torch::embedding(weights_->embed, ids) * std::sqrt(static_cast<double>(config_.hidden_size));
  h = h * mask;
  for (const auto& layer : weights_->layers) h = vits::EncoderLayerForward(layer, config_.hidden_act, h, mask, additive);
  h = h * mask;
  const torch::Tensor stats = vits::Apply(weights_->project, h.transpose(1, 2)).transpose(1, 2) * mask;
  return VitsTextEncoding{h, stats.narrow(2, 0, config_.flow_size), stats.narrow(2, config_.flow_size, config_.flow_size)};
}

std::vector<torch::Tensor> VitsModel::EncodeAndPredict(const torch::Tensor& ids, const torch::Tensor& keep, bool masked,
                                                       const torch::Tensor& scaled_noise) const {
  const VitsTextEncoding text = Encode(ids, keep, masked);
  const torch::Tensor hidden = text.hidden.transpose(1, 2);
  const torch::Tensor input_mask = keep.unsqueeze(1).to(options_.dtype);  // (N, 1, T)
  const torch::Tensor log_duration =
      config_.use_stochastic_duration_prediction
          ? vits::StochasticDurations(weights_->stochastic, hidden, input_mask, scaled_noise)
          : vits::DeterministicDurations(weights_->deterministic, hidden, input_mask);
  return {text.prior_means, text.prior_log_variances, torch::exp(log_duration) * input_mask};
}

torch::Tensor VitsModel::Decode(const torch::Tensor& prior, const torch::Tensor& flow_mask,
                                const torch::Tensor& decoder_mask) const {
  const torch::Tensor latents = vits::FlowReverse(weights_->flows, prior, flow_mask);
  return vits::HifiGanForward(weights_->decoder, latents * flow_mask, decoder_mask);
}

bool VitsModel::UseGraphs() const { return options_.cuda_graphs && GraphCache::Supported(options_.device); }

std::vector<torch::Tensor> VitsModel::TextStageGraph(const std::vector<torch::Tensor>& inputs, bool masked) const {
  const std::string key = "VITS text " + std::to_string(inputs[0].size(0)) + "x" + std::to_string(inputs[0].size(1)) +
                          (masked ? " masked" : "");
  return graphs_->Run(key, inputs, [&](const std::vector<torch::Tensor>& in) {
    return EncodeAndPredict(in[0], in[1], masked, in.size() > 2 ? in[2] : torch::Tensor());
  });
}

torch::Tensor VitsModel::DecodeStageGraph(const std::vector<torch::Tensor>& inputs) const {
  const std::string key = "VITS decode " + std::to_string(inputs[0].size(0)) + "x" + std::to_string(inputs[0].size(2));
  return graphs_->Run(key, inputs, [&](const std::vector<torch::Tensor>& in) {
    return std::vector<torch::Tensor>{Decode(in[0], in[1], in[2])};
  })[0];
}

std::int64_t VitsModel::WarmGraphs(const VitsWarmup& warmup) const {
  torch::NoGradGuard no_grad;
  if (!UseGraphs()) return 0;
  std::lock_guard<std::mutex> lock(graphs_mutex_);
  if (!graphs_) graphs_ = std::make_unique<GraphCache>(kGraphsPerModel, options_.graph_cache_bytes);
  const std::int64_t captured_before = graphs_->stats().captured;
  const auto float_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(options_.device);
  // Each bucket once, the largest first: graphs share one pool, and a smaller
  // stage recorded after a larger one fits in the blocks the larger one freed
  // (recorded smallest first, each would add segments of its own: measured
  // 1788 MiB of pool for the 30 default buckets, against the largest stage's
  // worth). Placeholder inputs: the first real token with its last position
  // padded (the key a padded line takes: " masked"), zero noise; all-ones masks
  // and a zero prior for the decoder.
  auto buckets_down_from = [](std::int64_t most, std::int64_t step) {
    std::vector<std::int64_t> buckets;
    for (std::int64_t t = 1; t <= most; t = BucketLength(t, step) + 1) buckets.push_back(BucketLength(t, step));
    return std::vector<std::int64_t>(buckets.rbegin(), buckets.rend());
  };
  for (const std::int64_t padded : buckets_down_from(warmup.max_frames, kFrameStep)) {
    const std::vector<torch::Tensor> inputs = {torch::zeros({1, config_.flow_size, padded}, float_options),
                                               torch::ones({1, 1, padded}, float_options),
                                               torch::ones({1, 1, padded}, float_options)};
    for (int pass = 0; pass < 2; ++pass) DecodeStageGraph(inputs);
  }
  for (const std::int64_t padded : buckets_down_from(warmup.max_tokens, kTokenStep)) {
    torch::Tensor keep = torch::ones({1, padded}, long_options);
    keep.narrow(1, padded - 1, 1).fill_(0);
    std::vector<torch::Tensor> inputs = {torch::full({1, padded}, std::min<std::int64_t>(1, config_.vocab_size - 1), long_options), keep};
    if (config_.use_stochastic_duration_prediction) inputs.push_back(torch::zeros({1, 2, padded}, float_options));
    for (int pass = 0; pass < 2; ++pass) TextStageGraph(inputs, /*masked=*/true);
  }
  // (Each capture already gave back what its eager first run left cached.)
  return graphs_->stats().captured - captured_before;
}

GraphCacheStats VitsModel::graph_stats() const {
  std::lock_guard<std::mutex> lock(graphs_mutex_);
  return graphs_ ? graphs_->stats() : GraphCacheStats{};
}

VitsModel::Prior VitsModel::SamplePrior(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                        const VitsSynthesisOptions& options, bool graphs) const {
  if (input_ids.dim() != 2 || input_ids.size(1) == 0) {
    Fail(ErrorCode::kInvalidArgument, "input_ids has shape " + ShapeOf(input_ids) + ": nothing to say");
  }
  CheckIds(input_ids, config_.vocab_size);
  const double rate = options.speaking_rate.value_or(config_.speaking_rate);
  const double noise_scale = options.noise_scale.value_or(config_.noise_scale);
  const double noise_scale_duration = options.noise_scale_duration.value_or(config_.noise_scale_duration);
  if (!(rate > 0) || !std::isfinite(rate)) {
    Fail(ErrorCode::kInvalidArgument, "speaking rate " + std::to_string(rate) + " is not a positive number");
  }
  const std::int64_t n = input_ids.size(0), t = input_ids.size(1);
  const auto float_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  const auto long_options = torch::TensorOptions().dtype(torch::kLong).device(options_.device);
  auto generator = at::detail::createCPUGenerator(options.seed);
  // Drawn on the CPU in fp32 as the reference's torch.randn draws its duration
  // noise, then moved; replayed noise replaces the draws.
  auto noise = [&](const Shape& shape, const torch::Tensor& replay, const char* what) {
    if (options.noise != nullptr) return CheckedNoise(replay, shape, what, float_options);
    return torch::randn(shape, generator, torch::kFloat).to(float_options);
  };

  // With graphs, token and frame counts are padded to buckets; `masked` says
  // whether the text encoder needs its attention mask (padding or the caller's).
  const std::int64_t padded_t = graphs ? BucketLength(t, kTokenStep) : t;
  const bool masked = attention_mask.defined() || padded_t > t;
  torch::Tensor keep = attention_mask.defined() ? attention_mask.to(long_options) : torch::ones({n, t}, long_options);
  torch::Tensor ids = input_ids.to(options_.device);
  torch::Tensor scaled_noise;
  if (config_.use_stochastic_duration_prediction) {
    const torch::Tensor drawn = noise({n, 2, t}, options.noise ? options.noise->duration : torch::Tensor(), "duration");
    scaled_noise = drawn * noise_scale_duration;  // as the reference scales its draws
  }
  std::vector<torch::Tensor> encoded;
  if (graphs) {
    const std::int64_t pad = padded_t - t;
    ids = torch::constant_pad_nd(ids, {0, pad});
    keep = torch::constant_pad_nd(keep, {0, pad});
    std::vector<torch::Tensor> inputs = {ids, keep};
    if (scaled_noise.defined()) inputs.push_back(torch::constant_pad_nd(scaled_noise, {0, pad}));
    encoded = TextStageGraph(inputs, masked);
  } else {
    encoded = EncodeAndPredict(ids, keep, masked, scaled_noise);
  }
  const torch::Tensor duration = torch::ceil(encoded[2].narrow(2, 0, t) * (1.0 / rate));  // (N, 1, T)
  // One wait for the device: the durations size the output. A model in half
  // precision can overflow here; a non-finite duration must not become a frame count.
  const torch::Tensor host_duration = duration.squeeze(1).to(torch::kCPU, torch::kFloat);
  const double longest = host_duration.numel() > 0 ? host_duration.max().item<double>() : 0.0;
  if (!torch::isfinite(host_duration).all().item<bool>() || longest > 1e5) {
    Fail(ErrorCode::kInternal, "the duration predictor gave a non-finite or absurd duration (max " +
                                   std::to_string(longest) + " frames): the weights or dtype are unsuitable");
  }
  const torch::Tensor durations = host_duration.to(torch::kLong);
  const torch::Tensor predicted = durations.sum(1).clamp_min(1);
  const std::int64_t frames = predicted.max().item<std::int64_t>();
  const std::int64_t padded_frames = graphs ? BucketLength(frames, kFrameStep) : frames;

  // Each frame takes its token's prior (what the reference's one-hot alignment
  // matrix multiplication selects); frames past a row's tokens take zeros.
  torch::Tensor token_of_frame = torch::zeros({n, padded_frames}, torch::kLong);
  torch::Tensor aligned = torch::zeros({n, padded_frames, 1}, torch::kFloat);
  for (std::int64_t b = 0; b < n; ++b) {
    const torch::Tensor row = torch::repeat_interleave(torch::arange(t, torch::kLong), durations[b]);
    token_of_frame[b].narrow(0, 0, row.size(0)).copy_(row);
    aligned[b].narrow(0, 0, row.size(0)).fill_(1.0);
  }
  const torch::Tensor index = token_of_frame.to(options_.device).unsqueeze(-1).expand({n, padded_frames, config_.flow_size});
  const torch::Tensor keep_frame = aligned.to(float_options);
  const torch::Tensor means = (encoded[0].gather(1, index) * keep_frame).transpose(1, 2);
  const torch::Tensor log_variances = (encoded[1].gather(1, index) * keep_frame).transpose(1, 2);
  const torch::Tensor frame_positions = torch::arange(padded_frames, torch::kLong).unsqueeze(0);
  const torch::Tensor flow_mask = (frame_positions < predicted.unsqueeze(1)).unsqueeze(1).to(float_options);
  torch::Tensor prior_noise =
      noise({n, config_.flow_size, frames}, options.noise ? options.noise->prior : torch::Tensor(), "prior");
  if (padded_frames > frames) prior_noise = torch::constant_pad_nd(prior_noise, {0, padded_frames - frames});
  Prior out;
  out.prior = means + prior_noise * torch::exp(log_variances) * noise_scale;
  out.flow_mask = flow_mask;
  out.durations = durations;
  out.predicted = predicted;
  out.frames = frames;
  out.padded_frames = padded_frames;
  return out;
}

VitsOutput VitsModel::Synthesize(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                 const VitsSynthesisOptions& options) const {
  torch::NoGradGuard no_grad;
  const bool graphs = UseGraphs();
  std::unique_lock<std::mutex> lock(graphs_mutex_, std::defer_lock);
  if (graphs) {
    lock.lock();
    if (!graphs_) graphs_ = std::make_unique<GraphCache>(kGraphsPerModel, options_.graph_cache_bytes);
  }
  const Prior sampled = SamplePrior(input_ids, attention_mask, options, graphs);
  const torch::Tensor& prior = sampled.prior;
  const torch::Tensor& flow_mask = sampled.flow_mask;
  const std::int64_t n = input_ids.size(0), frames = sampled.frames;
  const auto float_options = torch::TensorOptions().dtype(options_.dtype).device(options_.device);
  VitsOutput out;
  if (graphs) {
    // Every row's decoder sees the batch's frames, as unpadded (the reference
    // decodes the padded batch whole).
    const torch::Tensor frame_positions = torch::arange(sampled.padded_frames, torch::kLong).unsqueeze(0);
    const torch::Tensor decoder_mask = (frame_positions < frames).unsqueeze(1).to(float_options);
    const torch::Tensor decoded = DecodeStageGraph({prior, flow_mask, decoder_mask});
    out.waveform = decoded.narrow(2, 0, frames * config_.hop_length()).squeeze(1).clone();
  } else {
    out.waveform = Decode(prior, flow_mask, {}).squeeze(1);
  }
  out.durations = sampled.durations;
  for (std::int64_t b = 0; b < n; ++b) {
    out.lengths.push_back(sampled.predicted[b].item<std::int64_t>() * config_.hop_length());
  }
  return out;
}

std::pair<std::int64_t, std::int64_t> VitsModel::context_frames() const {
  return {vits::FlowReachFrames(weights_->flows), vits::HifiGanReachFrames(weights_->decoder)};
}

void VitsModel::SynthesizeInChunks(const torch::Tensor& input_ids, const VitsSynthesisOptions& options,
                                   const VocoderChunking& chunking, const VitsChunkSink& sink) const {
  torch::NoGradGuard no_grad;
  if (input_ids.dim() != 2 || input_ids.size(0) != 1) {
    Fail(ErrorCode::kInvalidArgument, "streamed synthesis takes one row of ids, not " + ShapeOf(input_ids));
  }
  ChunkFrames(0, chunking);  // bad chunking is refused on every path
  const std::int64_t hop = config_.hop_length();
  if (UseGraphs()) {
    const VitsOutput whole = Synthesize(input_ids, {}, options);
    sink(whole.durations, whole.waveform[0].narrow(0, 0, whole.lengths[0]).to(torch::kFloat).cpu().contiguous());
    return;
  }
  const Prior sampled = SamplePrior(input_ids, {}, options, /*graphs=*/false);
  const std::int64_t frames = sampled.frames;
  const auto [flow_reach, decoder_reach] = context_frames();
  // Flow latents, valid on [0, valid_end): the first chunk's reach first, then the rest.
  std::vector<torch::Tensor> latent_parts;
  std::int64_t valid_end = 0;
  auto extend_latents = [&](std::int64_t until) {
    if (until <= valid_end) return;
    const std::int64_t begin = std::max<std::int64_t>(0, valid_end - flow_reach);
    const std::int64_t end = std::min(frames, until + flow_reach);
    const torch::Tensor mask = sampled.flow_mask.narrow(2, begin, end - begin);
    const torch::Tensor latents = vits::FlowReverse(weights_->flows, sampled.prior.narrow(2, begin, end - begin), mask) * mask;
    latent_parts.push_back(latents.narrow(2, valid_end - begin, until - valid_end));
    valid_end = until;
  };
  torch::Tensor latents;  // all of them, once the rest is done
  DecodeWithContext(
      frames, decoder_reach, hop, chunking,
      [&](std::int64_t context_begin, std::int64_t context_end) {
        if (latent_parts.empty()) {
          extend_latents(context_end);  // the first chunk: only the flow it needs
        } else if (!latents.defined()) {
          extend_latents(frames);
          latents = latent_parts.size() == 1 ? latent_parts[0] : torch::cat(latent_parts, 2);
        }
        const torch::Tensor& valid = latents.defined() ? latents : latent_parts[0];
        return vits::HifiGanForward(weights_->decoder, valid.narrow(2, context_begin, context_end - context_begin), {});
      },
      [&](const torch::Tensor& samples) { return sink(sampled.durations, samples); });
}

}  // namespace lingcast::neural
