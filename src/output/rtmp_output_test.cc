// The RTMP output against a real nginx-rtmp server on loopback: push, read
// back as a player, survive kill -9, cross the FLV timestamp limits, drop only
// non-key video under congestion, and fail clearly on bad targets.
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/live_output.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/rtmp_test_server.h"
#include "output/switch_checks.h"
#include "output/tcp_relay.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::LiveReader;
using testing_util::MakeFrame;
using testing_util::MakeNoiseFrame;
using testing_util::MakeTone;
using testing_util::PollUntil;
using testing_util::ReadBackResult;
using testing_util::ReadPacket;
using testing_util::RtmpTestServer;
using testing_util::ScratchDir;
using testing_util::SpeechAudio;

constexpr int kInputRate = 22050;  // SpeechAudio()'s

VideoEncoderOptions SmallVideo(int width = 160, int height = 90) {
  VideoEncoderOptions video = testing_util::QuickVideo(width, height);
  video.tune = "zerolatency";  // as live encodes
  return video;
}

// Options for tests that push faster than real time on an idle loopback:
// nothing there is congestion, so nothing may be dropped.
OutputSetOptions Unthrottled() {
  OutputSetOptions options;
  options.network.congestion_threshold = MediaTime::Seconds(600);
  options.network.reconnect_buffer = MediaTime::Seconds(600);
  return options;
}

OutputSpec Spec(const std::string& text) {
  auto spec = ParseOutputSpec(text);
  EXPECT_OK(spec);
  return spec.ok() ? *spec : OutputSpec{};
}

class Feeder {
 public:
  Feeder(OutputSet& set, const VideoEncoderOptions& video, bool noise = false)
      : set_(set), video_(video), noise_(noise), tone_(MakeTone(1.0 / video.fps_num, kInputRate)) {}
  // One frame and the audio up to its end.
  absl::Status Step() {
    absl::Status status = set_.WriteAudio(tone_);
    if (!status.ok()) return status;
    const VideoFrame frame = noise_ ? MakeNoiseFrame(video_.width, video_.height, next_)
                                    : MakeFrame(video_.width, video_.height, next_);
    return set_.WriteVideo(frame, next_++);
  }
  absl::Status Seconds(double seconds) {
    const int64_t frames = static_cast<int64_t>(seconds * video_.fps_num);
    for (int64_t i = 0; i < frames; ++i) {
      absl::Status status = Step();
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }
  int64_t frames() const { return next_; }

 private:
  OutputSet& set_;
  const VideoEncoderOptions video_;
  const bool noise_;
  const AudioBuffer tone_;
  int64_t next_ = 0;
};

OutputSinkStats OutputStats(const OutputSet& set, size_t i = 0) { return set.stats().outputs.at(i); }

bool WaitForState(const OutputSet& set, OutputState state, size_t i = 0) {
  return PollUntil([&] { return OutputStats(set, i).state == state; });
}

void ExpectMonotonic(const std::vector<ReadPacket>& packets, const std::string& what) {
  for (size_t i = 1; i < packets.size(); ++i) {
    ASSERT_GE(packets[i].dts_ms, packets[i - 1].dts_ms) << what << " packet " << i;
  }
}

// Open file descriptors and threads of this process.
int CountEntries(const char* dir) {
  int count = 0;
  if (DIR* d = opendir(dir)) {
    while (readdir(d) != nullptr) ++count;
    closedir(d);
  }
  return count;
}

class RtmpOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!RtmpTestServer::Available()) GTEST_SKIP() << RtmpTestServer::kMissing;
    ASSERT_TRUE(server_.Start()) << "nginx did not start:\n" << server_.ErrorLog();
  }

  // A player subscribed to `key` before the push starts, so it sees it all.
  std::unique_ptr<LiveReader> Player(const std::string& key) {
    auto reader = std::make_unique<LiveReader>(server_.Url("live", key),
                                               std::map<std::string, std::string>{{"rw_timeout", "30000000"}});
    EXPECT_TRUE(PollUntil([&] { return server_.HasPlayer(key); })) << server_.ErrorLog();
    return reader;
  }

  // Pushes `seconds` to live/KEY with `options` and returns what a player saw.
  ReadBackResult PushAndPlay(const std::string& key, double seconds, const OutputSetOptions& options,
                             OutputSetStats* stats_out = nullptr) {
    auto player = Player(key);
    SystemClock clock;
    auto set = OutputSet::Open({Spec(server_.Url("live", key))}, SmallVideo(), SpeechAudio(), options, clock);
    EXPECT_OK(set);
    if (!set.ok()) return {};
    EXPECT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
    Feeder feeder(**set, SmallVideo());
    EXPECT_OK(feeder.Seconds(seconds));
    EXPECT_OK((*set)->Finish()) << OutputStats(**set).error;
    const OutputSetStats stats = (*set)->stats();
    if (stats_out) *stats_out = stats;
    // A player does not see the end of a live stream: wait until it has every packet sent.
    const int64_t sent = stats.outputs[0].video_packets + stats.outputs[0].audio_packets;
    EXPECT_TRUE(PollUntil([&] { return player->packets_read() >= sent || player->done(); }))
        << player->packets_read() << " of " << sent << " packets read";
    auto result = player->Stop();
    EXPECT_OK(result);
    return result.ok() ? *result : ReadBackResult{};
  }

  RtmpTestServer server_;
};

