#include "output/encoder_options.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

VideoEncoderOptions Video(int width, int height, int fps_num = 30, int fps_den = 1) {
  VideoEncoderOptions options;
  options.width = width;
  options.height = height;
  options.fps_num = fps_num;
  options.fps_den = fps_den;
  return options;
}

void ExpectInvalid(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(), message);
}

TEST(VideoOptionsTest, AcceptsTheUsualSizesAndRates) {
  EXPECT_OK(ValidateVideoOptions(VideoEncoderOptions{}));
  EXPECT_OK(ValidateVideoOptions(Video(1920, 1080, 60)));
  EXPECT_OK(ValidateVideoOptions(Video(3840, 2160, 30000, 1001)));
  EXPECT_OK(ValidateVideoOptions(Video(16, 16, 1)));
  EXPECT_OK(ValidateVideoOptions(Video(7680, 4320, 240)));
}

TEST(VideoOptionsTest, RejectsOddSizesFor420) {
  ExpectInvalid(ValidateVideoOptions(Video(101, 100)),
                "--size 101x100: width and height must be even for H.264 4:2:0");
  ExpectInvalid(ValidateVideoOptions(Video(1280, 721)),
                "--size 1280x721: width and height must be even for H.264 4:2:0");
}

TEST(VideoOptionsTest, RejectsAbsurdSizes) {
  ExpectInvalid(ValidateVideoOptions(Video(0, 0)), "--size 0x0: size must be between 16x16 and 7680x4320");
  ExpectInvalid(ValidateVideoOptions(Video(100000, 100000)),
                "--size 100000x100000: size must be between 16x16 and 7680x4320");
  ExpectInvalid(ValidateVideoOptions(Video(-2, 720)), "--size -2x720: size must be between 16x16 and 7680x4320");
}

TEST(VideoOptionsTest, RejectsAbsurdFrameRates) {
  ExpectInvalid(ValidateVideoOptions(Video(1280, 720, 0)), "--fps 0/1: frame rate must be positive (1 to 240)");
  ExpectInvalid(ValidateVideoOptions(Video(1280, 720, 1000)), "--fps 1000: frame rate must be between 1 and 240");
  ExpectInvalid(ValidateVideoOptions(Video(1280, 720, 1, 2)), "--fps 1/2: frame rate must be between 1 and 240");
}

TEST(VideoOptionsTest, RejectsBadRateControl) {
  VideoEncoderOptions options;
  options.crf = 60;
  ExpectInvalid(ValidateVideoOptions(options), "--crf 60: must be between 0 and 51");
  options = {};
  options.bitrate = -1;
  EXPECT_EQ(ValidateVideoOptions(options).code(), absl::StatusCode::kInvalidArgument);
  options = {};
  options.keyframe_interval_s = 0;
  EXPECT_THAT(std::string(ValidateVideoOptions(options).message()), HasSubstr("keyframe interval"));
}

TEST(VideoOptionsTest, KeyframeIntervalIsInSecondsOfMedia) {
  VideoEncoderOptions options;  // 2 s at 30 fps
  EXPECT_EQ(KeyframeIntervalFrames(options), 60);
  options.fps_num = 30000;
  options.fps_den = 1001;
  EXPECT_EQ(KeyframeIntervalFrames(options), 60);
  options.keyframe_interval_s = 0.01;
  EXPECT_EQ(KeyframeIntervalFrames(options), 1);
}

TEST(VideoOptionsTest, FrameCountCoversTheAudio) {
  VideoEncoderOptions options;  // 30 fps
  EXPECT_EQ(FrameCountFor(MediaTime::Seconds(1), options), 30);
  EXPECT_EQ(FrameCountFor(MediaTime::Micros(1'000'001), options), 31);
  EXPECT_EQ(FrameCountFor(MediaTime::Zero(), options), 0);
  options.fps_num = 30000;
  options.fps_den = 1001;
  EXPECT_EQ(FrameCountFor(MediaTime::Seconds(1001), options), 30000);
}

AudioEncoderOptions Audio(int input_rate) {
  AudioEncoderOptions options;
  options.input_sample_rate = input_rate;
  return options;
}

TEST(AudioOptionsTest, AcceptsSpeechRates) {
  EXPECT_OK(ValidateAudioOptions(Audio(22050)));
  EXPECT_OK(ValidateAudioOptions(Audio(16000)));
  EXPECT_OK(ValidateAudioOptions(Audio(48000)));
}

TEST(AudioOptionsTest, RejectsWhatAacCannotCarry) {
  ExpectInvalid(ValidateAudioOptions(Audio(0)), "audio input sample rate 0 Hz: must be between 8000 and 192000");
  AudioEncoderOptions options = Audio(22050);
  options.output_sample_rate = 47000;
  EXPECT_THAT(std::string(ValidateAudioOptions(options).message()), HasSubstr("47000 Hz"));
  options = Audio(22050);
  options.output_channels = 6;
  EXPECT_THAT(std::string(ValidateAudioOptions(options).message()), HasSubstr("channels 6"));
  options = Audio(22050);
  options.bitrate = 1000;
  EXPECT_THAT(std::string(ValidateAudioOptions(options).message()), HasSubstr("1000 bit/s"));
}

}  // namespace
}  // namespace lingcast
