// The SRT push (caller mode, MPEG-TS inside) against a real SRT listener:
// libavformat's srt protocol (libsrt) in listener mode, read back in the test.
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/rtmp_test_server.h"
#include "output/switch_checks.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::LiveReader;
using testing_util::MakeFrame;
using testing_util::MakeTone;
using testing_util::OpenOutputs;
using testing_util::PollUntil;
using testing_util::SpeechAudio;

bool HasSrtProtocol() {
  void* opaque = nullptr;
  while (const char* name = avio_enum_protocols(&opaque, 1)) {
    if (std::string(name) == "srt") return true;
  }
  return false;
}

// As live encodes (zerolatency), quick to run.
VideoEncoderOptions LiveVideo(int width = 160, int height = 90, int fps = 30) {
  VideoEncoderOptions video = testing_util::QuickVideo(width, height, fps);
  video.tune = "zerolatency";
  return video;
}

// A loopback listener never congests: the tests push faster than real time.
OutputSetOptions Uncongested() {
  OutputSetOptions options;
  options.network.congestion_threshold = MediaTime::Seconds(600);
  return options;
}

// Once connected (the listener may still be starting: the caller retries until
// it answers), 60 frames at 30 fps with their audio, as fast as they encode.
void PushTwoSecondsAndFinish(OutputSet& set) {
  ASSERT_TRUE(PollUntil([&] { return set.stats().outputs[0].state == OutputState::kConnected; }))
      << set.stats().outputs[0].error;
  const AudioBuffer tone = MakeTone(1.0 / 30, 22050);
  for (int64_t i = 0; i < 60; ++i) {
    ASSERT_OK(set.WriteAudio(tone));
    ASSERT_OK(set.WriteVideo(MakeFrame(160, 90, i), i));
  }
  ASSERT_OK(set.Finish()) << set.stats().outputs[0].error;
}

TEST(SrtOutputTest, AListenerReadsBackMpegTsWithH264AndAac) {
  if (!HasSrtProtocol()) GTEST_SKIP() << "this libavformat was built without libsrt";
  const int port = testing_util::FreeLoopbackPort();
  LiveReader listener(absl::StrCat("srt://127.0.0.1:", port, "?mode=listener"), {{"timeout", "30000000"}});

  SystemClock clock;
  auto set = OpenOutputs({absl::StrCat("srt://127.0.0.1:", port)}, LiveVideo(), SpeechAudio(), Uncongested(), clock);
  ASSERT_OK(set);
  ASSERT_NO_FATAL_FAILURE(PushTwoSecondsAndFinish(**set));
  const OutputSinkStats out = (*set)->stats().outputs[0];
  EXPECT_EQ(out.video_packets, 60);
  EXPECT_EQ(out.kind, OutputSpec::kSrt);
  // The listener ends when the caller closes.
  ASSERT_TRUE(PollUntil([&] { return listener.done(); }));
  const auto& read = listener.Stop();
  ASSERT_OK(read);
  EXPECT_EQ(read->format, "mpegts");
  ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_AUDIO), nullptr);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->codec, "h264");
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_AUDIO)->codec, "aac");
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 60u);
  EXPECT_TRUE(read->Find(AVMEDIA_TYPE_VIDEO)->packets.front().key);
}

// A listener plays each packet out its latency after it was sent and drops
// what it still holds when the caller closes: a graceful end keeps the
// connection open (srt_close_hold) until a 3 s latency has played out. Closed
// at once, the listener here read nothing of the 2 s pushed.
TEST(SrtOutputTest, AGracefulEndReachesAListenerWithALongLatencyWhole) {
  if (!HasSrtProtocol()) GTEST_SKIP() << "this libavformat was built without libsrt";
  const int port = testing_util::FreeLoopbackPort();
  LiveReader listener(absl::StrCat("srt://127.0.0.1:", port, "?mode=listener&latency=3000000"),
                      {{"timeout", "30000000"}});
  SystemClock clock;
  OutputSetOptions options = Uncongested();
  options.network.srt_close_hold = MediaTime::Seconds(5);
  auto set = OpenOutputs({absl::StrCat("srt://127.0.0.1:", port)}, LiveVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_NO_FATAL_FAILURE(PushTwoSecondsAndFinish(**set));
  const OutputSinkStats out = (*set)->stats().outputs[0];
  ASSERT_TRUE(PollUntil([&] { return listener.done(); }));
  const auto& read = listener.Stop();
  ASSERT_OK(read);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_AUDIO), nullptr);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), static_cast<size_t>(out.video_packets));
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_AUDIO)->packets.size(), static_cast<size_t>(out.audio_packets));
}

