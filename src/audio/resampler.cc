#include "audio/resampler.h"

#include <soxr.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

constexpr int kMaxRate = 1'000'000;

unsigned long SoxrRecipe(ResampleQuality quality) {
  switch (quality) {
    case ResampleQuality::kQuick: return SOXR_QQ;
    case ResampleQuality::kLow: return SOXR_LQ;
    case ResampleQuality::kMedium: return SOXR_MQ;
    case ResampleQuality::kHigh: return SOXR_HQ;
    case ResampleQuality::kVeryHigh: return SOXR_VHQ;
  }
  return SOXR_HQ;
}

}  // namespace

void Resampler::SoxrDeleter::operator()(::soxr* handle) const { soxr_delete(handle); }

absl::StatusOr<Resampler> Resampler::Create(int input_rate, int output_rate,
                                            ResampleQuality quality) {
  if (input_rate < 1 || input_rate > kMaxRate) {
    return absl::InvalidArgumentError(
        absl::StrCat("resampler: input rate ", input_rate, " Hz is outside 1..", kMaxRate));
  }
  if (output_rate < 1 || output_rate > kMaxRate) {
    return absl::InvalidArgumentError(
        absl::StrCat("resampler: output rate ", output_rate, " Hz is outside 1..", kMaxRate));
  }
  if (input_rate == output_rate) return Resampler(input_rate, output_rate, nullptr);

  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t q = soxr_quality_spec(SoxrRecipe(quality), 0);
  soxr_error_t error = nullptr;
  SoxrPtr soxr(soxr_create(input_rate, output_rate, /*num_channels=*/1, &error, &io, &q,
                           /*runtime_spec=*/nullptr));
  if (error != nullptr || soxr == nullptr) {
    return absl::InternalError(absl::StrCat("resampler: soxr_create(", input_rate, " -> ",
                                            output_rate, " Hz) failed: ",
                                            error ? error : "unknown error"));
  }
  return Resampler(input_rate, output_rate, std::move(soxr));
}

Resampler::Resampler(int input_rate, int output_rate, SoxrPtr soxr)
    : input_rate_(input_rate), output_rate_(output_rate), soxr_(std::move(soxr)) {}

Resampler::Resampler(Resampler&&) noexcept = default;
Resampler& Resampler::operator=(Resampler&&) noexcept = default;
Resampler::~Resampler() = default;

absl::Status Resampler::Push(std::span<const float> input, std::vector<float>& output) {
  if (flushed_) return absl::FailedPreconditionError("resampler: Push after Flush");
  input_samples_ += static_cast<int64_t>(input.size());
  if (!soxr_) {
    output.insert(output.end(), input.begin(), input.end());
    output_samples_ += static_cast<int64_t>(input.size());
    return absl::OkStatus();
  }
  // soxr may take less than all of the input when the output space runs out, so
  // feed it until every input sample is consumed.
  const double ratio = static_cast<double>(output_rate_) / input_rate_;
  size_t consumed = 0;
  while (consumed < input.size()) {
    const size_t remaining = input.size() - consumed;
    const size_t space = static_cast<size_t>(static_cast<double>(remaining) * ratio) + 64;
    const size_t old_size = output.size();
    output.resize(old_size + space);
    size_t in_done = 0;
    size_t out_done = 0;
    soxr_error_t error = soxr_process(soxr_.get(), input.data() + consumed, remaining, &in_done,
                                      output.data() + old_size, space, &out_done);
    output.resize(old_size + out_done);
    output_samples_ += static_cast<int64_t>(out_done);
    if (error != nullptr) {
      return absl::InternalError(absl::StrCat("resampler: soxr_process failed: ", error));
    }
    consumed += in_done;
  }
  return absl::OkStatus();
}

absl::Status Resampler::Flush(std::vector<float>& output) {
  if (flushed_) return absl::OkStatus();
  flushed_ = true;
  if (!soxr_) return absl::OkStatus();
  // A null input tells soxr the stream has ended; it then drains its delay line
  // over as many calls as the output space needs.
  constexpr size_t kSpace = 4096;
  while (true) {
    const size_t old_size = output.size();
    output.resize(old_size + kSpace);
    size_t out_done = 0;
    soxr_error_t error =
        soxr_process(soxr_.get(), nullptr, 0, nullptr, output.data() + old_size, kSpace, &out_done);
    output.resize(old_size + out_done);
    output_samples_ += static_cast<int64_t>(out_done);
    if (error != nullptr) {
      return absl::InternalError(absl::StrCat("resampler: soxr flush failed: ", error));
    }
    if (out_done == 0) break;
  }
  return absl::OkStatus();
}

}  // namespace lingcast
