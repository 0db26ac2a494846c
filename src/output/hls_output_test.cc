#include "output/hls_output.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/audio_encoder.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/test_util.h"
#include "output/video_encoder.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing_util::ReadFile;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::OpenOutputs;
using testing_util::QuickVideo;
using testing_util::ReadBackAll;
using testing_util::ReadPacket;
using testing_util::ScratchDir;
using testing_util::SpeechAudio;
using testing_util::StatusIs;

constexpr int kInputRate = 22050;  // SpeechAudio()'s

int CountOf(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

absl::Status Feed(OutputSet& set, double seconds, int64_t first_frame = 0) {
  const AudioBuffer tone = MakeTone(1.0 / 30, kInputRate);
  for (int64_t i = first_frame; i < first_frame + static_cast<int64_t>(seconds * 30); ++i) {
    absl::Status status = set.WriteAudio(tone);
    if (!status.ok()) return status;
    status = set.WriteVideo(MakeFrame(160, 90, i), i);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Writes `seconds` with two cues into hls:DIR (plus any other outputs).
absl::Status WriteStream(const std::vector<std::string>& outs, const OutputSetOptions& options, double seconds) {
  SystemClock clock;
  auto set = OpenOutputs(outs, QuickVideo(), SpeechAudio(), options, clock);
  if (!set.ok()) return set.status();
  absl::Status status = (*set)->AddSubtitle(MediaTime::Millis(500), MediaTime::Millis(2500), {"你好，世界", "Hello, world"});
  if (status.ok()) status = (*set)->AddSubtitle(MediaTime::Millis(3000), MediaTime::Millis(3900), {"再见"});
  if (status.ok()) status = Feed(**set, seconds);
  if (status.ok()) status = (*set)->Finish();
  return status;
}

void ExpectMonotonic(const std::vector<ReadPacket>& packets) {
  for (size_t i = 1; i < packets.size(); ++i) ASSERT_GE(packets[i].dts_ms, packets[i - 1].dts_ms) << i;
}

TEST(HlsOutputTest, VodPlaylistSegmentsAndWebVttReadBack) {
  ScratchDir dir;
  OutputSetOptions options;
  options.hls_segment_seconds = 2.0;
  ASSERT_OK(WriteStream({"hls:" + dir.File("hls")}, options, 5.0));

  const std::string video_playlist = ReadFile(dir.File("hls/video.m3u8"));
  EXPECT_THAT(video_playlist, HasSubstr("#EXT-X-PLAYLIST-TYPE:VOD"));
  EXPECT_THAT(video_playlist, HasSubstr("#EXT-X-ENDLIST"));
  EXPECT_EQ(CountOf(video_playlist, ".ts"), 3);

  auto read = ReadBackAll(dir.File("hls/video.m3u8"));
  ASSERT_OK(read);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_AUDIO), nullptr);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->codec, "h264");
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_AUDIO)->codec, "aac");
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 150u);
  ExpectMonotonic(read->Find(AVMEDIA_TYPE_VIDEO)->packets);
  ExpectMonotonic(read->Find(AVMEDIA_TYPE_AUDIO)->packets);

  // On the MPEG-TS clock, media time 0 (the first frame) is at the AAC priming,
  // 21 ms, as the WebVTT X-TIMESTAMP-MAP says (1920 ticks of 90 kHz).
  auto segment = ReadBackAll(dir.File("hls/video_00000.ts"));
  ASSERT_OK(segment);
  EXPECT_EQ(segment->Find(AVMEDIA_TYPE_VIDEO)->packets.front().pts_ms, 21);
  EXPECT_EQ(segment->Find(AVMEDIA_TYPE_AUDIO)->packets.front().pts_ms, 0);
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00000.vtt")), HasSubstr("X-TIMESTAMP-MAP=MPEGTS:1920,LOCAL:00:00:00.000"));

  const std::string master = ReadFile(dir.File("hls/index.m3u8"));
  EXPECT_THAT(master, HasSubstr("TYPE=SUBTITLES,GROUP-ID=\"subs\""));
  EXPECT_THAT(master, HasSubstr("CODECS=\"avc1.42"));
  EXPECT_THAT(master, HasSubstr("RESOLUTION=160x90,SUBTITLES=\"subs\"\nvideo.m3u8\n"));

  const std::string subtitles = ReadFile(dir.File("hls/subtitles.m3u8"));
  EXPECT_EQ(CountOf(subtitles, ".vtt"), 3);
  EXPECT_THAT(subtitles, HasSubstr("#EXT-X-ENDLIST"));
  // The first cue spans the first two segments, so both carry it.
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00000.vtt")), HasSubstr("00:00:00.500 --> 00:00:02.500\n你好，世界\nHello, world\n"));
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00001.vtt")), HasSubstr("你好，世界"));
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00001.vtt")), HasSubstr("00:00:03.000 --> 00:00:03.900\n再见\n"));
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00002.vtt")), Not(HasSubstr("-->")));

  // A player reading the subtitle playlist sees the cues.
  auto cues = ReadBackAll(dir.File("hls/subtitles.m3u8"));
  ASSERT_OK(cues);
  const testing_util::ReadStream* text = cues->Find(AVMEDIA_TYPE_SUBTITLE);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->codec, "webvtt");
  std::string all;
  for (const std::string& t : text->texts) all += t + "|";
  EXPECT_THAT(all, HasSubstr("你好，世界\nHello, world"));
  EXPECT_THAT(all, HasSubstr("再见"));
}