TEST_F(RtmpOutputTest, APlayerReadsBackH264AndAacInSync) {
  OutputSetStats stats;
  const ReadBackResult read = PushAndPlay("basic", 2.0, Unthrottled(), &stats);
  const testing_util::ReadStream* video = read.Find(AVMEDIA_TYPE_VIDEO);
  const testing_util::ReadStream* audio = read.Find(AVMEDIA_TYPE_AUDIO);
  ASSERT_NE(video, nullptr);
  ASSERT_NE(audio, nullptr);
  EXPECT_EQ(read.format, "flv");
  EXPECT_EQ(video->codec, "h264");
  EXPECT_EQ(audio->codec, "aac");
  ASSERT_EQ(video->packets.size(), 60u);
  EXPECT_TRUE(video->packets.front().key);
  // The live timeline starts after AAC's 1024-sample priming (21.3 ms), so the
  // first frame is at 21 ms; a connection starts at that keyframe, and the one
  // audio packet before it (the priming, at 0) is not sent.
  EXPECT_EQ(video->packets.front().dts_ms, 21);
  EXPECT_EQ(audio->packets.front().dts_ms, 21);
  EXPECT_EQ(video->packets.back().dts_ms, 1988);  // frame 59 at 59/30 s
  ExpectMonotonic(video->packets, "video");
  ExpectMonotonic(audio->packets, "audio");
  // 2 s of speech at 48 kHz in 1024-sample AAC frames: 94 frames (the last partial).
  EXPECT_GE(audio->packets.size(), 93u);
  EXPECT_NEAR(static_cast<double>(audio->packets.back().dts_ms), 1990, 30);
  // A/V sync: both streams end together, within a frame.
  EXPECT_NEAR(static_cast<double>(audio->packets.back().dts_ms - video->packets.back().dts_ms), 0, 34);

  ASSERT_EQ(stats.outputs.size(), 1u);
  const OutputSinkStats& out = stats.outputs[0];
  EXPECT_EQ(out.state, OutputState::kFinished);
  EXPECT_EQ(out.video_packets, 60);
  EXPECT_EQ(out.audio_packets, stats.audio_packets - 1);
  EXPECT_EQ(out.discarded_packets, 1);
  EXPECT_EQ(out.dropped_video_frames, 0);
  EXPECT_EQ(out.reconnects, 0);
  EXPECT_GT(out.bytes, 0);
  EXPECT_GT(out.bitrate, 0);
  EXPECT_LT(std::abs(out.av_offset.millis()), 100);
}

