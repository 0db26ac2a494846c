// MP4 rotation (OutputSetOptions::mp4_segment_length): a long show written as
// complete files cut at keyframes, each committed as it closes.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/clock.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/mp4_output.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;
using testing_util::ReadFile;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::OpenOutputs;
using testing_util::ReadBackAll;
using testing_util::ReadBackResult;
using testing_util::ReadStream;
using testing_util::ScratchDir;
using testing_util::StatusIs;

constexpr int kFps = 30;
constexpr int kAudioRate = 24000;  // 800 samples a frame

VideoEncoderOptions Video(int width = 160, int height = 90) {
  VideoEncoderOptions video = testing_util::QuickVideo(width, height, kFps);
  video.tune = "zerolatency";  // as live encodes
  video.keyframe_interval_s = 0.4;  // keyframes at 0, 0.4, 0.8, 1.2, ... s: not on the 1 s boundaries
  return video;
}

AudioEncoderOptions Audio() { return testing_util::SpeechAudio(kAudioRate); }

OutputSetOptions Rotation(MediaTime length) {
  OutputSetOptions options;
  options.live = true;
  options.mp4_segment_length = length;
  return options;
}

// Frames [first, first + count) of `video` into every set, each with its
// audio before it (audio_first) or after it (the audio then lags the cut).
absl::Status Feed(const std::vector<OutputSet*>& sets, const VideoEncoderOptions& video, int64_t first, int64_t count,
                  bool audio_first = true) {
  const AudioBuffer tone = MakeTone(1.0 / kFps, kAudioRate);
  for (int64_t i = first; i < first + count; ++i) {
    const VideoFrame frame = MakeFrame(video.width, video.height, i);
    for (OutputSet* set : sets) {
      if (audio_first) LC_RETURN_IF_ERROR(set->WriteAudio(tone));
      LC_RETURN_IF_ERROR(set->WriteVideo(frame, i));
      if (!audio_first) LC_RETURN_IF_ERROR(set->WriteAudio(tone));
    }
  }
  return absl::OkStatus();
}

TEST(Mp4RotationTest, SegmentPaths) {
  EXPECT_EQ(Mp4SegmentPath("a/b.c/show.mp4", 1), "a/b.c/show-0001.mp4");
  EXPECT_EQ(Mp4SegmentPath("show.mp4", 12), "show-0012.mp4");
  EXPECT_EQ(Mp4SegmentPath("show.mp4", 12345), "show-12345.mp4");
  EXPECT_EQ(SrtSidecarPath(Mp4SegmentPath("show.mp4", 2)), "show-0002.srt");
}

class Mp4RotationOrderTest : public ::testing::TestWithParam<bool> {};

