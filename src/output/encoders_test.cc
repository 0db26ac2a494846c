// The encoders alone, feeding a sink that records packets: what a second
// output (HLS, RTMP) would receive from the same encode.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/audio_encoder.h"
#include "output/test_util.h"
#include "output/video_encoder.h"

namespace lingcast {
namespace {

using testing_util::MakeFrame;
using testing_util::MakeNoiseFrame;
using testing_util::StatusIs;
using testing_util::MakeTone;

struct Recorded {
  int64_t pts, dts;
  bool key;
};

VideoEncoderOptions Small() {
  VideoEncoderOptions options;
  options.width = 64;
  options.height = 48;
  options.preset = "ultrafast";
  options.threads = 1;
  return options;
}

class EncodersTest : public ::testing::Test {
 protected:
  ScopedLibavLogLevel quiet_{AV_LOG_ERROR};
};

// Bytes of frames [from, to) of a noise encode that starts at 2 Mbit/s and is
// retargeted to `lowered` bit/s at frame 60 (0: never).
int64_t NoiseBytes(int64_t lowered, int from, int to, int* keyframes_after_change = nullptr) {
  VideoEncoderOptions options = Small();
  options.width = 320;
  options.height = 180;
  options.tune = "zerolatency";
  options.bitrate = 2'000'000;
  options.keyframe_interval_s = 10.0;
  auto encoder = VideoEncoder::Create(options);
  EXPECT_OK(encoder);
  if (!encoder.ok()) return 0;
  int64_t bytes = 0;
  int keyframes = 0;
  int frame = 0;
  auto sink = [&](AVPacket& p) {
    if (p.pts >= from && p.pts < to) bytes += p.size;
    if (p.pts > 60 && (p.flags & AV_PKT_FLAG_KEY)) ++keyframes;
    return absl::OkStatus();
  };
  for (frame = 0; frame < to; ++frame) {
    if (frame == 60 && lowered > 0) {
      EXPECT_OK((*encoder)->SetBitrate(lowered));
    }
    EXPECT_OK((*encoder)->Encode(MakeNoiseFrame(320, 180, frame), frame, sink));
  }
  EXPECT_OK((*encoder)->Flush(sink));
  if (keyframes_after_change) *keyframes_after_change = keyframes;
  return bytes;
}

TEST_F(EncodersTest, SetBitrateRetargetsTheEncodeMidStreamWithoutAKeyframe) {
  const int64_t kept = NoiseBytes(0, 90, 150);
  int keyframes = -1;
  const int64_t lowered = NoiseBytes(400'000, 90, 150, &keyframes);
  // 2 s at 2 Mbit/s is about 500 KB; at 400 kbit/s about 100 KB (VBV allows some slack).
  EXPECT_GT(kept, 350'000);
  EXPECT_LT(lowered, 160'000);
  EXPECT_EQ(keyframes, 0);
}

TEST_F(EncodersTest, SetBitrateRefusesACrfEncodeAndANonsenseRate) {
  auto crf = VideoEncoder::Create(Small());
  ASSERT_OK(crf);
  EXPECT_THAT((*crf)->SetBitrate(500'000), StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::HasSubstr("CRF")));
  VideoEncoderOptions options = Small();
  options.bitrate = 500'000;
  auto rate = VideoEncoder::Create(options);
  ASSERT_OK(rate);
  EXPECT_THAT((*rate)->SetBitrate(10), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("10 bit/s")));
  EXPECT_EQ((*rate)->bitrate(), 500'000);
}

TEST_F(EncodersTest, VideoKeyframesFollowTheIntervalInSeconds) {
  VideoEncoderOptions options = Small();
  options.keyframe_interval_s = 1.0;  // 30 frames at 30 fps
  auto encoder = VideoEncoder::Create(options);
  ASSERT_OK(encoder);
  std::vector<Recorded> packets;
  auto sink = [&](AVPacket& p) {
    packets.push_back({p.pts, p.dts, (p.flags & AV_PKT_FLAG_KEY) != 0});
    return absl::OkStatus();
  };
  for (int i = 0; i < 90; ++i) ASSERT_OK((*encoder)->Encode(MakeFrame(64, 48, i), i, sink));
  ASSERT_OK((*encoder)->Flush(sink));

  ASSERT_EQ(packets.size(), 90u);
  std::vector<int64_t> keyframes;
  for (const Recorded& p : packets) {
    if (p.key) keyframes.push_back(p.pts);
  }
  EXPECT_THAT(keyframes, ::testing::ElementsAre(0, 30, 60));
  EXPECT_EQ((*encoder)->time_base().num, 1);
  EXPECT_EQ((*encoder)->time_base().den, 30);
  EXPECT_GT((*encoder)->codec_context().extradata_size, 0) << "SPS/PPS in the global header";
}

TEST_F(EncodersTest, ASinkErrorStopsTheEncodeAndComesBack) {
  auto encoder = VideoEncoder::Create(Small());
  ASSERT_OK(encoder);
  auto failing = [](AVPacket&) { return absl::UnavailableError("network down"); };
  absl::Status status;
  for (int i = 0; i < 10 && status.ok(); ++i) status = (*encoder)->Encode(MakeFrame(64, 48, i), i, failing);
  if (status.ok()) status = (*encoder)->Flush(failing);
  EXPECT_EQ(status, absl::UnavailableError("network down"));
}

TEST_F(EncodersTest, AnUnknownPresetIsAClearError) {
  VideoEncoderOptions options = Small();
  options.preset = "warpspeed";
  auto encoder = VideoEncoder::Create(options);
  EXPECT_EQ(encoder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(encoder.status().message()), ::testing::HasSubstr("warpspeed"));
}

TEST_F(EncodersTest, AudioTimestampsCountSamplesWithoutGaps) {
  AudioEncoderOptions options;
  options.input_sample_rate = 16000;
  auto encoder = AudioEncoder::Create(options);
  ASSERT_OK(encoder);
  std::vector<Recorded> packets;
  std::vector<int64_t> durations;
  auto sink = [&](AVPacket& p) {
    packets.push_back({p.pts, p.dts, true});
    durations.push_back(p.duration);
    return absl::OkStatus();
  };
  // 0.5 s in buffers of awkward sizes: 8000 input samples -> 24000 at 48 kHz.
  const AudioBuffer tone = MakeTone(0.5, 16000);
  for (size_t offset = 0; offset < tone.samples.size(); offset += 777) {
    AudioBuffer piece;
    piece.sample_rate = 16000;
    piece.samples.assign(tone.samples.begin() + static_cast<std::ptrdiff_t>(offset),
                         tone.samples.begin() + static_cast<std::ptrdiff_t>(std::min(offset + 777, tone.samples.size())));
    ASSERT_OK((*encoder)->Encode(piece, sink));
  }
  ASSERT_OK((*encoder)->Flush(sink));

  EXPECT_EQ((*encoder)->input_samples(), 8000);
  EXPECT_NEAR(static_cast<double>((*encoder)->output_samples()), 24000, 2);
  ASSERT_GE(packets.size(), 2u);
  // Each packet starts where the previous one ended (AAC priming shifts the first to -1024).
  EXPECT_EQ(packets.front().pts, -1024);
  for (size_t i = 1; i < packets.size(); ++i) {
    EXPECT_EQ(packets[i].pts, packets[i - 1].pts + durations[i - 1]) << "packet " << i;
  }
}

}  // namespace
}  // namespace lingcast