// A live switch to 320x180 at 60 fps: the player gets a new AVC sequence
// header and a keyframe, decodes the new size from the switch on, and the
// audio runs on without a gap.
TEST_F(RtmpOutputTest, AVideoSwitchSendsANewSequenceHeaderAndAKeyframe) {
  auto player = std::make_unique<LiveReader>(server_.Url("live", "switch"),
                                             std::map<std::string, std::string>{{"rw_timeout", "30000000"}},
                                             /*decode=*/true);
  ASSERT_TRUE(PollUntil([&] { return server_.HasPlayer("switch"); })) << server_.ErrorLog();
  SystemClock clock;
  auto set = OutputSet::Open({Spec(server_.Url("live", "switch"))}, SmallVideo(), SpeechAudio(), Unthrottled(), clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
  Feeder before(**set, SmallVideo());
  ASSERT_OK(before.Seconds(1.0));
  VideoEncoderOptions big = SmallVideo(320, 180);
  big.fps_num = 60;
  ASSERT_OK((*set)->SwitchVideo(big, MediaTime::Seconds(1)));
  Feeder after(**set, big);
  ASSERT_OK(after.Seconds(1.0));
  ASSERT_OK((*set)->Finish()) << OutputStats(**set).error;
  const OutputSetStats stats = (*set)->stats();
  const int64_t sent = stats.outputs[0].video_packets + stats.outputs[0].audio_packets;
  ASSERT_TRUE(PollUntil([&] { return player->packets_read() >= sent || player->done(); }));
  const auto& read = player->Stop();
  ASSERT_OK(read);
  const testing_util::ReadStream* video = read->Find(AVMEDIA_TYPE_VIDEO);
  const testing_util::ReadStream* audio = read->Find(AVMEDIA_TYPE_AUDIO);
  ASSERT_NE(video, nullptr);
  ASSERT_NE(audio, nullptr);
  // The live timeline starts after AAC's priming (21 ms).
  testing_util::ExpectPictures(*video, 1021, {160, 90}, {320, 180}, 30, 60, "rtmp");
  testing_util::ExpectContinuousAudioMs(*audio, "rtmp");
  ExpectMonotonic(video->packets, "video");
  EXPECT_NEAR(static_cast<double>(audio->packets.back().dts_ms - video->packets.back().dts_ms), 0, 34);
}

struct OffsetCase {
  const char* name;
  int64_t offset_ms;
  int64_t expected_first_dts_ms;  // on the FLV timeline
  int64_t limit_ms;               // the boundary the stream crosses
};

class RtmpTimestampTest : public RtmpOutputTest, public ::testing::WithParamInterface<OffsetCase> {};

TEST_P(RtmpTimestampTest, TimestampsStayMonotonicAcrossTheLimit) {
  OutputSetOptions options = Unthrottled();
  options.start_offset = MediaTime::Millis(GetParam().offset_ms);
  const ReadBackResult read = PushAndPlay(GetParam().name, 1.5, options);
  for (AVMediaType type : {AVMEDIA_TYPE_VIDEO, AVMEDIA_TYPE_AUDIO}) {
    const testing_util::ReadStream* stream = read.Find(type);
    ASSERT_NE(stream, nullptr);
    ASSERT_FALSE(stream->packets.empty());
    ExpectMonotonic(stream->packets, stream->codec);
    EXPECT_LT(stream->packets.front().dts_ms, GetParam().limit_ms);
    EXPECT_GT(stream->packets.back().dts_ms, GetParam().limit_ms);
  }
  EXPECT_EQ(read.Find(AVMEDIA_TYPE_VIDEO)->packets.front().dts_ms, GetParam().expected_first_dts_ms);
  EXPECT_EQ(read.Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 45u);
}

constexpr int64_t k24 = int64_t{1} << 24;
constexpr int64_t k30 = int64_t{1} << 30;
constexpr int64_t k31 = int64_t{1} << 31;

INSTANTIATE_TEST_SUITE_P(
    Limits, RtmpTimestampTest,
    ::testing::Values(
        // RTMP's 24-bit timestamp field overflows into the extended timestamp.
        OffsetCase{"ext24", k24 - 500, k24 - 500, k24},
        // FLV's signed 32 bits end at 2^31: the connection's timeline is based
        // at a multiple of 2^30, so the player sees media time - 2^30.
        OffsetCase{"s31", k31 - 500, k31 - 500 - k30, k31 - k30}),
    [](const ::testing::TestParamInfo<OffsetCase>& info) { return std::string(info.param.name); });

TEST(FlvConnectionBaseTest, BasesAtMultiplesOfTwoToThe30) {
  EXPECT_EQ(FlvConnectionBase(0), 0);
  EXPECT_EQ(FlvConnectionBase(k24), 0);
  EXPECT_EQ(FlvConnectionBase(k30 - 1), 0);
  EXPECT_EQ(FlvConnectionBase(k31 - 500), k30);
  EXPECT_EQ(FlvConnectionBase(k31 + 5), k31);
}

// Every packet the output put on the wire, as the observer saw it.
struct WireLog {
  std::mutex mu;
  std::vector<PacketWritten> packets;
  PacketWrittenObserver Observer() {
    return [this](const std::string&, const PacketWritten& p) {
      std::lock_guard<std::mutex> lock(mu);
      packets.push_back(p);
    };
  }
};

// kill -9 the server `cycles` times mid-stream and restart it.
void ReconnectCycles(RtmpTestServer& server, int cycles) {
  // ThreadSanitizer starts a thread of its own at the process's first
  // pthread_create: have that happen before counting.
  std::thread([] {}).join();
  const int fds_before = CountEntries("/proc/self/fd");
  const int threads_before = CountEntries("/proc/self/task");
  {
    // The test steps the clock: backoff waits are exact and cost no real time.
    SimulatedClock clock;
    WireLog wire;
    OutputSetOptions options = Unthrottled();
    options.network.reconnect.seed = 7;
    options.on_packet_written = wire.Observer();
    auto set = OutputSet::Open({Spec(server.Url("live", "cycle"))}, SmallVideo(), SpeechAudio(), options, clock);
    ASSERT_OK(set);
    ASSERT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
    Feeder feeder(**set, SmallVideo());
    const MediaTime frame = MediaTime::FromFrameIndex(1, 30);
    auto step = [&] {
      ASSERT_OK(feeder.Step());
      clock.Advance(frame);
    };
    for (int cycle = 1; cycle <= cycles; ++cycle) {
      for (int i = 0; i < 30; ++i) step();
      server.Kill();
      // Media keeps coming; the sender notices the dead connection on its next write.
      ASSERT_TRUE(PollUntil([&] {
        step();
        return OutputStats(**set).state == OutputState::kReconnecting;
      })) << OutputStats(**set).error;
      ASSERT_TRUE(server.Start()) << server.ErrorLog();
      const MediaTime back_at = clock.Now();
      ASSERT_TRUE(PollUntil([&] {
        step();
        return OutputStats(**set).reconnects == cycle && OutputStats(**set).state == OutputState::kConnected;
      })) << OutputStats(**set).error;
      // The first retry comes at most 2 s (the backoff's first step) after the
      // loss, so at most 2 s after the server is back.
      EXPECT_LE(OutputStats(**set).last_connect_attempt - back_at, MediaTime::Seconds(2)) << "cycle " << cycle;
    }
    for (int i = 0; i < 30; ++i) step();
    ASSERT_OK((*set)->Finish()) << OutputStats(**set).error;
    EXPECT_EQ(OutputStats(**set).reconnects, cycles);
    EXPECT_GE((*set)->stats().keyframes_forced, 1);

    std::lock_guard<std::mutex> lock(wire.mu);
    for (int connection = 0; connection <= cycles; ++connection) {
      const PacketWritten* first = nullptr;
      int audio = 0;
      for (const PacketWritten& p : wire.packets) {
        if (p.connection != connection) continue;
        if (first == nullptr) first = &p;
        if (p.stream_index == kAudioStreamIndex) ++audio;
      }
      ASSERT_NE(first, nullptr) << "connection " << connection;
      EXPECT_EQ(first->stream_index, kVideoStreamIndex) << "connection " << connection;
      EXPECT_TRUE(first->key) << "connection " << connection;
      EXPECT_GT(audio, 10) << "audio resumes on connection " << connection;
    }
  }
  EXPECT_EQ(CountEntries("/proc/self/fd"), fds_before);
  EXPECT_EQ(CountEntries("/proc/self/task"), threads_before);
}

TEST_F(RtmpOutputTest, ReconnectsAfterKill9StartingAtAKeyframeWithoutLeaks) { ReconnectCycles(server_, 3); }

// The 20 cycles: run with LINGCAST_LONG_TESTS=1 (about 20 s).
TEST_F(RtmpOutputTest, LongTwentyReconnectCycles) {
  if (std::getenv("LINGCAST_LONG_TESTS") == nullptr) GTEST_SKIP() << "long test: set LINGCAST_LONG_TESTS=1";
  ReconnectCycles(server_, 20);
}

// A server down for 20 s: the backoff has grown to 10 s between attempts, but
// the sender's TCP probe sees it back and reconnects within 2 s of its return.
TEST_F(RtmpOutputTest, ReconnectsWithinTwoSecondsOfAServerBackFromALongOutage) {
  SimulatedClock clock;
  OutputSetOptions options = Unthrottled();
  options.network.reconnect.seed = 5;
  auto set = OutputSet::Open({Spec(server_.Url("live", "outage"))}, SmallVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
  Feeder feeder(**set, SmallVideo());
  auto step = [&] {
    ASSERT_OK(feeder.Step());
    clock.Advance(MediaTime::FromFrameIndex(1, 30));
  };
  for (int i = 0; i < 30; ++i) step();
  server_.Kill();
  const MediaTime down_at = clock.Now();
  ASSERT_TRUE(PollUntil([&] {
    step();
    return clock.Now() - down_at >= MediaTime::Seconds(20);
  }, std::chrono::seconds(120)));
  EXPECT_EQ(OutputStats(**set).state, OutputState::kReconnecting);
  ASSERT_TRUE(server_.Start()) << server_.ErrorLog();
  const MediaTime back_at = clock.Now();
  ASSERT_TRUE(PollUntil([&] {
    step();
    return OutputStats(**set).state == OutputState::kConnected;
  })) << OutputStats(**set).error;
  const MediaTime after_back = OutputStats(**set).last_connect_attempt - back_at;
  EXPECT_LE(after_back, MediaTime::Seconds(2)) << after_back.ToString();
  EXPECT_EQ(OutputStats(**set).reconnects, 1);
  ASSERT_OK((*set)->Finish()) << OutputStats(**set).error;
}

// A server that takes TCP connections but never answers the RTMP handshake:
// each attempt times out, and the next comes on the backoff. The TCP probe
// must not hasten it (it answers, but the server is not "back"), or the
// retries would be spent in seconds.
TEST_F(RtmpOutputTest, AServerThatTakesTcpButNeverAnswersIsRetriedOnTheBackoffNotFaster) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener, 256), 0);  // the kernel completes handshakes; nobody accepts
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  SimulatedClock clock;
  OutputSetOptions options;
  options.network.reconnect.initial_delay = MediaTime::Seconds(10);
  options.network.reconnect.multiplier = 1.0;
  options.network.reconnect.jitter = 0;
  options.network.reconnect.max_retries = 2;
  const std::string url = absl::StrCat("rtmp://127.0.0.1:", ntohs(addr.sin_port), "/live/mute");
  auto set = OutputSet::Open({Spec(url)}, SmallVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(PollUntil([&] {
    clock.Advance(MediaTime::Millis(100));
    return OutputStats(**set).state == OutputState::kFailed;
  }, std::chrono::seconds(60)));
  // Attempts at 0, 15 and 30 s (5 s connect timeout + 10 s backoff each).
  EXPECT_GE(OutputStats(**set).last_connect_attempt, MediaTime::Seconds(30));
  EXPECT_THAT(OutputStats(**set).error, HasSubstr("gave up after 2 failed attempts"));
  close(listener);
}