// A live switch to 320x180 at 60 fps: the MPEG-TS muxer puts the new SPS/PPS
// before the switch's keyframe and every one after it.
TEST(SrtOutputTest, AVideoSwitchCarriesTheNewParametersInBand) {
  if (!HasSrtProtocol()) GTEST_SKIP() << "this libavformat was built without libsrt";
  const int port = testing_util::FreeLoopbackPort();
  LiveReader listener(absl::StrCat("srt://127.0.0.1:", port, "?mode=listener"), {{"timeout", "30000000"}},
                      /*decode=*/true);
  auto video_options = [](int width, int height, int fps) {
    VideoEncoderOptions video = LiveVideo(width, height, fps);
    video.keyframe_interval_s = 0.5;  // keyframes after the switch's too
    return video;
  };
  SystemClock clock;
  auto set = OpenOutputs({absl::StrCat("srt://127.0.0.1:", port)}, video_options(160, 90, 30), SpeechAudio(24000),
                         Uncongested(), clock);
  ASSERT_OK(set);
  ASSERT_TRUE(PollUntil([&] { return (*set)->stats().outputs[0].state == OutputState::kConnected; }))
      << (*set)->stats().outputs[0].error;
  for (int64_t i = 0; i < 30; ++i) {
    ASSERT_OK((*set)->WriteAudio(MakeTone(1.0 / 30, 24000)));
    ASSERT_OK((*set)->WriteVideo(MakeFrame(160, 90, i), i));
  }
  ASSERT_OK((*set)->SwitchVideo(video_options(320, 180, 60), MediaTime::Seconds(1)));
  for (int64_t i = 0; i < 90; ++i) {
    ASSERT_OK((*set)->WriteAudio(MakeTone(1.0 / 60, 24000)));
    ASSERT_OK((*set)->WriteVideo(MakeFrame(320, 180, i), i));
  }
  ASSERT_OK((*set)->Finish()) << (*set)->stats().outputs[0].error;
  ASSERT_TRUE(PollUntil([&] { return listener.done(); }));
  const auto& read = listener.Stop();
  ASSERT_OK(read);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_AUDIO), nullptr);
  testing_util::ExpectPictures(*read->Find(AVMEDIA_TYPE_VIDEO), 1021, {160, 90}, {320, 180}, 30, 90, "srt");
  testing_util::ExpectContinuousAudio(*read->Find(AVMEDIA_TYPE_AUDIO), "srt");
}

// The listener gone for 20 s, then back on the same port: the sender's SRT
// induction probe finds it, so the attempt comes within 2 s of its return
// rather than at the end of a backoff grown to several seconds. The backoff
// runs on a stepped clock; the probes and handshakes are real.
TEST(SrtOutputTest, ReconnectsWithinTwoSecondsOfAListenerBackFromALongOutage) {
  if (!HasSrtProtocol()) GTEST_SKIP() << "this libavformat was built without libsrt";
  const int port = testing_util::FreeLoopbackPort();
  const std::string listen_url = absl::StrCat("srt://127.0.0.1:", port, "?mode=listener");
  auto listener = std::make_unique<LiveReader>(listen_url, std::map<std::string, std::string>{{"timeout", "60000000"}});
  OutputSetOptions options = Uncongested();
  options.network.reconnect.seed = 9;
  // Short attempts: a libsrt handshake waits its timeout in real time, which on
  // the stepped clock would cover most of the backoff's gaps and hide them.
  options.network.connect_timeout = MediaTime::Millis(500);
  SimulatedClock clock;
  auto set = OpenOutputs({absl::StrCat("srt://127.0.0.1:", port)}, LiveVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  auto stats = [&] { return (*set)->stats().outputs[0]; };
  ASSERT_TRUE(PollUntil([&] { return stats().state == OutputState::kConnected; })) << stats().error;
  const AudioBuffer tone = MakeTone(1.0 / 30, 22050);
  int64_t frame = 0;
  auto step = [&] {
    ASSERT_OK((*set)->WriteAudio(tone));
    ASSERT_OK((*set)->WriteVideo(MakeFrame(160, 90, frame), frame));
    ++frame;
    clock.Advance(MediaTime::FromFrameIndex(1, 30));
  };
  for (int i = 0; i < 30; ++i) step();
  listener.reset();
  ASSERT_TRUE(PollUntil([&] {
    step();
    return stats().state == OutputState::kReconnecting;
  })) << stats().error;
  const MediaTime down_at = clock.Now();
  ASSERT_TRUE(PollUntil([&] {
    step();
    return clock.Now() - down_at >= MediaTime::Seconds(20);
  }, std::chrono::seconds(120)));
  EXPECT_NE(stats().state, OutputState::kConnected);
  listener = std::make_unique<LiveReader>(listen_url, std::map<std::string, std::string>{{"timeout", "60000000"}});
  const MediaTime back_at = clock.Now();
  ASSERT_TRUE(PollUntil([&] {
    step();
    return stats().state == OutputState::kConnected;
  })) << stats().error;
  const MediaTime after_back = stats().last_connect_attempt - back_at;
  EXPECT_LE(after_back, MediaTime::Seconds(2)) << after_back.ToString();
  EXPECT_EQ(stats().reconnects, 1);
  ASSERT_OK((*set)->Finish()) << stats().error;
}

}  // namespace
}  // namespace lingcast
