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
#include "output/switch_checks.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::CpuPlanes;
using testing_util::ReadFile;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::OpenOutputs;
using testing_util::QuickVideo;
using testing_util::ReadBackAll;
using testing_util::ScratchDir;
using testing_util::SpeechAudio;
using testing_util::StatusIs;
using testing_util::ExpectContinuousAudio;
using testing_util::ExpectPictures;

constexpr int kWidth = 160;
constexpr int kHeight = 90;
constexpr int kInputRate = 22050;  // SpeechAudio()'s

VideoEncoderOptions SmallVideo() { return QuickVideo(kWidth, kHeight); }

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

TEST(OutputSetTest, OneEncodeFeedsTwoMp4FilesAndSrtSidecars) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OpenOutputs({dir.File("a.mp4"), dir.File("b.mp4")}, SmallVideo(), SpeechAudio(), {}, clock);
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
  auto set = OpenOutputs({dir.File("a.mp4")}, SmallVideo(), SpeechAudio(), options, clock);
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
  auto set = OpenOutputs({bad, dir.File("good.mp4")}, SmallVideo(), SpeechAudio(), {}, clock);
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
  auto set = OpenOutputs({dir.File("missing/a.mp4")}, SmallVideo(), SpeechAudio(), {}, clock);
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
  EXPECT_THAT(OpenOutputs({dir.File("a.mp4"), dir.File("a.mp4")}, SmallVideo(), SpeechAudio(), {}, clock)
                  .status()
                  .message(),
              HasSubstr("given twice"));
  OutputSetOptions negative;
  negative.start_offset = MediaTime::Seconds(-1);
  EXPECT_THAT(OpenOutputs({dir.File("a.mp4")}, SmallVideo(), SpeechAudio(), negative, clock)
                  .status()
                  .message(),
              HasSubstr("--start-offset"));
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(OutputSetTest, BadSubtitlesAreNamedAndNothingIsWrittenForThem) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OpenOutputs({dir.File("a.mp4")}, SmallVideo(), SpeechAudio(), {}, clock);
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
  auto set = OpenOutputs({dir.File("a.mp4")}, SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  EXPECT_THAT((*set)->Finish().message(), HasSubstr("nothing to write"));
  set->reset();
  EXPECT_TRUE(dir.Entries().empty());
}

TEST(Mp4OutputTest, SidecarPath) {
  EXPECT_EQ(SrtSidecarPath("a/b.c/talk.mp4"), "a/b.c/talk.srt");
  EXPECT_EQ(SrtSidecarPath("a.b/talk"), "a.b/talk.srt");
}

// ---- The picture switched live (SwitchVideo) ----

constexpr int kSwitchAudioRate = 24000;  // a whole number of samples per frame at 30 and 60 fps

VideoEncoderOptions LiveVideo(int width, int height, int fps) {
  VideoEncoderOptions video;
  video.width = width;
  video.height = height;
  video.fps_num = fps;
  video.preset = "ultrafast";
  video.tune = "zerolatency";  // as live encodes
  video.keyframe_interval_s = 1.0;
  video.threads = 1;
  return video;
}

// `frames` frames at `video`'s size and rate, each after its audio, indexed
// from `first` (counted from the last switch).
absl::Status FeedLive(OutputSet& set, const VideoEncoderOptions& video, int64_t first, int64_t frames) {
  const AudioBuffer audio = MakeTone(1.0 / video.fps_num, kSwitchAudioRate);
  for (int64_t i = first; i < first + frames; ++i) {
    LC_RETURN_IF_ERROR(set.WriteAudio(audio));
    LC_RETURN_IF_ERROR(set.WriteVideo(MakeFrame(video.width, video.height, i), i));
  }
  return absl::OkStatus();
}

