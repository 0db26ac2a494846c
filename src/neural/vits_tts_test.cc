// VitsTts: the tiny checkpoint behind the TtsEngine interface -- the audio the
// model makes, a phoneme and word track that follows the predicted durations,
// and the settings it cannot honour refused with the value named.
#include "neural/vits_tts.h"

#include "gtest/gtest.h"
#include "neural/test_util.h"

namespace lingcast::neural {
namespace {

using testing::TestdataDir;

std::unique_ptr<VitsTts> Tiny() {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("vits_tiny");
  auto tts = VitsTts::Create(options);
  EXPECT_TRUE(tts.ok()) << tts.status();
  return tts.ok() ? *std::move(tts) : nullptr;
}

TEST(VitsTts, SpeaksWithATrackThatFollowsTheDurations) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  EXPECT_EQ(tts->sample_rate(), 16000);
  EXPECT_EQ(tts->name(), "vits");
  SynthesisRequest request;
  request.text = "Hello big world";
  auto result = tts->Synthesize(request);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->audio.empty());
  // The model's own hop: whole frames of 8 samples.
  EXPECT_EQ(result->audio.samples.size() % 8, 0u);
  ASSERT_EQ(result->track.words.size(), 3u);
  EXPECT_EQ(request.text.substr(result->track.words[1].text_offset, result->track.words[1].text_length), "big");
  EXPECT_EQ(request.text.substr(result->track.words[2].text_offset, result->track.words[2].text_length), "world");
  EXPECT_LT(result->track.words[0].start, result->track.words[1].start);
  EXPECT_LT(result->track.words[2].start, result->audio.duration());
  // One event per character (plus a leading pause for the first blank): h, ɛ, l, l, ɒ, ...
  std::string phonemes;
  for (const auto& p : result->track.phonemes) phonemes += p.phoneme + " ";
  EXPECT_NE(phonemes.find("h ɛ l l ɒ _ b ɪ ɡ _ w ɒ ɹ l d"), std::string::npos) << phonemes;
  for (std::size_t i = 1; i < result->track.phonemes.size(); ++i) {
    EXPECT_LT(result->track.phonemes[i - 1].start, result->track.phonemes[i].start);
  }
}

TEST(VitsTts, SameTextSameAudioAndFasterRateShorter) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "keep it simple";
  auto a = tts->Synthesize(request);
  auto b = tts->Synthesize(request);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->audio.samples, b->audio.samples);
  request.rate = 2.0;
  auto fast = tts->Synthesize(request);
  ASSERT_TRUE(fast.ok());
  EXPECT_LT(fast->audio.samples.size(), a->audio.samples.size());
}

TEST(VitsTts, NothingToSayGivesEmptyAudio) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "... !?";
  auto result = tts->Synthesize(request);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->audio.empty());
  EXPECT_EQ(result->audio.sample_rate, 16000);
}

TEST(VitsTts, SessionsSpeakClausesAndStopWhenCancelled) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  VoiceSettings settings;
  auto session = tts->OpenSession(settings);
  ASSERT_TRUE(session.ok()) << session.status();
  auto clause = (*session)->SynthesizeClause("one clause", Language::kEn);
  ASSERT_TRUE(clause.ok()) << clause.status();
  EXPECT_FALSE(clause->audio.empty());
  (*session)->Cancel();
  EXPECT_TRUE((*session)->cancelled());
  EXPECT_EQ((*session)->SynthesizeClause("another", Language::kEn).status().code(), absl::StatusCode::kCancelled);
}

TEST(VitsTts, RefusesWhatItCannotDo) {
  auto tts = Tiny();
  ASSERT_NE(tts, nullptr);
  SynthesisRequest request;
  request.text = "hello";
  request.voice = "en-gb";
  EXPECT_EQ(tts->Synthesize(request).status().code(), absl::StatusCode::kInvalidArgument);
  request.voice.clear();
  request.pitch = 1.5;
  auto pitch = tts->Synthesize(request);
  EXPECT_NE(pitch.status().message().find("pitch 1.5"), std::string::npos) << pitch.status();
  request.pitch = 1.0;
  request.language = Language::kZh;
  auto zh = tts->Synthesize(request);
  EXPECT_NE(zh.status().message().find("speaks eng, not zh"), std::string::npos) << zh.status();
  VoiceSettings settings;
  settings.rate = -1;
  EXPECT_EQ(tts->OpenSession(settings).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(VitsTts, BadCheckpointIsOneLineNamingIt) {
  VitsTtsOptions options;
  options.model_dir = TestdataDir("marian_tiny");
  auto tts = VitsTts::Create(options);
  ASSERT_FALSE(tts.ok());
  EXPECT_EQ(tts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(tts.status().message().find("not a VITS"), std::string::npos) << tts.status();
  options.model_dir = "/nonexistent/model";
  EXPECT_EQ(VitsTts::Create(options).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace lingcast::neural