TEST(HlsOutputTest, RollingWindowKeepsTheNewestSegments) {
  ScratchDir dir;
  OutputSetOptions options;
  options.live = true;
  options.hls_segment_seconds = 1.0;
  options.hls_window_segments = 2;
  ASSERT_OK(WriteStream({"hls:" + dir.File("live")}, options, 6.0));
  const std::string playlist = ReadFile(dir.File("live/video.m3u8"));
  EXPECT_EQ(CountOf(playlist, ".ts\n"), 2);
  EXPECT_THAT(playlist, Not(HasSubstr("VOD")));
  EXPECT_THAT(playlist, Not(HasSubstr("video_00000.ts")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("live/video_00000.ts")));
  const std::string subtitles = ReadFile(dir.File("live/subtitles.m3u8"));
  EXPECT_EQ(CountOf(subtitles, ".vtt\n"), 2);
  EXPECT_FALSE(std::filesystem::exists(dir.File("live/subs_00000.vtt")));
  EXPECT_OK(ReadBackAll(dir.File("live/video.m3u8")));
}

TEST(HlsOutputTest, AContinuedStreamIsMarkedDiscontinuous) {
  ScratchDir dir;
  OutputSetOptions options;
  options.hls_segment_seconds = 1.0;
  ASSERT_OK(WriteStream({"hls:" + dir.File("hls")}, options, 2.0));
  ASSERT_OK(WriteStream({"hls:" + dir.File("hls")}, options, 2.0));
  const std::string playlist = ReadFile(dir.File("hls/video.m3u8"));
  EXPECT_EQ(CountOf(playlist, "#EXT-X-DISCONTINUITY"), 1) << playlist;
  EXPECT_EQ(CountOf(playlist, ".ts\n"), 4) << playlist;
  EXPECT_EQ(CountOf(playlist, "#EXT-X-ENDLIST"), 1) << playlist;
  const std::string subtitles = ReadFile(dir.File("hls/subtitles.m3u8"));
  EXPECT_EQ(CountOf(subtitles, "#EXT-X-DISCONTINUITY"), 1) << subtitles;
  EXPECT_EQ(CountOf(subtitles, ".vtt\n"), 4) << subtitles;
  EXPECT_THAT(subtitles, HasSubstr("subs_00003.vtt"));
}

TEST(HlsOutputTest, StartOffsetPastTwoToThe31MsReadsBackMonotonic) {
  ScratchDir dir;
  OutputSetOptions options;
  options.start_offset = MediaTime::Millis((int64_t{1} << 31) - 500);
  ASSERT_OK(WriteStream({"hls:" + dir.File("hls")}, options, 2.0));
  auto read = ReadBackAll(dir.File("hls/video.m3u8"));
  ASSERT_OK(read);
  ExpectMonotonic(read->Find(AVMEDIA_TYPE_VIDEO)->packets);
  ExpectMonotonic(read->Find(AVMEDIA_TYPE_AUDIO)->packets);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 60u);
  // The WebVTT map ties cue time 0 to the offset on the 33-bit 90 kHz clock.
  const int64_t mpegts = (((int64_t{1} << 31) - 500) * 90) % (int64_t{1} << 33);
  EXPECT_THAT(ReadFile(dir.File("hls/subs_00000.vtt")), HasSubstr(absl::StrCat("MPEGTS:", mpegts, ",")));
}