TEST(OutputSetVideoSwitchTest, HlsTakesTheNewPictureAtAKeyframeAndTheMp4KeepsItsOwn) {
  ScratchDir dir;
  OutputSetOptions options;
  options.hls_segment_seconds = 1.0;
  SimulatedClock clock;
  AudioEncoderOptions audio;
  audio.input_sample_rate = kSwitchAudioRate;
  const VideoEncoderOptions small = LiveVideo(160, 90, 30), big = LiveVideo(320, 180, 60);
  auto set = OpenOutputs({dir.File("show.mp4"), "hls:" + dir.File("hls")}, small, audio, options, clock);
  ASSERT_OK(set);
  ASSERT_OK(FeedLive(**set, small, 0, 30));               // 0 .. 1 s at 160x90, 30 fps
  ASSERT_OK((*set)->SwitchVideo(big, MediaTime::Seconds(1)));
  EXPECT_EQ((*set)->video_options().width, 320);
  ASSERT_OK(FeedLive(**set, big, 0, 120));                // 1 .. 3 s at 320x180, 60 fps
  ASSERT_OK((*set)->Finish());
  const OutputSetStats stats = (*set)->stats();
  EXPECT_EQ(stats.video_switches, 1);
  EXPECT_EQ(stats.video_frames, 150);

  // HLS: the new picture from the switch on, in a segment of its own after a discontinuity.
  const std::string playlist = ReadFile(dir.File("hls/video.m3u8"));
  EXPECT_THAT(playlist, HasSubstr("#EXT-X-DISCONTINUITY"));
  EXPECT_THAT(playlist, HasSubstr("#EXT-X-ENDLIST"));
  EXPECT_EQ(playlist.find("#EXT-X-ENDLIST"), playlist.rfind("#EXT-X-ENDLIST"));
  auto hls = ReadBackAll(dir.File("hls/video.m3u8"), {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(hls);
  const testing_util::ReadStream* hls_video = hls->Find(AVMEDIA_TYPE_VIDEO);
  const testing_util::ReadStream* hls_audio = hls->Find(AVMEDIA_TYPE_AUDIO);
  ASSERT_NE(hls_video, nullptr);
  ASSERT_NE(hls_audio, nullptr);
  // The HLS timeline starts after AAC's priming (21 ms): the switch is at 1021 ms.
  const int64_t hls_switch_ms = 1000 + 21;
  ExpectPictures(*hls_video, hls_switch_ms, {160, 90}, {320, 180}, 30, 120, "hls");
  ExpectContinuousAudio(*hls_audio, "hls");
  // A/V in step at the end: the last frame starts within a frame of the audio's last packet.
  EXPECT_NEAR(static_cast<double>(hls_audio->packets.back().pts_ms - hls_video->pictures.back().pts_ms), 0, 34);

  // MP4: one track at the size it was opened with, on its own 30 fps grid throughout.
  auto mp4 = ReadBackAll(dir.File("show.mp4"), {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(mp4);
  const testing_util::ReadStream* mp4_video = mp4->Find(AVMEDIA_TYPE_VIDEO);
  const testing_util::ReadStream* mp4_audio = mp4->Find(AVMEDIA_TYPE_AUDIO);
  ASSERT_NE(mp4_video, nullptr);
  ASSERT_NE(mp4_audio, nullptr);
  ExpectPictures(*mp4_video, 1000, {160, 90}, {160, 90}, 30, 60, "mp4");
  ExpectContinuousAudio(*mp4_audio, "mp4");
  EXPECT_NEAR(static_cast<double>(mp4_video->pictures.back().pts_ms), 2967, 1);  // frame 89 at 89/30 s
}

// After a switch, the MP4 keeps its size by scaling each frame. A frame the
// CUDA renderer drew carries only yuv420p planes (its RGBA was never brought
// down): the recording scales those, not the unfilled RGBA.
TEST(OutputSetVideoSwitchTest, TheMp4ScalesAFrameThatCarriesOnlyItsYuvPlanes) {
  ScratchDir dir;
  SimulatedClock clock;
  AudioEncoderOptions audio;
  audio.input_sample_rate = kSwitchAudioRate;
  const VideoEncoderOptions small = LiveVideo(160, 90, 30), big = LiveVideo(320, 180, 30);
  auto set = OpenOutputs({dir.File("show.mp4"), "hls:" + dir.File("hls")}, small, audio, OutputSetOptions{}, clock);
  ASSERT_OK(set);
  ASSERT_OK(FeedLive(**set, small, 0, 30));
  ASSERT_OK((*set)->SwitchVideo(big, MediaTime::Seconds(1)));
  const AudioBuffer tone = MakeTone(1.0 / big.fps_num, kSwitchAudioRate);
  for (int64_t i = 0; i < 30; ++i) {
    VideoFrame only_planes;
    only_planes.Allocate(big.width, big.height);  // transparent black: what an unfilled RGBA holds
    only_planes.yuv420 = CpuPlanes(MakeFrame(big.width, big.height, i, 200, 200, 200));
    ASSERT_OK((*set)->WriteAudio(tone));
    ASSERT_OK((*set)->WriteVideo(only_planes, i));
  }
  ASSERT_OK((*set)->Finish());

  auto mp4 = ReadBackAll(dir.File("show.mp4"), {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(mp4);
  const testing_util::ReadStream* video = mp4->Find(AVMEDIA_TYPE_VIDEO);
  ASSERT_NE(video, nullptr);
  ASSERT_EQ(video->pictures.size(), 60u);
  // Before the switch the blue-grey frames (Y about 88); after it the light grey
  // planes scaled (Y about 190), not black (16).
  EXPECT_NEAR(video->pictures[10].mean_luma, 88, 12);
  EXPECT_EQ(video->pictures[50].width, 160);
  EXPECT_NEAR(video->pictures[50].mean_luma, 190, 12);
}

TEST(OutputSetVideoSwitchTest, ABadSwitchChangesNothing) {
  ScratchDir dir;
  SimulatedClock clock;
  AudioEncoderOptions audio;
  audio.input_sample_rate = kSwitchAudioRate;
  const VideoEncoderOptions small = LiveVideo(160, 90, 30);
  auto set = OpenOutputs({"hls:" + dir.File("hls")}, small, audio, OutputSetOptions{}, clock);
  ASSERT_OK(set);
  ASSERT_OK(FeedLive(**set, small, 0, 15));
  EXPECT_THAT((*set)->SwitchVideo(LiveVideo(321, 180, 30), MediaTime::Millis(500)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be even")));
  EXPECT_THAT((*set)->SwitchVideo(LiveVideo(320, 180, 0), MediaTime::Millis(500)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("frame rate must be positive")));
  VideoEncoderOptions with_b_frames = LiveVideo(320, 180, 30);
  with_b_frames.tune = "";
  with_b_frames.preset = "veryfast";  // 3 B-frames
  EXPECT_THAT((*set)->SwitchVideo(with_b_frames, MediaTime::Millis(500)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("without B-frames")));
  // Not after the last frame written (frame 14 at 467 ms).
  EXPECT_THAT((*set)->SwitchVideo(LiveVideo(320, 180, 30), MediaTime::Millis(400)),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("not after the last frame")));
  EXPECT_EQ((*set)->video_options().width, 160);
  EXPECT_EQ((*set)->stats().video_switches, 0);
  // The show goes on at its size: the frames that follow are numbered on.
  ASSERT_OK(FeedLive(**set, small, 15, 15));
  ASSERT_OK((*set)->Finish());
  EXPECT_EQ(ReadFile(dir.File("hls/video.m3u8")).find("#EXT-X-DISCONTINUITY"), std::string::npos);
  auto hls = ReadBackAll(dir.File("hls/video.m3u8"), {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(hls);
  ExpectPictures(*hls->Find(AVMEDIA_TYPE_VIDEO), INT64_MAX, {160, 90}, {160, 90}, 30, 0, "hls");
}

}  // namespace
}  // namespace lingcast
