// WhisperFeatures: the log-mel front-end of Whisper, computing what transformers'
// WhisperFeatureExtractor computes (its torch path).
//
// 16 kHz audio is padded with zeros (or cut) to the window (30 s), framed by a
// centred STFT (n_fft 400, hop 160, periodic Hann window, reflect padding), the
// last frame dropped (3000 frames), the power spectrum projected onto a Slaney-
// style mel filterbank (80 or 128 filters up to 8 kHz, area-normalized; computed
// here in double precision), log10 of it clamped at 1e-10, floored at 8 below its
// maximum, and scaled as (x + 4) / 4.
#pragma once

#include <cstdint>
#include <string>

#include <torch/types.h>
#include <torch/utils.h>

namespace lingcast::neural {

struct WhisperFeatureOptions {
  std::int64_t num_mel_bins = 80;
  std::int64_t n_fft = 400;
  std::int64_t hop_length = 160;
  std::int64_t sampling_rate = 16000;
  std::int64_t chunk_length = 30;  // seconds in a window
};

class WhisperFeatures {
 public:
  explicit WhisperFeatures(const WhisperFeatureOptions& options = {});
  // preprocessor_config.json when the directory has one (feature_size, n_fft,
  // hop_length, sampling_rate, chunk_length), else the defaults with `num_mel_bins`.
  static WhisperFeatures Load(const std::string& dir, std::int64_t num_mel_bins);

  // The filterbank, (n_fft / 2 + 1, num_mel_bins) float64, as mel_filter_bank
  // returns it.
  const torch::Tensor& mel_filters() const { return mel_filters_; }
  const WhisperFeatureOptions& options() const { return options_; }
  std::int64_t window_samples() const { return options_.chunk_length * options_.sampling_rate; }
  std::int64_t window_frames() const { return window_samples() / options_.hop_length; }

  // Mono float samples at sampling_rate (at most a window; more is cut) ->
  // (num_mel_bins, window_frames) float32 log-mel features on the CPU.
  torch::Tensor Compute(const float* samples, std::int64_t count) const;

 private:
  WhisperFeatureOptions options_;
  torch::Tensor mel_filters_;   // float64
  torch::Tensor filters_t_;     // (mels, freqs) float32: what multiplies the spectrum
  torch::Tensor window_;
};

}  // namespace lingcast::neural