// The rotated files against one whole file of the same encode: every file
// plays from a keyframe at 0, the cuts are the first keyframes at or after
// each second, and together they hold every frame and every audio packet once.
TEST_P(Mp4RotationOrderTest, FilesAreCompleteAndAddUpToTheWhole) {
  const bool audio_first = GetParam();
  ScratchDir dir;
  SimulatedClock clock;
  std::filesystem::create_directory(dir.File("whole"));
  auto rotated = OpenOutputs({dir.File("show.mp4")}, Video(), Audio(), Rotation(MediaTime::Seconds(1)), clock);
  auto whole = OpenOutputs({dir.File("whole/whole.mp4")}, Video(), Audio(), Rotation(MediaTime::Zero()), clock);
  ASSERT_OK(rotated);
  ASSERT_OK(whole);
  for (OutputSet* set : {rotated->get(), whole->get()}) {
    // One cue across the first cut (1.2 s), one inside the third file.
    ASSERT_OK(set->AddSubtitle(MediaTime::Millis(500), MediaTime::Millis(1500), {"你好", "Hello"}));
    ASSERT_OK(set->AddSubtitle(MediaTime::Millis(2500), MediaTime::Millis(2900), {"再见", "Bye"}));
  }
  ASSERT_OK(Feed({rotated->get(), whole->get()}, Video(), 0, 105, audio_first));  // 3.5 s
  // Before the end, the finished files are already there, complete.
  EXPECT_TRUE(std::filesystem::exists(dir.File("show-0001.mp4")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("show-0002.mp4")));
  ASSERT_OK((*rotated)->Finish());
  ASSERT_OK((*whole)->Finish());

  auto reference = ReadBackAll(dir.File("whole/whole.mp4"));
  ASSERT_OK(reference);
  const ReadStream& whole_video = *reference->Find(AVMEDIA_TYPE_VIDEO);
  const ReadStream& whole_audio = *reference->Find(AVMEDIA_TYPE_AUDIO);
  // The cuts: the first keyframe at or after 1, 2 and 3 s.
  std::vector<int64_t> cuts_ms = {0};
  for (const testing_util::ReadPacket& p : whole_video.packets) {
    if (p.key && p.pts_ms >= static_cast<int64_t>(cuts_ms.size()) * 1000) cuts_ms.push_back(p.pts_ms);
  }
  ASSERT_EQ(cuts_ms, (std::vector<int64_t>{0, 1200, 2000, 3200}));

  std::vector<std::string> expected_entries = {"whole", "show-0001.mp4", "show-0002.mp4", "show-0003.mp4",
                                               "show-0004.mp4", "show-0001.srt", "show-0002.srt", "show-0003.srt"};
  EXPECT_THAT(dir.Entries(), UnorderedElementsAreArray(expected_entries));  // no temp file, no show.mp4

  // In samples of the AAC stream (48 kHz).
  const AVRational audio_base = whole_audio.time_base;
  auto samples_at_ms = [audio_base](int64_t ms) { return av_rescale_q(ms, {1, 1000}, audio_base); };
  auto played_end = [](const ReadStream& audio) { return audio.packets.back().pts + audio.packets.back().duration; };
  size_t video_frames = 0;
  int64_t played_samples = 0;
  std::vector<int64_t> audio_starts;
  for (size_t k = 0; k < cuts_ms.size(); ++k) {
    const std::string name = dir.File(Mp4SegmentPath("show.mp4", static_cast<int>(k) + 1));
    SCOPED_TRACE(name);
    auto read = ReadBackAll(name, {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
    ASSERT_OK(read);
    const ReadStream* video = read->Find(AVMEDIA_TYPE_VIDEO);
    const ReadStream* audio = read->Find(AVMEDIA_TYPE_AUDIO);
    ASSERT_NE(video, nullptr);
    ASSERT_NE(audio, nullptr);
    const int64_t end_ms = k + 1 < cuts_ms.size() ? cuts_ms[k + 1] : 3500;
    EXPECT_EQ(video->packets.size(), static_cast<size_t>((end_ms - cuts_ms[k]) * kFps / 1000));
    EXPECT_TRUE(video->packets.front().key);
    EXPECT_EQ(video->packets.front().pts_ms, 0);
    EXPECT_EQ(video->decode_errors, 0);
    EXPECT_EQ(video->pictures.size(), video->packets.size());
    EXPECT_TRUE(video->pictures.front().key);
    video_frames += video->packets.size();
    // The audio plays exactly over the file's time range: from 0 (what lies
    // before is skipped by the edit list) to the next cut.
    EXPECT_LE(audio->packets.front().pts, 0);
    if (k + 1 < cuts_ms.size()) {
      EXPECT_EQ(played_end(*audio), samples_at_ms(end_ms - cuts_ms[k]));
    }
    played_samples += played_end(*audio);
    // The packets that start in this file's range, on the show's timeline.
    for (const testing_util::ReadPacket& p : audio->packets) {
      const int64_t start = samples_at_ms(cuts_ms[k]) + p.pts;
      if (k == 0 || start >= samples_at_ms(cuts_ms[k])) audio_starts.push_back(start);
    }
  }
  EXPECT_EQ(video_frames, whole_video.packets.size());
  // Concatenated, the files play as many samples as the whole, and hold
  // every AAC frame of the encode once, at its time.
  EXPECT_EQ(played_samples, played_end(whole_audio));
  std::vector<int64_t> expected_starts;
  for (const testing_util::ReadPacket& p : whole_audio.packets) expected_starts.push_back(p.pts);
  EXPECT_EQ(audio_starts, expected_starts);

  // Cues on each file's own timeline; the one across the cut is in both, clipped.
  EXPECT_EQ(ReadFile(dir.File("show-0001.srt")), "1\n00:00:00,500 --> 00:00:01,200\n你好\nHello\n\n");
  EXPECT_EQ(ReadFile(dir.File("show-0002.srt")), "1\n00:00:00,000 --> 00:00:00,300\n你好\nHello\n\n");
  EXPECT_EQ(ReadFile(dir.File("show-0003.srt")), "1\n00:00:00,500 --> 00:00:00,900\n再见\nBye\n\n");
  EXPECT_EQ(ReadFile(dir.File("whole/whole.srt")),
            "1\n00:00:00,500 --> 00:00:01,500\n你好\nHello\n\n2\n00:00:02,500 --> 00:00:02,900\n再见\nBye\n\n");
}

INSTANTIATE_TEST_SUITE_P(AudioBeforeOrAfterEachFrame, Mp4RotationOrderTest, ::testing::Bool());

TEST(Mp4RotationTest, KeepsRotatingAfterALiveVideoSwitch) {
  ScratchDir dir;
  SimulatedClock clock;
  auto set = OpenOutputs({dir.File("show.mp4")}, Video(), Audio(), Rotation(MediaTime::Seconds(1)), clock);
  ASSERT_OK(set);
  ASSERT_OK(Feed({set->get()}, Video(), 0, 45));  // 0 .. 1.5 s at 160x90
  const VideoEncoderOptions big = Video(320, 180);
  ASSERT_OK((*set)->SwitchVideo(big, MediaTime::Millis(1500)));
  ASSERT_OK(Feed({set->get()}, big, 0, 75));  // 1.5 .. 4 s at 320x180
  ASSERT_OK((*set)->Finish());
  // The files keep the size they started with, cut at the original encoder's keyframes.
  size_t frames = 0;
  for (int k = 1; k <= 4; ++k) {
    SCOPED_TRACE(k);
    auto read = ReadBackAll(dir.File(Mp4SegmentPath("show.mp4", k)), {}, INT64_MAX, nullptr, nullptr, true);
    ASSERT_OK(read);
    const ReadStream* video = read->Find(AVMEDIA_TYPE_VIDEO);
    ASSERT_NE(video, nullptr);
    ASSERT_FALSE(video->pictures.empty());
    EXPECT_TRUE(video->pictures.front().key);
    EXPECT_EQ(video->pictures.front().pts_ms, 0);
    EXPECT_EQ(video->decode_errors, 0);
    for (const testing_util::DecodedPicture& picture : video->pictures) {
      EXPECT_EQ(picture.width, 160);
      EXPECT_EQ(picture.height, 90);
    }
    frames += video->pictures.size();
  }
  EXPECT_EQ(frames, 120u);
  EXPECT_FALSE(std::filesystem::exists(dir.File("show-0005.mp4")));
}

TEST(Mp4RotationTest, ACancelledShowLeavesTheCommittedFilesAndNoTempFile) {
  ScratchDir dir;
  SimulatedClock clock;
  auto set = OpenOutputs({dir.File("show.mp4")}, Video(), Audio(), Rotation(MediaTime::Seconds(1)), clock);
  ASSERT_OK(set);
  ASSERT_OK((*set)->AddSubtitle(MediaTime::Millis(100), MediaTime::Millis(400), {"a"}));
  ASSERT_OK((*set)->AddSubtitle(MediaTime::Millis(2100), MediaTime::Millis(2400), {"c"}));
  ASSERT_OK(Feed({set->get()}, Video(), 0, 75));  // 2.5 s: cuts at 1.2 and 2.0 s, the third file open
  set->reset();  // no Finish: the show was cancelled
  EXPECT_THAT(dir.Entries(), UnorderedElementsAreArray({"show-0001.mp4", "show-0001.srt", "show-0002.mp4"}));
  auto read = ReadBackAll(dir.File("show-0002.mp4"));
  ASSERT_OK(read);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 24u);  // 1.2 .. 2.0 s
}

TEST(Mp4RotationTest, AFileThatCannotBeCommittedFailsTheOutputAndLeavesTheEarlierOnes) {
  ScratchDir dir;
  SimulatedClock clock;
  // A directory where the second file goes: its rename fails when it closes at 2.0 s.
  std::filesystem::create_directory(dir.File("show-0002.mp4"));
  auto set = OpenOutputs({dir.File("show.mp4")}, Video(), Audio(), Rotation(MediaTime::Seconds(1)), clock);
  ASSERT_OK(set);
  const absl::Status status = Feed({set->get()}, Video(), 0, 90);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("show-0002.mp4"));
  EXPECT_EQ((*set)->stats().outputs[0].state, OutputState::kFailed);
  EXPECT_FALSE((*set)->Finish().ok());
  set->reset();
  EXPECT_THAT(dir.Entries(), UnorderedElementsAreArray({"show-0001.mp4", "show-0002.mp4"}));
  EXPECT_TRUE(std::filesystem::is_directory(dir.File("show-0002.mp4")));
  EXPECT_TRUE(std::filesystem::is_empty(dir.File("show-0002.mp4")));
  ASSERT_OK(ReadBackAll(dir.File("show-0001.mp4")));
}

TEST(Mp4RotationTest, ANegativeLengthIsRefusedAndNothingIsWritten) {
  ScratchDir dir;
  SimulatedClock clock;
  EXPECT_THAT(OpenOutputs({dir.File("show.mp4")}, Video(), Audio(), Rotation(MediaTime::Seconds(-60)), clock),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("MP4 segment length -60")));
  EXPECT_TRUE(dir.Entries().empty());
}

}  // namespace
}  // namespace lingcast
