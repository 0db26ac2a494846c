// End-to-end: `lingcast live` as a user runs it -- a host recording made with
// `lingcast tts`, interpreted into an MP4, on the simulated clock and live with
// a stop signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "subprocess.h"

extern "C" {
#include <libavformat/avformat.h>
}

namespace lingcast::e2e {
namespace {

namespace fs = std::filesystem;

constexpr char kScript[] =
    "en: This dress comes in red and in black | zh: 这条裙子有红色和黑色\n"
    "en: Click the link below to buy it now | zh: 点击下方链接立即购买\n"
    "en: Do not forget to follow our channel | zh: 别忘了关注我们的频道\n";

class LiveCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lingcast-e2e-live-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(Path("show.script")) << kScript;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The host says `text` (espeak-ng's en-gb voice, which pocketsphinx hears well).
  std::string Host(const std::string& text) {
    const std::string wav = Path("host.wav");
    const RunResult tts = RunLingcast({"tts", "--lang", "en", "--voice", "en-gb", "-o", wav, text});
    EXPECT_EQ(tts.exit_code, 0) << tts.err;
    return wav;
  }

  fs::path dir_;
};

// Both streams are there and the file plays to its end.
void ExpectPlayableMp4(const std::string& path, double min_seconds) {
  AVFormatContext* raw = nullptr;
  ASSERT_EQ(avformat_open_input(&raw, path.c_str(), nullptr, nullptr), 0) << path;
  std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> format(raw, [](AVFormatContext* f) {
    avformat_close_input(&f);
  });
  ASSERT_GE(avformat_find_stream_info(format.get(), nullptr), 0);
  int video = 0, audio = 0;
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    video += format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO;
    audio += format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
  }
  EXPECT_EQ(video, 1);
  EXPECT_EQ(audio, 1);
  EXPECT_GE(static_cast<double>(format->duration) / AV_TIME_BASE, min_seconds);
}

TEST_F(LiveCliTest, InterpretsARecordingOnTheSimulatedClock) {
  const std::string host = Host("Click the link below to buy it now.");
  const RunResult r = RunLingcast({"live", "--asr", "pocketsphinx", "--in", host, "--out", Path("out.mp4"), "--script", Path("show.script"),
                                   "--clock", "simulated", "--size", "320x180", "--report", Path("report.json"),
                                   "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["utterances"].size(), 1u) << r.out;
  EXPECT_EQ(report["utterances"][0]["line"], 2);
  EXPECT_EQ(report["utterances"][0]["translation"], "点击下方链接立即购买");
  for (const char* key : {"compute_latency_ms", "end_offset_ms"}) {
    for (const char* p : {"p50", "p95", "p99"}) EXPECT_TRUE(report["summary"][key][p].is_number()) << key << p;
  }
  for (const char* key : {"audio_drops", "video_drops", "peak_rss_mb"}) {
    EXPECT_TRUE(report["summary"][key].is_number()) << key;
  }
  EXPECT_TRUE(fs::exists(Path("report.json")));
  ExpectPlayableMp4(Path("out.mp4"), 2.0);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The simulated clock's promise: the same input gives the same report and the
// same bytes. (Across processes: espeak-ng keeps process-wide state, so two runs
// inside one process may differ by a few samples of speech.)
TEST_F(LiveCliTest, TwoSimulatedRunsGiveTheSameReportAndTheSameBytes) {
  const std::string host = Host("Click the link below to buy it now. Do not forget to follow our channel.");
  for (const char* run : {"1", "2"}) {
    const RunResult r = RunLingcast({"live", "--asr", "pocketsphinx", "--in", host, "--out", Path(std::string("out") + run + ".mp4"), "--script",
                                     Path("show.script"), "--clock", "simulated", "--size", "320x180", "--report",
                                     Path(std::string("report") + run + ".json"), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const nlohmann::json first = nlohmann::json::parse(ReadAll(Path("report1.json")));
  const nlohmann::json second = nlohmann::json::parse(ReadAll(Path("report2.json")));
  EXPECT_FALSE(first["utterances"].empty());
  EXPECT_EQ(first["utterances"], second["utterances"]);
  EXPECT_EQ(ReadAll(Path("out1.mp4")), ReadAll(Path("out2.mp4")));
}

TEST_F(LiveCliTest, ASignalStopsItCleanlyWithTheOutputComplete) {
  const std::string host = Host("Click the link below to buy it now. Do not forget to follow our channel.");
  RunOptions options;
  options.signal_on_stderr = "msg=started";
  options.signal = SIGINT;
  const RunResult r = RunLingcast({"--log-level", "info", "live", "--asr", "pocketsphinx", "--in", host, "--out", Path("out.mp4"), "--script",
                                   Path("show.script"), "--size", "320x180", "--quiet"},
                                  options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectPlayableMp4(Path("out.mp4"), 0.0);
}

TEST_F(LiveCliTest, BadUsageIsOneLineAndExitTwo) {
  const std::string host = Host("Hello.");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"live", "--in", host, "--out", Path("o.mp4"), "--source", "zh", "--target", "en", "--asr", "pocketsphinx"},
       "--source zh: pocketsphinx hears only English"},
      {{"live", "--in", host, "--out", "ftp://example.com/x"}, "ftp"},
      {{"live", "--in", Path("missing.wav"), "--out", Path("o.mp4")}, "missing.wav"},
      {{"live", "--in", host, "--out", Path("o.mp4"), "--lag-policy", "panic"}, "--lag-policy"},
      {{"live", "--in", host, "--out", Path("o.mp4"), "--clock", "sundial"}, "--clock"},
      {{"live", "--in", host, "--out", Path("o.mp4"), "--renderer", "opengl"}, "--renderer opengl"},
      {{"live", "--in", host, "--out", Path("o.mp4"), "--watch-gpu-memory", "10,20"}, "--watch-gpu-memory"},
  };
  for (const Case& c : cases) {
    const RunResult r = RunLingcast(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(Path("o.mp4")));
  }
}

// The server's watch marks are checked before it binds: one line, exit 2.
TEST_F(LiveCliTest, TheServersBadWatchMarksAreOneLineAndExitTwo) {
  const std::string token = Path("token");
  std::ofstream(token) << "0123456789abcdef0123456789abcdef\n";
  for (const std::string flag : {"--watch-memory", "--watch-gpu-memory"}) {
    const RunResult r = RunLingcast({"serve", "--listen", "127.0.0.1:0", "--token-file", token, flag, "9,10"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(flag + " \"9,10\": expected HIGH,LOW"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace lingcast::e2e