// A render writes a spoken line's audio seconds ahead of its frames: none of
// it may be lost, and the stream must still start at a keyframe.
TEST_F(RtmpOutputTest, AudioWrittenSecondsAheadOfTheFramesIsAllSent) {
  auto player = Player("ahead");
  SystemClock clock;
  auto set = OutputSet::Open({Spec(server_.Url("live", "ahead"))}, SmallVideo(), SpeechAudio(), Unthrottled(), clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
  ASSERT_OK((*set)->WriteAudio(MakeTone(3.0, kInputRate)));
  for (int64_t i = 0; i < 90; ++i) ASSERT_OK((*set)->WriteVideo(MakeFrame(160, 90, i), i));
  ASSERT_OK((*set)->Finish()) << OutputStats(**set).error;
  const OutputSetStats stats = (*set)->stats();
  const OutputSinkStats& out = stats.outputs[0];
  EXPECT_EQ(out.audio_packets, stats.audio_packets - 1);  // all but the priming packet
  EXPECT_EQ(out.video_packets, 90);
  const int64_t sent = out.video_packets + out.audio_packets;
  EXPECT_TRUE(PollUntil([&] { return player->packets_read() >= sent; })) << player->packets_read();
  const auto& read = player->Stop();
  ASSERT_OK(read);
  ASSERT_NE(read->Find(AVMEDIA_TYPE_VIDEO), nullptr);
  EXPECT_TRUE(read->Find(AVMEDIA_TYPE_VIDEO)->packets.front().key);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_AUDIO)->packets.size(), static_cast<size_t>(out.audio_packets));
}

