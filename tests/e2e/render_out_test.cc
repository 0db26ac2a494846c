// End-to-end: `lingcast render --out` with several outputs at once, as a user runs it.
// (RTMP and SRT pushes against real servers are tested in src/output.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "subprocess.h"

namespace lingcast::e2e {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScript = "zh: 你好。 | en: Hello.\nen: Goodbye. | zh: 再见。\n";

class RenderOutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lingcast-e2e-out-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "s.script") << kScript;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(RenderOutTest, OneRenderWritesAnMp4WithSrtAndAnHlsDirectory) {
  const RunResult r = RunLingcast({"render", Path("s.script"), "-o", Path("a.mp4"), "--out", "hls:" + Path("hls"),
                                   "--size", "320x180", "--subtitles", "srt", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = nlohmann::json::parse(r.out);
  ASSERT_EQ(summary["outputs"].size(), 2u);
  EXPECT_EQ(summary["outputs"][0]["kind"], "mp4");
  EXPECT_EQ(summary["outputs"][0]["state"], "finished");
  EXPECT_EQ(summary["outputs"][1]["kind"], "hls");
  EXPECT_EQ(summary["outputs"][1]["state"], "finished");
  EXPECT_EQ(summary["outputs"][0]["video_packets"], summary["frames"]);
  EXPECT_EQ(summary["outputs"][1]["video_packets"], summary["frames"]);
  EXPECT_EQ(summary["subtitles"], Path("a.srt"));
  EXPECT_TRUE(fs::exists(Path("a.mp4")));
  EXPECT_NE(Read(Path("a.srt")).find("Hello."), std::string::npos);
  EXPECT_NE(Read(Path("hls/index.m3u8")).find("TYPE=SUBTITLES"), std::string::npos);
  EXPECT_NE(Read(Path("hls/video.m3u8")).find("#EXT-X-ENDLIST"), std::string::npos);
  std::string cues;
  for (const auto& e : fs::directory_iterator(Path("hls"))) {
    if (e.path().extension() == ".vtt") cues += Read(e.path().string());
  }
  EXPECT_NE(cues.find("你好。\nHello."), std::string::npos) << cues;
}

TEST_F(RenderOutTest, AnUnknownSchemeIsOneLineAndExit2WithNothingWritten) {
  const RunResult r = RunLingcast({"render", Path("s.script"), "--out", "udp://127.0.0.1:5000"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown output scheme \"udp://\""), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // the script only
}

TEST_F(RenderOutTest, NoOutputIsABadUsage) {
  const RunResult r = RunLingcast({"render", Path("s.script")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no output"), std::string::npos) << r.err;
}

TEST_F(RenderOutTest, AnUnwritableHlsDirectoryFailsAloneAndTheMp4IsKept) {
  std::ofstream(dir_ / "a_file") << "x";
  const RunResult r = RunLingcast({"render", Path("s.script"), "--out", Path("kept.mp4"), "--out",
                                   "hls:" + Path("a_file/hls"), "--size", "320x180", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot create the HLS directory"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(Path("kept.mp4")));
}

TEST_F(RenderOutTest, ANegativeStartOffsetIsRefused) {
  const RunResult r = RunLingcast({"render", Path("s.script"), "-o", Path("a.mp4"), "--start-offset", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--start-offset"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Path("a.mp4")));
}

}  // namespace
}  // namespace lingcast::e2e
