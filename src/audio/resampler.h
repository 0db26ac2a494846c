// Resampler: streaming sample-rate conversion of mono float audio with libsoxr.
//
// Push() input as it arrives and get whatever output is ready; Flush() at the end
// drains the filter's delay line, so the total output is the input length times
// output_rate / input_rate (rounded) with nothing lost at the tail. Equal rates
// pass samples through untouched (no filter, no delay).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

struct soxr;  // libsoxr's handle (soxr_t); soxr.h stays out of this header

namespace lingcast {

// soxr's quality recipes; kHigh (soxr's default, 20-bit precision) is plenty for
// speech and costs little more than kMedium.
enum class ResampleQuality { kQuick, kLow, kMedium, kHigh, kVeryHigh };

class Resampler {
 public:
  // InvalidArgument when a rate is not in 1..1'000'000 Hz.
  static absl::StatusOr<Resampler> Create(int input_rate, int output_rate,
                                          ResampleQuality quality = ResampleQuality::kHigh);

  Resampler(Resampler&&) noexcept;
  Resampler& operator=(Resampler&&) noexcept;
  ~Resampler();

  // Appends the output made ready by `input` to `output`.
  absl::Status Push(std::span<const float> input, std::vector<float>& output);
  // Appends the rest of the output (the filter's tail). Push after Flush is an error.
  absl::Status Flush(std::vector<float>& output);

  int input_rate() const { return input_rate_; }
  int output_rate() const { return output_rate_; }
  int64_t input_samples() const { return input_samples_; }
  int64_t output_samples() const { return output_samples_; }

 private:
  struct SoxrDeleter {
    void operator()(::soxr* handle) const;
  };
  using SoxrPtr = std::unique_ptr<::soxr, SoxrDeleter>;
  Resampler(int input_rate, int output_rate, SoxrPtr soxr);

  int input_rate_ = 0;
  int output_rate_ = 0;
  SoxrPtr soxr_;  // null when the rates are equal
  int64_t input_samples_ = 0;
  int64_t output_samples_ = 0;
  bool flushed_ = false;
};

}  // namespace lingcast
