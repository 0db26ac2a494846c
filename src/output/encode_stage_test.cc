#include "output/encode_stage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/status_matchers.h"
#include "graph/harness.h"

namespace lingcast {
namespace {

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
  SystemClock clock;
  auto writer = OutputSet::Open({*ParseOutputSpec(path)}, SmallVideo(), audio_options, {}, clock);
  ASSERT_OK(writer);
  StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), /*fps=*/10));
  auto audio = h.Feed(h.stage().audio);
  auto video = h.Feed(h.stage().video);
  for (int i = 0; i < 10; ++i) {
    AudioBuffer pcm = AudioBuffer::Silence(MediaTime::Millis(100), 16000);
    audio.Push(std::move(pcm), MediaTime::Millis(100 * i), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Millis(100 * i), MediaTime::Millis(100));
  }
  audio.End();
  video.End();
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_TRUE(h.stage().finished());
  EXPECT_EQ(h.stage().frames_encoded(), 10);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  std::filesystem::remove(path);
}

TEST(EncodeStageTest, AStopBeforeTheEndLeavesNoFile) {
  const std::string path = TempPath("encode-stage-stopped");
  AudioEncoderOptions audio_options;
  audio_options.input_sample_rate = 16000;
  SystemClock clock;
  auto writer = OutputSet::Open({*ParseOutputSpec(path)}, SmallVideo(), audio_options, {}, clock);
  ASSERT_OK(writer);
  {
    StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), /*fps=*/10));
    auto audio = h.Feed(h.stage().audio);
    auto video = h.Feed(h.stage().video);
    audio.Push(AudioBuffer::Silence(MediaTime::Millis(100), 16000), MediaTime::Zero(), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Zero(), MediaTime::Millis(100));
    ASSERT_OK(h.Step());
    ASSERT_OK(h.Step());
    EXPECT_FALSE(h.stage().finished());
  }  // the stage (and its writer) go away mid-stream, as on SIGINT
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(entry.path().filename().string().find("encode-stage-stopped"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace lingcast