TEST_F(RtmpOutputTest, UnderCongestionOnlyNonKeyVideoIsDropped) {
  // A relay between the output and the server that passes 150 KB/s, far below
  // the noise video's rate: the send queue grows past the threshold.
  testing_util::TcpRelay relay(server_.port(), /*bytes_per_second=*/150'000);
  ASSERT_TRUE(relay.ok());
  SystemClock clock;
  WireLog wire;
  OutputSetOptions options;
  options.network.drain_timeout = MediaTime::Seconds(120);
  options.on_packet_written = wire.Observer();
  VideoEncoderOptions video = SmallVideo(320, 180);
  video.keyframe_interval_s = 0.5;
  const std::string url = absl::StrCat("rtmp://127.0.0.1:", relay.port(), "/live/slow");
  auto set = OutputSet::Open({Spec(url)}, video, SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kConnected)) << OutputStats(**set).error;
  Feeder feeder(**set, video, /*noise=*/true);
  ASSERT_OK(feeder.Seconds(4.0));
  ASSERT_OK((*set)->Finish()) << OutputStats(**set).error;
  const OutputSetStats stats = (*set)->stats();
  const OutputSinkStats& out = stats.outputs[0];
  EXPECT_GT(out.dropped_video_frames, 0);
  SCOPED_TRACE(absl::StrCat("dropped ", out.dropped_video_frames, " sent ", out.video_packets, " of ",
                            stats.video_packets, " video packets"));
  // No audio lost to congestion (only the priming packet before the first keyframe).
  EXPECT_EQ(out.audio_packets, stats.audio_packets - 1);
  EXPECT_EQ(out.discarded_packets, 1);
  EXPECT_EQ(out.video_packets + out.dropped_video_frames, stats.video_packets);

  // What went on the wire still decodes: after every gap in the video, a keyframe.
  std::lock_guard<std::mutex> lock(wire.mu);
  MediaTime previous = MediaTime::Micros(-1);
  int gaps = 0;
  for (const PacketWritten& p : wire.packets) {
    if (p.stream_index != kVideoStreamIndex) continue;
    if (previous >= MediaTime::Zero() && p.pts - previous > MediaTime::Millis(40)) {
      ++gaps;
      EXPECT_TRUE(p.key) << "video resumed at " << p.pts.ToString() << " without a keyframe";
    }
    previous = p.pts;
  }
  EXPECT_GT(gaps, 0);
}

