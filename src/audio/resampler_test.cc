#include "audio/resampler.h"

#include <cmath>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "audio/test_audio.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::lingcast::testing::Rms;
using ::lingcast::testing::Sine;
using ::lingcast::testing::ToneFrequency;
using ::testing::HasSubstr;

std::vector<float> ResampleAll(Resampler& resampler, const std::vector<float>& input, size_t piece) {
  std::vector<float> out;
  for (size_t i = 0; i < input.size(); i += piece) {
    const size_t n = std::min(piece, input.size() - i);
    EXPECT_OK(resampler.Push(std::span<const float>(input).subspan(i, n), out));
  }
  EXPECT_OK(resampler.Flush(out));
  return out;
}

TEST(ResamplerTest, DownsamplesKeepingLengthFrequencyAndLevel) {
  auto resampler = Resampler::Create(48000, 16000);
  ASSERT_OK(resampler);
  const std::vector<float> input = Sine(1000.0, 0.5, 48000, 48000);
  const std::vector<float> out = ResampleAll(*resampler, input, 4800);
  EXPECT_EQ(out.size(), 16000u);
  EXPECT_EQ(resampler->input_samples(), 48000);
  EXPECT_EQ(resampler->output_samples(), 16000);
  const std::span<const float> middle = std::span<const float>(out).subspan(1000, 14000);
  EXPECT_NEAR(ToneFrequency(middle, 16000), 1000.0, 0.5);
  EXPECT_NEAR(Rms(middle), 0.5 / std::sqrt(2.0), 0.002);
}

TEST(ResamplerTest, RemovesWhatTheOutputRateCannotCarry) {
  // 7 kHz survives 16 kHz output; 12 kHz (above its 8 kHz Nyquist) must not alias in.
  auto resampler = Resampler::Create(48000, 16000);
  ASSERT_OK(resampler);
  const std::vector<float> out = ResampleAll(*resampler, Sine(12000.0, 0.5, 48000, 48000), 48000);
  EXPECT_LT(Rms(std::span<const float>(out).subspan(1000, 14000)), 0.001);
}

TEST(ResamplerTest, UpsamplesOddRatios) {
  auto resampler = Resampler::Create(22050, 16000, ResampleQuality::kVeryHigh);
  ASSERT_OK(resampler);
  const std::vector<float> out = ResampleAll(*resampler, Sine(440.0, 0.3, 22050, 22050), 1001);
  EXPECT_NEAR(static_cast<double>(out.size()), 16000.0, 1.0);
  EXPECT_NEAR(ToneFrequency(std::span<const float>(out).subspan(1000, 14000), 16000), 440.0, 0.3);
}

TEST(ResamplerTest, ChunkingDoesNotChangeTheOutput) {
  const std::vector<float> input = Sine(523.0, 0.4, 44100, 30000);
  auto whole = Resampler::Create(44100, 16000);
  auto pieces = Resampler::Create(44100, 16000);
  ASSERT_TRUE(whole.ok() && pieces.ok());
  const std::vector<float> a = ResampleAll(*whole, input, input.size());
  const std::vector<float> b = ResampleAll(*pieces, input, 7);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5f) << i;
}

TEST(ResamplerTest, EqualRatesPassThroughExactly) {
  auto resampler = Resampler::Create(16000, 16000);
  ASSERT_OK(resampler);
  const std::vector<float> input = Sine(100.0, 0.9, 16000, 1234);
  std::vector<float> out;
  ASSERT_OK(resampler->Push(input, out));
  EXPECT_EQ(out, input);  // no delay, no filtering
  ASSERT_OK(resampler->Flush(out));
  EXPECT_EQ(out, input);
}

TEST(ResamplerTest, BadRatesAreRejected) {
  for (auto [in, out] : {std::pair{0, 16000}, std::pair{16000, -1}, std::pair{2'000'000, 16000}}) {
    auto resampler = Resampler::Create(in, out);
    ASSERT_FALSE(resampler.ok());
    EXPECT_EQ(resampler.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(resampler.status().message(), HasSubstr("rate"));
  }
}

TEST(ResamplerTest, PushAfterFlushIsAnError) {
  auto resampler = Resampler::Create(8000, 16000);
  ASSERT_OK(resampler);
  std::vector<float> out;
  ASSERT_OK(resampler->Flush(out));
  const std::vector<float> more(10, 0.0f);
  EXPECT_EQ(resampler->Push(more, out).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(ResamplerTest, MovedResamplerKeepsWorking) {
  auto created = Resampler::Create(48000, 16000);
  ASSERT_OK(created);
  Resampler moved = std::move(created).value();
  const std::vector<float> out = ResampleAll(moved, Sine(440.0, 0.5, 48000, 4800), 480);
  EXPECT_EQ(out.size(), 1600u);
}

}  // namespace
}  // namespace lingcast