TEST(HlsOutputTest, AnUnwritableDirectoryFailsAloneAndTheMp4KeepsGoing) {
  ScratchDir dir;
  std::ofstream(dir.File("a_file")) << "x";
  const std::string bad = dir.File("a_file/hls");
  const absl::Status status = WriteStream({"hls:" + bad, dir.File("kept.mp4")}, {}, 1.0);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot create the HLS directory " + bad));
  auto read = ReadBackAll(dir.File("kept.mp4"));
  ASSERT_OK(read);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 30u);
}

// A link planted in the directory (by another session sharing the output
// directory, say) is never written through: the HLS output fails naming it,
// the link's target is untouched, and the other outputs go on.
TEST(HlsOutputTest, ALinkPlantedAtTheNextSegmentIsRefusedAndTheMp4KeepsGoing) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("hls"));
  std::ofstream(dir.File("precious.txt")) << "keep me";
  std::filesystem::create_symlink(dir.File("precious.txt"), dir.File("hls/video_00001.ts"));
  OutputSetOptions options;
  options.hls_segment_seconds = 1.0;
  const absl::Status status = WriteStream({"hls:" + dir.File("hls"), dir.File("kept.mp4")}, options, 3.0);
  EXPECT_THAT(status.message(), HasSubstr(dir.File("hls/video_00001.ts") + " is a symbolic link"));
  EXPECT_EQ(ReadFile(dir.File("precious.txt")), "keep me");
  EXPECT_TRUE(std::filesystem::is_symlink(dir.File("hls/video_00001.ts")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("hls/video_00001.ts.tmp")));
  auto read = ReadBackAll(dir.File("kept.mp4"));
  ASSERT_OK(read);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 90u);
}

TEST(HlsOutputTest, ALinkPlantedAtThePlaylistTemporaryFileIsRefused) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("live"));
  std::filesystem::create_directories(dir.File("elsewhere"));
  // A dangling link: following it would create the file it names.
  std::filesystem::create_symlink(dir.File("elsewhere/playlist"), dir.File("live/video.m3u8.tmp"));
  OutputSetOptions options;
  options.live = true;
  options.hls_segment_seconds = 1.0;
  options.hls_window_segments = 2;
  const absl::Status status = WriteStream({"hls:" + dir.File("live")}, options, 3.0);
  EXPECT_THAT(status.message(), HasSubstr(dir.File("live/video.m3u8.tmp") + " is a symbolic link"));
  // Nothing was created or written through the link (libavformat may still
  // rename the link itself over video.m3u8: a rename never follows one).
  EXPECT_TRUE(std::filesystem::is_empty(dir.File("elsewhere")));
}

TEST(HlsOutputTest, ALinkAtAPlaylistIsRefusedBeforeAnythingIsWritten) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("hls"));
  std::ofstream(dir.File("precious.txt")) << "keep me";
  std::filesystem::create_symlink(dir.File("precious.txt"), dir.File("hls/subtitles.m3u8"));
  const absl::Status status = WriteStream({"hls:" + dir.File("hls")}, {}, 1.0);
  EXPECT_THAT(status.message(), HasSubstr(dir.File("hls/subtitles.m3u8") + " is a symbolic link"));
  EXPECT_EQ(ReadFile(dir.File("precious.txt")), "keep me");
  EXPECT_FALSE(std::filesystem::exists(dir.File("hls/video.m3u8")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("hls/video_00000.ts")));
}

TEST(HlsOutputTest, ADirectorySwappedForALinkMidShowIsNotFollowed) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("elsewhere"));
  OutputSetOptions options;
  options.live = true;
  options.hls_segment_seconds = 1.0;
  options.hls_window_segments = 2;
  SystemClock clock;
  auto set = OpenOutputs({"hls:" + dir.File("hls")}, QuickVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_OK(Feed(**set, 1.5));
  std::filesystem::rename(dir.File("hls"), dir.File("moved"));
  std::filesystem::create_directory_symlink(dir.File("elsewhere"), dir.File("hls"));
  ASSERT_OK(Feed(**set, 3.0, 45));
  ASSERT_OK((*set)->Finish());
  EXPECT_TRUE(std::filesystem::is_empty(dir.File("elsewhere")));
  // The show went on in the directory it was opened as, deleting its old segments there.
  EXPECT_THAT(ReadFile(dir.File("moved/video.m3u8")), HasSubstr("#EXT-X-ENDLIST"));
  EXPECT_OK(ReadBackAll(dir.File("moved/video.m3u8")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("moved/video_00000.ts")));
  EXPECT_THAT(ReadFile(dir.File("moved/subtitles.m3u8")), HasSubstr("#EXT-X-ENDLIST"));
}