TEST_F(RtmpOutputTest, UnknownApplicationIsRefusedWithoutRetrying) {
  SystemClock clock;
  auto set = OutputSet::Open({Spec(server_.Url("nosuchapp", "k"))}, SmallVideo(), SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kFailed));
  const OutputSinkStats out = OutputStats(**set);
  EXPECT_THAT(out.error, HasSubstr("refused the stream"));
  EXPECT_THAT(out.error, HasSubstr("/nosuchapp/***"));
  EXPECT_EQ(out.reconnects, 0);
  Feeder feeder(**set, SmallVideo());
  const absl::Status write = feeder.Step();
  EXPECT_FALSE(write.ok());
  EXPECT_THAT(write.message(), HasSubstr("refused the stream"));
}

TEST_F(RtmpOutputTest, RejectedAuthenticationFailsThatOutputAndTheFileKeepsGoing) {
  ScratchDir dir;
  SystemClock clock;
  auto set = OutputSet::Open({Spec(server_.Url("auth", "badkey")), Spec(dir.File("kept.mp4"))}, SmallVideo(),
                             SpeechAudio(), {}, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(WaitForState(**set, OutputState::kFailed, 0));
  EXPECT_THAT(OutputStats(**set, 0).error, HasSubstr("refused the stream"));
  Feeder feeder(**set, SmallVideo());
  ASSERT_OK(feeder.Seconds(0.5));
  const absl::Status finished = (*set)->Finish();
  EXPECT_THAT(finished.message(), HasSubstr("refused the stream"));
  EXPECT_EQ(OutputStats(**set, 1).state, OutputState::kFinished);
  auto read = testing_util::ReadBackAll(dir.File("kept.mp4"));
  ASSERT_OK(read);
  EXPECT_EQ(read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), 15u);
}

