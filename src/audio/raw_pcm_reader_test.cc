#include "audio/raw_pcm_reader.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "audio/test_audio.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::lingcast::testing::Interleave;
using ::lingcast::testing::Rms;
using ::lingcast::testing::Sine;
using ::lingcast::testing::ToneFrequency;
using ::testing::HasSubstr;

std::string S16Bytes(const std::vector<float>& samples) {
  std::string out;
  for (float s : samples) {
    const auto v = static_cast<int16_t>(std::lround(std::clamp(s, -1.0f, 1.0f) * 32767.0f));
    out.push_back(static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>((v >> 8) & 0xff));
  }
  return out;
}

std::string F32Bytes(const std::vector<float>& samples) {
  std::string out;
  for (float s : samples) {
    uint32_t bits;
    std::memcpy(&bits, &s, 4);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
  return out;
}

// Reads everything; the chunk sizes are checked against `max_chunk`.
std::vector<float> ReadAll(RawPcmReader& reader, MediaTime max_chunk = MediaTime::Millis(100)) {
  std::vector<float> out;
  AudioBuffer chunk;
  while (true) {
    auto more = reader.Read(chunk, max_chunk);
    EXPECT_OK(more);
    if (!more.ok() || !*more) break;
    EXPECT_EQ(chunk.channels, 1);
    EXPECT_LE(chunk.frames(), max_chunk.ToSamples(chunk.sample_rate));
    out.insert(out.end(), chunk.samples.begin(), chunk.samples.end());
  }
  return out;
}

TEST(RawPcmReaderTest, S16MonoAtTheOutputRateIsExact) {
  std::vector<float> samples = Sine(440.0, 0.5, 16000, 8000);
  std::istringstream in(S16Bytes(samples));
  auto reader = RawPcmReader::Create(in, RawPcmConfig{});
  ASSERT_OK(reader);
  const std::vector<float> out = ReadAll(*reader);
  ASSERT_EQ(out.size(), samples.size());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], samples[i], 1.0f / 32768.0f) << i;
  EXPECT_EQ(reader->dropped_trailing_bytes(), 0);
  EXPECT_EQ(reader->position(), MediaTime::Millis(500));
}

TEST(RawPcmReaderTest, F32StereoAt48kBecomesMono16k) {
  const std::vector<float> left = Sine(440.0, 0.6, 48000, 48000);
  const std::vector<float> right(left.size(), 0.0f);
  std::istringstream in(F32Bytes(Interleave({left, right})));
  RawPcmConfig config;
  config.format = PcmFormat::kF32LE;
  config.sample_rate = 48000;
  config.channels = 2;
  auto reader = RawPcmReader::Create(in, config);
  ASSERT_OK(reader);
  const std::vector<float> out = ReadAll(*reader, MediaTime::Millis(30));
  EXPECT_NEAR(static_cast<double>(out.size()), 16000.0, 1.0);
  const std::span<const float> middle = std::span<const float>(out).subspan(1000, 14000);
  EXPECT_NEAR(ToneFrequency(middle, 16000), 440.0, 0.5);
  EXPECT_NEAR(Rms(middle), 0.3 / std::sqrt(2.0), 0.002);  // the average of 0.6 and silence
}

TEST(RawPcmReaderTest, S16Stereo48kBecomesMono16k) {
  const std::vector<float> tone = Sine(1000.0, 0.5, 48000, 24000);
  std::istringstream in(S16Bytes(Interleave({tone, tone})));
  RawPcmConfig config;
  config.sample_rate = 48000;
  config.channels = 2;
  auto reader = RawPcmReader::Create(in, config);
  ASSERT_OK(reader);
  const std::vector<float> out = ReadAll(*reader);
  EXPECT_NEAR(static_cast<double>(out.size()), 8000.0, 1.0);
  EXPECT_NEAR(ToneFrequency(std::span<const float>(out).subspan(500, 7000), 16000), 1000.0, 1.0);
}

TEST(RawPcmReaderTest, TrailingPartialFrameIsDroppedAndCounted) {
  // 100 whole stereo s16 frames (4 bytes each) and 3 bytes of a 101st.
  std::string bytes = S16Bytes(Interleave({Sine(440.0, 0.5, 16000, 100), Sine(440.0, 0.5, 16000, 100)}));
  bytes += std::string("\x01\x02\x03", 3);
  std::istringstream in(bytes);
  RawPcmConfig config;
  config.channels = 2;
  auto reader = RawPcmReader::Create(in, config);
  ASSERT_OK(reader);
  EXPECT_EQ(ReadAll(*reader).size(), 100u);
  EXPECT_EQ(reader->dropped_trailing_bytes(), 3);
}

TEST(RawPcmReaderTest, NonFiniteFloatsBecomeSilenceAndAreCounted) {
  std::vector<float> samples(160, 0.25f);
  samples[10] = std::numeric_limits<float>::quiet_NaN();
  samples[20] = std::numeric_limits<float>::infinity();
  samples[30] = 3.0f;  // finite but too loud: clipped
  std::istringstream in(F32Bytes(samples));
  RawPcmConfig config;
  config.format = PcmFormat::kF32LE;
  auto reader = RawPcmReader::Create(in, config);
  ASSERT_OK(reader);
  const std::vector<float> out = ReadAll(*reader);
  ASSERT_EQ(out.size(), 160u);
  EXPECT_EQ(out[10], 0.0f);
  EXPECT_EQ(out[20], 0.0f);
  EXPECT_EQ(out[30], 1.0f);
  EXPECT_EQ(out[40], 0.25f);
  EXPECT_EQ(reader->nonfinite_samples(), 2);
}

TEST(RawPcmReaderTest, EmptyStreamEndsAtOnce) {
  std::istringstream in("");
  auto reader = RawPcmReader::Create(in, RawPcmConfig{});
  ASSERT_OK(reader);
  AudioBuffer chunk;
  auto more = reader->Read(chunk);
  ASSERT_OK(more);
  EXPECT_FALSE(*more);
  EXPECT_TRUE(chunk.empty());
}

TEST(RawPcmReaderTest, BadSettingsAreRejectedNamingTheValue) {
  std::istringstream in("");
  RawPcmConfig config;
  config.channels = 0;
  auto no_channels = RawPcmReader::Create(in, config, "-");
  ASSERT_FALSE(no_channels.ok());
  EXPECT_EQ(no_channels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(no_channels.status().message(), "-: raw PCM channel count 0 is outside 1..64");

  config = RawPcmConfig{};
  config.sample_rate = 0;
  auto no_rate = RawPcmReader::Create(in, config, "mic.raw");
  ASSERT_FALSE(no_rate.ok());
  EXPECT_THAT(no_rate.status().message(), HasSubstr("mic.raw: raw PCM sample rate 0"));

  config = RawPcmConfig{};
  config.output_rate = -5;
  auto bad_output = RawPcmReader::Create(in, config, "mic.raw");
  ASSERT_FALSE(bad_output.ok());
  EXPECT_EQ(bad_output.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_output.status().message(), HasSubstr("output rate -5"));
}

TEST(RawPcmReaderTest, FormatNames) {
  EXPECT_EQ(*ParsePcmFormat("s16le"), PcmFormat::kS16LE);
  EXPECT_EQ(*ParsePcmFormat("F32LE"), PcmFormat::kF32LE);
  EXPECT_STREQ(PcmFormatName(PcmFormat::kF32LE), "f32le");
  auto bad = ParsePcmFormat("s24be");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "unknown raw PCM format 's24be' (expected s16le or f32le)");
}

}  // namespace
}  // namespace lingcast
