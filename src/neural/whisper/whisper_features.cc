#include "neural/whisper/whisper_features.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

// The Slaney mel scale: linear below 1 kHz, logarithmic above.
constexpr double kMinLogHertz = 1000.0;
constexpr double kMinLogMel = 15.0;
// 27 mels per factor 6.4 in frequency above 1 kHz.
double HertzToMel(double hz) {
  if (hz >= kMinLogHertz) return kMinLogMel + std::log(hz / kMinLogHertz) * (27.0 / std::log(6.4));
  return 3.0 * hz / 200.0;
}

double MelToHertz(double mel) {
  if (mel >= kMinLogMel) return kMinLogHertz * std::exp((std::log(6.4) / 27.0) * (mel - kMinLogMel));
  return 200.0 * mel / 3.0;
}

// Triangles between consecutive mel-spaced frequencies, each scaled to unit
// area (Slaney's normalization): (freqs, mels).
torch::Tensor MelFilterBank(std::int64_t freqs, std::int64_t mels, double sampling_rate, double max_hz) {
  std::vector<double> edges(static_cast<std::size_t>(mels + 2));
  const double mel_min = HertzToMel(0.0), mel_max = HertzToMel(max_hz);
  for (std::int64_t i = 0; i < mels + 2; ++i) {
    const double mel = mel_min + (mel_max - mel_min) * static_cast<double>(i) / static_cast<double>(mels + 1);
    edges[static_cast<std::size_t>(i)] = MelToHertz(mel);
  }
  const double nyquist = std::floor(sampling_rate / 2.0);
  torch::Tensor bank = torch::zeros({freqs, mels}, torch::kDouble);
  auto a = bank.accessor<double, 2>();
  for (std::int64_t f = 0; f < freqs; ++f) {
    const double hz = nyquist * static_cast<double>(f) / static_cast<double>(freqs - 1);
    for (std::int64_t m = 0; m < mels; ++m) {
      const auto i = static_cast<std::size_t>(m);
      const double down = (hz - edges[i]) / (edges[i + 1] - edges[i]);
      const double up = (edges[i + 2] - hz) / (edges[i + 2] - edges[i + 1]);
      const double weight = std::max(0.0, std::min(down, up));
      a[f][m] = weight * 2.0 / (edges[i + 2] - edges[i]);
    }
  }
  return bank;
}

}  // namespace

WhisperFeatures::WhisperFeatures(const WhisperFeatureOptions& options) : options_(options) {
  if (options.num_mel_bins < 1 || options.n_fft < 2 || options.hop_length < 1 || options.sampling_rate < 1 ||
      options.chunk_length < 1) {
    Fail(ErrorCode::kInvalidArgument, "feature extractor settings must be positive (num_mel_bins " +
                                          std::to_string(options.num_mel_bins) + ", n_fft " + std::to_string(options.n_fft) +
                                          ", hop_length " + std::to_string(options.hop_length) + ")");
  }
  mel_filters_ = MelFilterBank(options.n_fft / 2 + 1, options.num_mel_bins, static_cast<double>(options.sampling_rate), 8000.0);
  filters_t_ = mel_filters_.to(torch::kFloat).t().contiguous();
  window_ = torch::hann_window(options.n_fft, torch::kFloat);  // periodic
}

WhisperFeatures WhisperFeatures::Load(const std::string& dir, std::int64_t num_mel_bins) {
  WhisperFeatureOptions o;
  o.num_mel_bins = num_mel_bins;
  const std::string path = (std::filesystem::path(dir) / "preprocessor_config.json").string();
  std::ifstream in(path);
  if (in) {
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) Fail(ErrorCode::kInvalidArgument, path + ": not a JSON object");
    auto field = [&](const char* key, std::int64_t fallback) {
      if (!j.contains(key)) return fallback;
      if (!j[key].is_number_integer()) Fail(ErrorCode::kInvalidArgument, path + ": field \"" + key + "\" is not an integer");
      return j[key].get<std::int64_t>();
    };
    o.num_mel_bins = field("feature_size", o.num_mel_bins);
    o.n_fft = field("n_fft", o.n_fft);
    o.hop_length = field("hop_length", o.hop_length);
    o.sampling_rate = field("sampling_rate", o.sampling_rate);
    o.chunk_length = field("chunk_length", o.chunk_length);
    if (o.num_mel_bins != num_mel_bins) {
      Fail(ErrorCode::kInvalidArgument, path + ": feature_size " + std::to_string(o.num_mel_bins) +
                                            " differs from config.json's num_mel_bins " + std::to_string(num_mel_bins));
    }
  }
  return WhisperFeatures(o);
}

torch::Tensor WhisperFeatures::Compute(const float* samples, std::int64_t count) const {
  torch::NoGradGuard no_grad;
  const std::int64_t n = window_samples();
  torch::Tensor audio = torch::zeros({n}, torch::kFloat);
  const std::int64_t used = std::min(std::max<std::int64_t>(count, 0), n);
  if (used > 0) audio.narrow(0, 0, used).copy_(torch::from_blob(const_cast<float*>(samples), {used}, torch::kFloat));
  const torch::Tensor stft = torch::stft(audio, options_.n_fft, options_.hop_length, options_.n_fft, window_,
                                         /*center=*/true, "reflect", /*normalized=*/false, /*onesided=*/true,
                                         /*return_complex=*/true);
  const torch::Tensor power = stft.narrow(1, 0, stft.size(1) - 1).abs().pow(2).contiguous();
  torch::Tensor log_spec = torch::matmul(filters_t_, power).clamp_min(1e-10).log10();
  log_spec = torch::maximum(log_spec, log_spec.max() - 8.0);
  return (log_spec + 4.0) / 4.0;
}

}  // namespace lingcast::neural