TEST_F(RtmpOutputTest, NoServerRetriesThenGivesUpNamingTheAddress) {
  SimulatedClock clock;
  OutputSetOptions options;
  options.network.reconnect.max_retries = 2;
  const int port = testing_util::FreeLoopbackPort();
  const std::string url = absl::StrCat("rtmp://127.0.0.1:", port, "/live/k");
  auto set = OutputSet::Open({Spec(url)}, SmallVideo(), SpeechAudio(), options, clock);
  ASSERT_OK(set);
  ASSERT_TRUE(PollUntil([&] {
    clock.Advance(MediaTime::Millis(100));
    return OutputStats(**set).state == OutputState::kFailed;
  }));
  const OutputSinkStats out = OutputStats(**set);
  EXPECT_THAT(out.error, HasSubstr("gave up after 2 failed attempts"));
  EXPECT_THAT(out.error, HasSubstr(absl::StrCat("127.0.0.1:", port)));
  EXPECT_THAT(out.error, HasSubstr("refused"));
}

TEST_F(RtmpOutputTest, UnresolvableHostIsNamed) {
  SimulatedClock clock;
  OutputSetOptions options;
  options.network.reconnect.max_retries = 0;
  auto set = OutputSet::Open({Spec("rtmp://no-such-host.invalid/live/k")}, SmallVideo(), SpeechAudio(), options, clock);
  // The lookup fails on the sender's thread: when it fails before Open() has
  // returned, Open() reports it; either way the error names the host.
  if (!set.ok()) {
    EXPECT_THAT(set.status().message(), HasSubstr("cannot resolve host \"no-such-host.invalid\""));
    return;
  }
  ASSERT_TRUE(WaitForState(**set, OutputState::kFailed));
  EXPECT_THAT(OutputStats(**set).error, HasSubstr("cannot resolve host \"no-such-host.invalid\""));
}

}  // namespace
}  // namespace lingcast