TEST(HlsOutputTest, AContinuedPlaylistNamingAFileOutsideIsRefused) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("hls"));
  std::ofstream(dir.File("precious.ts")) << "keep me";
  // Continued with a rolling window, the muxer would delete the old segments it lists.
  std::ofstream(dir.File("hls/video.m3u8")) << "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n../precious.ts\n";
  OutputSetOptions options;
  options.live = true;
  options.hls_segment_seconds = 1.0;
  options.hls_window_segments = 1;
  const absl::Status status = WriteStream({"hls:" + dir.File("hls")}, options, 3.0);
  EXPECT_THAT(status.message(), HasSubstr("cannot continue the stream in " + dir.File("hls/video.m3u8")));
  EXPECT_THAT(status.message(), HasSubstr("\"../precious.ts\""));
  EXPECT_EQ(ReadFile(dir.File("precious.ts")), "keep me");
  EXPECT_FALSE(std::filesystem::exists(dir.File("hls/video_00000.ts")));
}

// Lengths that are no number, no length, or would overflow the microsecond
// timeline: each is refused by name before anything is converted or written.
const std::vector<std::pair<double, std::string>> kBadSegmentLengths = {
    {std::nan(""), "nan"},   {std::numeric_limits<double>::infinity(), "inf"},
    {0, "0"},                {-2, "-2"},
    {1e30, "1e+30"},         {-std::numeric_limits<double>::infinity(), "-inf"},
    {0.001, "0.001"},        {kMaxHlsSegmentSeconds + 1, "3601"},
};

TEST(HlsOutputTest, BadSegmentLengthIsNamedAndNothingIsWritten) {
  for (const auto& [seconds, shown] : kBadSegmentLengths) {
    SCOPED_TRACE(shown);
    ScratchDir dir;
    OutputSetOptions options;
    options.hls_segment_seconds = seconds;
    // With an MP4 beside it: the whole set is refused, not only its HLS output.
    const absl::Status status =
        WriteStream({"hls:" + dir.File("hls"), dir.File("beside.mp4")}, options, 1.0);
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("HLS segment length " + shown + " s")));
    EXPECT_THAT(status.message(), HasSubstr("from 0.1 to 3600"));
    EXPECT_THAT(dir.Entries(), IsEmpty()) << "nothing is written";
  }
}

TEST(HlsOutputTest, OutputAloneRefusesABadSegmentLength) {
  auto video = VideoEncoder::Create(QuickVideo());
  ASSERT_OK(video);
  auto audio = AudioEncoder::Create(SpeechAudio());
  ASSERT_OK(audio);
  for (const auto& [seconds, shown] : kBadSegmentLengths) {
    SCOPED_TRACE(shown);
    ScratchDir dir;
    HlsOptions options;
    options.segment_seconds = seconds;
    std::unique_ptr<OutputSink> sink = OpenHlsOutput(*ParseOutputSpec("hls:" + dir.File("hls")),
                                                     (*video)->codec_context(), (*audio)->codec_context(), options);
    ASSERT_TRUE(sink->failed());
    EXPECT_EQ(sink->stats().error_code, absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(sink->stats().error, HasSubstr("HLS segment length " + shown + " s"));
    EXPECT_THAT(dir.Entries(), IsEmpty()) << "nothing is written";
  }
}

TEST(HlsOutputTest, SegmentLengthBoundsAreAccepted) {
  EXPECT_OK(CheckHlsSegmentSeconds(kMinHlsSegmentSeconds));
  EXPECT_OK(CheckHlsSegmentSeconds(kMaxHlsSegmentSeconds));
  EXPECT_OK(CheckHlsSegmentSeconds(2.0));
}

TEST(HlsOutputTest, Formats) {
  EXPECT_EQ(FormatVttTimestamp(MediaTime::Millis(3'723'004)), "01:02:03.004");
  EXPECT_EQ(FormatVttTimestamp(MediaTime::Zero()), "00:00:00.000");
}

}  // namespace
}  // namespace lingcast
