#include "output/output_set.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/status.h"
#include "output/mp4_output.h"
#include "output/read_back.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::ReadBackAll;
using testing_util::ScratchDir;

constexpr int kWidth = 160;
constexpr int kHeight = 90;
constexpr int kInputRate = 22050;

VideoEncoderOptions SmallVideo() {
  VideoEncoderOptions video;
  video.width = kWidth;
  video.height = kHeight;
  video.fps_num = 30;
  video.preset = "ultrafast";
  video.keyframe_interval_s = 1.0;
  video.threads = 1;
  return video;
}

AudioEncoderOptions SpeechAudio() {
  AudioEncoderOptions audio;
  audio.input_sample_rate = kInputRate;
  return audio;
}

std::vector<OutputSpec> Specs(const std::vector<std::string>& texts) {
  std::vector<OutputSpec> specs;
  for (const std::string& text : texts) {
    auto spec = ParseOutputSpec(text);
    EXPECT_OK(spec);
    if (spec.ok()) specs.push_back(*spec);
  }
  return specs;
}

// Feeds `seconds` of media in step: the audio up to each frame's end, then the frame.
absl::Status Feed(OutputSet& set, double seconds, int64_t first_frame = 0) {
  const VideoEncoderOptions video = SmallVideo();
  const int64_t frames = static_cast<int64_t>(seconds * video.fps_num);
  const AudioBuffer tone = MakeTone(1.0 / video.fps_num, kInputRate);
  for (int64_t i = first_frame; i < first_frame + frames; ++i) {
    absl::Status status = set.WriteAudio(tone);
    if (!status.ok()) return status;
    status = set.WriteVideo(MakeFrame(kWidth, kHeight, i), i);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputSetTest, OneEncodeFeedsTwoMp4FilesAndSrtSidecars) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OutputSet::Open(Specs({dir.File("a.mp4"), dir.File("b.mp4")}), SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  ASSERT_OK(Feed(**set, 1.0));
  ASSERT_OK((*set)->AddSubtitle(MediaTime::Millis(100), MediaTime::Millis(900), {"你好", "Hello"}));
  ASSERT_OK((*set)->Finish());
  const OutputSetStats stats = (*set)->stats();
  EXPECT_EQ(stats.video_frames, 30);
  ASSERT_EQ(stats.outputs.size(), 2u);
  for (const std::string name : {"a", "b"}) {
    auto read = ReadBackAll(dir.File(name + ".mp4"));
    ASSERT_OK(read);
    ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
    ASSERT_NE(read->Find(AVMEDIA_TYPE_AUDIO), nullptr);
    EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->codec, "h264");
    EXPECT_EQ(read->Find(AVMEDIA_TYPE_AUDIO)->codec, "aac");
    EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 30u);
    EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.front().pts_ms, 0);
    EXPECT_EQ(ReadFile(dir.File(name + ".srt")), "1\n00:00:00,100 --> 00:00:00,900\n你好\nHello\n\n");
  }
  for (const OutputSinkStats& output : stats.outputs) {
    EXPECT_EQ(output.state, OutputState::kFinished);
    EXPECT_GT(output.bytes, 0);
    EXPECT_EQ(output.video_packets, 30);
    EXPECT_GT(output.bitrate, 0);
    EXPECT_EQ(output.dropped_video_frames, 0);
  }
}

TEST(OutputSetTest, StartOffsetDoesNotShiftFiles) {
  ScratchDir dir;
  SystemClock clock;
  OutputSetOptions options;
  options.start_offset = MediaTime::Millis((int64_t{1} << 31) - 500);
  auto set = OutputSet::Open(Specs({dir.File("a.mp4")}), SmallVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_OK(Feed(**set, 0.5));
  ASSERT_OK((*set)->Finish());
  auto read = ReadBackAll(dir.File("a.mp4"));
  ASSERT_OK(read);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.front().pts_ms, 0);
}

TEST(OutputSetTest, UnwritableOutputFailsAloneAndTheOtherKeepsGoing) {
  ScratchDir dir;
  SystemClock clock;
  const std::string bad = dir.File("no_such_dir/a.mp4");
  auto set = OutputSet::Open(Specs({bad, dir.File("good.mp4")}), SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  ASSERT_OK(Feed(**set, 0.5));
  const absl::Status finished = (*set)->Finish();
  EXPECT_FALSE(finished.ok());
  EXPECT_THAT(finished.message(), HasSubstr("no_such_dir"));
  const OutputSetStats stats = (*set)->stats();
  EXPECT_EQ(stats.outputs[0].state, OutputState::kFailed);
  EXPECT_THAT(stats.outputs[0].error, HasSubstr("no_such_dir"));
  EXPECT_EQ(stats.outputs[1].state, OutputState::kFinished);
  EXPECT_OK(ReadBackAll(dir.File("good.mp4")));
}

TEST(OutputSetTest, EveryOutputFailedIsAnErrorAtOpen) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OutputSet::Open(Specs({dir.File("missing/a.mp4")}), SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(), HasSubstr("missing"));
  EXPECT_EQ(ExitCodeFor(set.status()), 2) << set.status();
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(OutputSetTest, BadArgumentsAreNamed) {
  ScratchDir dir;
  SystemClock clock;
  EXPECT_THAT(OutputSet::Open({}, SmallVideo(), SpeechAudio(), {}, clock).status().message(),
              HasSubstr("no outputs"));
  EXPECT_THAT(OutputSet::Open(Specs({dir.File("a.mp4"), dir.File("a.mp4")}), SmallVideo(), SpeechAudio(), {}, clock)
                  .status()
                  .message(),
              HasSubstr("given twice"));
  OutputSetOptions negative;
  negative.start_offset = MediaTime::Seconds(-1);
  EXPECT_THAT(OutputSet::Open(Specs({dir.File("a.mp4")}), SmallVideo(), SpeechAudio(), negative, clock)
                  .status()
                  .message(),
              HasSubstr("--start-offset"));
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(OutputSetTest, BadSubtitlesAreNamedAndNothingIsWrittenForThem) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OutputSet::Open(Specs({dir.File("a.mp4")}), SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  EXPECT_THAT((*set)->AddSubtitle(MediaTime::Seconds(1), MediaTime::Seconds(1), {"x"}).message(),
              HasSubstr("not after its start"));
  EXPECT_THAT((*set)->AddSubtitle(MediaTime::Seconds(1), MediaTime::Seconds(2), {}).message(), HasSubstr("no text"));
  ASSERT_OK((*set)->AddSubtitle(MediaTime::Seconds(1), MediaTime::Seconds(2), {"x"}));
  EXPECT_THAT((*set)->AddSubtitle(MediaTime::Millis(500), MediaTime::Seconds(2), {"y"}).message(),
              HasSubstr("before the previous cue"));
  ASSERT_OK(Feed(**set, 0.2));
  ASSERT_OK((*set)->Finish());
  EXPECT_EQ(ReadFile(dir.File("a.srt")), "1\n00:00:01,000 --> 00:00:02,000\nx\n\n");
}

TEST(OutputSetTest, NothingWrittenIsAnErrorAndLeavesNoFile) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OutputSet::Open(Specs({dir.File("a.mp4")}), SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  EXPECT_THAT((*set)->Finish().message(), HasSubstr("nothing to write"));
  set->reset();
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(Mp4OutputTest, SidecarPath) {
  EXPECT_EQ(SrtSidecarPath("a/b.c/talk.mp4"), "a/b.c/talk.srt");
  EXPECT_EQ(SrtSidecarPath("a.b/talk"), "a.b/talk.srt");
}

}  // namespace
}  // namespace lingcast
