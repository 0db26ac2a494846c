#include "tts/speech_stage.h"

#include <gtest/gtest.h>

#include "core/status_matchers.h"
#include "graph/harness.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

class SpeechStageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EspeakOptions options;
    options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
    auto engine = EspeakEngine::Create(options);
    ASSERT_OK(engine);
    engine_ = std::move(*engine);
  }
  std::unique_ptr<EspeakEngine> engine_;
};

TEST_F(SpeechStageTest, PlacesSpeechAndPausesOnTheAudioTimelineBySampleCount) {
  StageHarness<SpeechStage> h(std::make_unique<SpeechStage>(*engine_, SpeechSettings{}));
  auto feed = h.Feed(h.stage().in);
  auto audio = h.Collect(h.stage().audio);
  auto timing = h.Collect(h.stage().timing);
  feed.Push(PlanItem{Utterance{1, {"大家好", Language::kZh}, {"Hello everyone", Language::kEn}}}, MediaTime::Micros(0));
  feed.Push(PlanItem{PlannedPause{MediaTime::Millis(600)}}, MediaTime::Micros(1));
  feed.Push(PlanItem{Utterance{3, {"Welcome to the show", Language::kEn}, {}}}, MediaTime::Micros(2));
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_TRUE(h.stage().speech_done());

  const auto a = audio.Packets();
  const auto t = timing.Packets();
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(t.size(), 3u);
  // Contiguous: each packet starts where the previous ended; no gaps, no overlap.
  EXPECT_EQ(a[0].pts, MediaTime::Zero());
  int64_t samples = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].pts, MediaTime::FromSamples(samples, engine_->sample_rate())) << i;
    samples += a[i].value.frames();
    EXPECT_EQ(a[i].end(), MediaTime::FromSamples(samples, engine_->sample_rate())) << i;
    EXPECT_EQ(t[i].pts, a[i].pts);
    EXPECT_EQ(t[i].duration, a[i].duration);
  }
  EXPECT_EQ(h.stage().audio_samples(), samples);
  EXPECT_EQ(a[1].duration, MediaTime::Millis(600));
  // Speech has a cue covering exactly its audio, and a mouth that moves.
  ASSERT_TRUE(t[0].value.cue.has_value());
  EXPECT_EQ(t[0].value.cue->start, a[0].pts);
  EXPECT_EQ(t[0].value.cue->end, a[0].end());
  EXPECT_EQ(t[0].value.cue->secondary.text, "Hello everyone");
  EXPECT_FALSE(t[0].value.phonemes.phonemes.empty());  // what the mouth will say
  EXPECT_TRUE(t[1].value.phonemes.phonemes.empty());
  EXPECT_FALSE(t[1].value.cue.has_value());  // a pause shows no subtitle
  EXPECT_EQ(h.stage().cues().size(), 2u);
  // The English line's words, for the highlight: byte ranges of the spoken
  // text, in order, inside the cue's time.
  const SubtitleCue& en = *t[2].value.cue;
  ASSERT_EQ(en.words.size(), 4u);
  EXPECT_EQ(en.primary.text.substr(en.words[0].text_offset, en.words[0].text_length), "Welcome");
  EXPECT_EQ(en.primary.text.substr(en.words[3].text_offset, en.words[3].text_length), "show");
  for (size_t i = 0; i < en.words.size(); ++i) {
    EXPECT_GE(en.words[i].start, en.start) << i;
    EXPECT_LE(en.words[i].end, en.end) << i;
    EXPECT_LT(en.words[i].start, en.words[i].end) << i;
    if (i > 0) {
      EXPECT_GE(en.words[i].start, en.words[i - 1].start) << i;
    }
  }
}

TEST_F(SpeechStageTest, AnUnknownVoiceFailsNamingTheLine) {
  StageHarness<SpeechStage> h(
      std::make_unique<SpeechStage>(*engine_, SpeechSettings{"", "xx-nonexistent", 1.0}));
  auto feed = h.Feed(h.stage().in);
  feed.Push(PlanItem{Utterance{7, {"Hello", Language::kEn}, {}}}, MediaTime::Zero());
  feed.End();
  const absl::Status s = h.RunUntilFinished();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("line 7"), absl::string_view::npos) << s;
}

}  // namespace
}  // namespace lingcast
