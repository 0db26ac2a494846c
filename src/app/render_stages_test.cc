#include "app/render_stages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

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
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }
  std::unique_ptr<EspeakEngine> engine_;
};

TEST_F(SpeechStageTest, PlacesSpeechAndPausesOnTheAudioTimelineBySampleCount) {
  RenderProgress progress;
  StageHarness<SpeechStage> h(std::make_unique<SpeechStage>(*engine_, SpeechSettings{}, progress));
  auto feed = h.Feed(h.stage().in);
  auto audio = h.Collect(h.stage().audio);
  auto timing = h.Collect(h.stage().timing);
  feed.Push(PlanItem{Utterance{1, {"大家好", Language::kZh}, {"Hello everyone", Language::kEn}}}, MediaTime::Micros(0));
  feed.Push(PlanItem{PlannedPause{MediaTime::Millis(600)}}, MediaTime::Micros(1));
  feed.Push(PlanItem{Utterance{3, {"Welcome to the show", Language::kEn}, {}}}, MediaTime::Micros(2));
  feed.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  EXPECT_TRUE(progress.speech_done.load());

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
  EXPECT_EQ(progress.audio_samples.load(), samples);
  EXPECT_EQ(a[1].duration, MediaTime::Millis(600));
  // Speech has a cue covering exactly its audio, and a mouth that moves.
  ASSERT_TRUE(t[0].value.cue.has_value());
  EXPECT_EQ(t[0].value.cue->start, a[0].pts);
  EXPECT_EQ(t[0].value.cue->end, a[0].end());
  EXPECT_EQ(t[0].value.cue->secondary.text, "Hello everyone");
  EXPECT_FALSE(t[0].value.visemes.cues.empty());
  EXPECT_FALSE(t[1].value.cue.has_value());  // a pause shows no subtitle
  EXPECT_EQ(h.stage().cues().size(), 2u);
}

TEST_F(SpeechStageTest, AnUnknownVoiceFailsNamingTheLine) {
  RenderProgress progress;
  StageHarness<SpeechStage> h(
      std::make_unique<SpeechStage>(*engine_, SpeechSettings{"", "xx-nonexistent", 1.0}, progress));
  auto feed = h.Feed(h.stage().in);
  feed.Push(PlanItem{Utterance{7, {"Hello", Language::kEn}, {}}}, MediaTime::Zero());
  feed.End();
  const absl::Status s = h.RunUntilFinished();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("line 7"), absl::string_view::npos) << s;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".mp4")).string();
}

std::shared_ptr<VideoFrame> GreyFrame(int w, int h) {
  auto f = std::make_shared<VideoFrame>();
  f->Allocate(w, h);
  for (size_t i = 0; i < f->rgba.size(); i += 4) {
    f->rgba[i] = f->rgba[i + 1] = f->rgba[i + 2] = 128;
    f->rgba[i + 3] = 255;
  }
  return f;
}

VideoEncoderOptions SmallVideo() {
  VideoEncoderOptions v;
  v.width = 160;
  v.height = 90;
  v.fps_num = 10;
  return v;
}

TEST(EncodeStageTest, InterleavesAudioAndVideoAndFinishesTheFile) {
  const std::string path = TempPath("encode-stage");
  AudioEncoderOptions audio_options;
  audio_options.input_sample_rate = 16000;
  auto writer = Mp4Writer::Open(path, SmallVideo(), audio_options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RenderProgress progress;
  StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), progress));
  auto audio = h.Feed(h.stage().audio);
  auto video = h.Feed(h.stage().video);
  for (int i = 0; i < 10; ++i) {
    AudioBuffer pcm = AudioBuffer::Silence(MediaTime::Millis(100), 16000);
    audio.Push(std::move(pcm), MediaTime::Millis(100 * i), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Millis(100 * i), MediaTime::Millis(100));
  }
  audio.End();
  video.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  EXPECT_TRUE(h.stage().finished());
  EXPECT_EQ(progress.frames_encoded.load(), 10);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  std::filesystem::remove(path);
}

TEST(EncodeStageTest, AStopBeforeTheEndLeavesNoFile) {
  const std::string path = TempPath("encode-stage-stopped");
  AudioEncoderOptions audio_options;
  audio_options.input_sample_rate = 16000;
  auto writer = Mp4Writer::Open(path, SmallVideo(), audio_options);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RenderProgress progress;
  {
    StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), progress));
    auto audio = h.Feed(h.stage().audio);
    auto video = h.Feed(h.stage().video);
    audio.Push(AudioBuffer::Silence(MediaTime::Millis(100), 16000), MediaTime::Zero(), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Zero(), MediaTime::Millis(100));
    ASSERT_TRUE(h.Step().ok());
    ASSERT_TRUE(h.Step().ok());
    EXPECT_FALSE(h.stage().finished());
  }  // the stage (and its writer) go away mid-stream, as on SIGINT
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(entry.path().filename().string().find("encode-stage-stopped"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace lingcast
