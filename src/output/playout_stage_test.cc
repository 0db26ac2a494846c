#include "output/playout_stage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "graph/harness.h"

namespace lingcast {
namespace {

using testing_util::ScratchDir;

constexpr int kRate = 16000;
constexpr int kFps = 10;

// A line the voice stage has made: `seconds` of a tone, decided at `decided_ms`.
VoiceEvent Spoken(int64_t id, int64_t decided_ms, double seconds, const std::string& translation = "你好") {
  SpokenLine spoken;
  spoken.line.id = id;
  spoken.line.utterance = id;
  spoken.line.source_text = "hello";
  spoken.line.translation = translation;
  spoken.line.decided_at = MediaTime::Millis(decided_ms);
  if (!translation.empty()) {
    spoken.pcm = AudioBuffer{kRate, 1, std::vector<float>(static_cast<size_t>(seconds * kRate), 0.25f)};
    spoken.phonemes.phonemes.push_back(PhonemeEvent{"a", MediaTime::Zero(), spoken.pcm.duration()});
  }
  VoiceEvent event;
  event.spoken = std::move(spoken);
  event.watermark = MediaTime::Millis(decided_ms);
  return event;
}

class PlayoutStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<PlayoutStage> MakeStage() {
    VideoEncoderOptions video;
    video.width = 160;
    video.height = 90;
    video.fps_num = kFps;
    AudioEncoderOptions audio;
    audio.input_sample_rate = kRate;
    OutputSetOptions output_options;
    output_options.live = true;
    auto outputs = OutputSet::Open({*ParseOutputSpec(path_)}, video, audio, output_options, clock_);
    EXPECT_OK(outputs);
    outputs_ = std::move(*outputs);
    compose::CompositorOptions compose_options;
    compose_options.width = 160;
    compose_options.height = 90;
    auto compositor = compose::Compositor::Create(compose_options);
    EXPECT_OK(compositor);
    PlayoutOptions options;
    options.fps = kFps;
    options.output_rate = kRate;
    options.simulated = true;
    options.line_gap = MediaTime::Millis(250);
    options.tail = MediaTime::Millis(200);
    return std::make_unique<PlayoutStage>(options, std::move(*compositor), std::make_unique<AvatarRenderer>(),
                                          *outputs_, monitor_);
  }

  ScratchDir dir_;
  const std::string path_ = dir_.File("show.mp4");
  SystemClock clock_;  // the outputs' (for live pacing); the stage runs on the harness's simulated clock
  std::unique_ptr<OutputSet> outputs_;
  LiveMonitor monitor_;
};

TEST_F(PlayoutStageTest, SaysEachLineAtTheFirstFrameAfterItsDecisionThenTheNextAfterTheGap) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 250, 0.5), MediaTime::Zero());
  feed.Push(Spoken(1, 300, 0.4), MediaTime::Zero());  // queued behind the first
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  // Decided at 0.25 s: starts at the 0.3 s frame and lasts its 0.5 s of audio.
  EXPECT_EQ(records[0].speech_start, MediaTime::Millis(300));
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(800));
  // The second waits for the first and the 0.25 s gap: 1.05 s, said from the 1.1 s frame.
  EXPECT_EQ(records[1].speech_start, MediaTime::Millis(1100));
  EXPECT_EQ(records[1].speech_end, MediaTime::Millis(1500));
  EXPECT_EQ(records[1].queue_wait, MediaTime::Millis(800));  // ready at 0.3 s, started at 1.1 s
  // Audio never stops: one frame period of samples per tick, through the tail.
  const LiveCounters counters = monitor_.counters();
  EXPECT_EQ(counters.output_time, MediaTime::FromFrameIndex(counters.frames, kFps));
  EXPECT_EQ(counters.output_time, MediaTime::Millis(1700));  // 1.5 s of speech + the 0.2 s tail
  EXPECT_EQ(counters.audio_drops, 0);
  EXPECT_EQ(counters.video_drops, 0);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(PlayoutStageTest, ALineWithNothingToSayIsShownNotSaid) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 100, 0, /*translation=*/""), MediaTime::Zero());
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].speech_start.has_value());
  EXPECT_FALSE(records[0].spoken);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(PlayoutStageTest, ADrainFinishesTheLineBeingSaidAndDropsTheLinesNotStarted) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 0, 0.5), MediaTime::Zero());
  feed.Push(Spoken(1, 0, 0.5), MediaTime::Zero());
  feed.End();
  // Two frames: the first line has started.
  ASSERT_OK(h.Step());
  ASSERT_OK(h.Step());
  ASSERT_TRUE(monitor_.counters().speaking);
  h.Drain();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].speech_start, MediaTime::Zero());
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(500));  // said to its end
  EXPECT_FALSE(records[1].speech_start.has_value());         // never started
  EXPECT_TRUE(std::filesystem::exists(path_));               // the outputs were finished
}

TEST_F(PlayoutStageTest, TheOutputsAreCompleteOnlyWhenTheStageFinishes) {
  {
    StageHarness<PlayoutStage> h(MakeStage());
    auto feed = h.Feed(h.stage().in);
    ASSERT_OK(h.Open());
    feed.Push(Spoken(0, 0, 2.0), MediaTime::Zero());
    feed.End();
    for (int i = 0; i < 5; ++i) ASSERT_OK(h.Step());
  }
  outputs_.reset();  // the job went away mid-line (a crash, a cancel): its outputs with it
  EXPECT_FALSE(std::filesystem::exists(path_));
}

}  // namespace
}  // namespace lingcast
