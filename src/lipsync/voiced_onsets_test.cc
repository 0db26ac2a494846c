#include "lipsync/voiced_onsets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <string>

#include "audio/audio_decoder.h"
#include "core/status_matchers.h"
#include "lipsync/test_signals.h"

namespace lingcast {
namespace {

TEST(VoicedOnsetsTest, OtherRatesAreRejected) {
  absl::StatusOr<VoicedSpeech> speech = FindVoicedSpeech(AudioBuffer::Silence(MediaTime::Seconds(1), 48000));
  ASSERT_FALSE(speech.ok());
  EXPECT_EQ(speech.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(speech.status().message().find("48000 Hz"), std::string::npos) << speech.status();
}

TEST(VoicedOnsetsTest, SilenceAndNoiseHaveNoSpeech) {
  absl::StatusOr<VoicedSpeech> speech = FindVoicedSpeech(AudioBuffer::Silence(MediaTime::Seconds(1), 16000));
  ASSERT_OK(speech);
  EXPECT_TRUE(speech->onsets.empty());
  SignalBuilder noise;
  noise.Noise(MediaTime::Seconds(2), -50, 3);
  speech = FindVoicedSpeech(noise.audio());
  ASSERT_OK(speech);
  EXPECT_TRUE(speech->onsets.empty());
}

// Room noise, a hum, a breath, a pause, then a fricative joined to a vowel: the
// onset is the fricative's start, not the hum's or the breath's.
TEST(VoicedOnsetsTest, OnsetIsTheConsonantJoinedToTheVoiceNotHumOrBreath) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(500), -60, 1);
  b.Hum(MediaTime::Millis(300), -52);  // 60 Hz mains with harmonics
  b.Noise(MediaTime::Millis(200), -60, 2);
  b.Breath(MediaTime::Millis(300), -50);
  b.Noise(MediaTime::Millis(250), -60, 4);
  const MediaTime fricative = b.now();
  b.Hiss(MediaTime::Millis(80), -34);
  b.Vowel(MediaTime::Millis(300), 150, -20);
  const MediaTime vowel_end = b.now();
  b.Noise(MediaTime::Millis(500), -60, 5);
  absl::StatusOr<VoicedSpeech> speech = FindVoicedSpeech(b.audio());
  ASSERT_OK(speech);
  ASSERT_EQ(speech->onsets.size(), 1u);
  EXPECT_NEAR(speech->onsets[0].micros(), fricative.micros(), 20000);
  EXPECT_NEAR(speech->segments[0].second.micros(), vowel_end.micros(), 30000);
  EXPECT_FALSE(speech->InSpeech(MediaTime::Millis(650)));  // the hum
  EXPECT_FALSE(speech->InSpeech(MediaTime::Millis(1150)));  // the breath
}

TEST(VoicedOnsetsTest, PausesShorterThanMinPauseDoNotStartSpeech) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(400), -60, 1);
  b.Vowel(MediaTime::Millis(200), 200, -20);
  b.Noise(MediaTime::Millis(100), -60, 2);  // a stop closure
  b.Vowel(MediaTime::Millis(200), 200, -20);
  b.Noise(MediaTime::Millis(300), -60, 3);  // a pause
  const MediaTime second = b.now();
  b.Vowel(MediaTime::Millis(200), 120, -22);
  b.Noise(MediaTime::Millis(300), -60, 4);
  absl::StatusOr<VoicedSpeech> speech = FindVoicedSpeech(b.audio());
  ASSERT_OK(speech);
  ASSERT_EQ(speech->onsets.size(), 2u);
  EXPECT_NEAR(speech->onsets[0].micros(), 400000, 20000);
  EXPECT_NEAR(speech->onsets[1].micros(), second.micros(), 20000);
}

// en-jfk at 5.31 s: the WebRTC VAD fires on a -40 dBFS hum; the voice starts at
// about 5.41 s (level +15 dB, periodicity 0.8).
TEST(VoicedOnsetsTest, RealRecordingHumBeforeTheVoiceIsNotAnOnset) {
  const std::filesystem::path path =
      std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech" / "en-jfk.wav";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found (../shared/data holds the recordings)";
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(path.string(), 16000);
  ASSERT_OK(audio);
  absl::StatusOr<VoicedSpeech> speech = FindVoicedSpeech(*audio);
  ASSERT_OK(speech);
  bool at_voice = false;
  for (MediaTime onset : speech->onsets) {
    EXPECT_FALSE(onset >= MediaTime::Millis(5200) && onset < MediaTime::Millis(5380)) << onset.ToString();
    at_voice |= onset >= MediaTime::Millis(5380) && onset <= MediaTime::Millis(5440);
  }
  EXPECT_TRUE(at_voice);
  EXPECT_GE(speech->onsets.size(), 4u);  // phrases after pauses of 150 ms or more
}

}  // namespace
}  // namespace lingcast
