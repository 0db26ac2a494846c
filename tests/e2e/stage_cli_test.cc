// End-to-end: the single-stage commands (tts, asr, translate, follow, lipsync) as a
// user runs them, chained the way a user would chain them.
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

class StageCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lingcast-e2e-stage-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return (dir_ / name).string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_F(StageCliTest, SpeechToWavThenMouthCues) {
  const std::string wav = Path("hello.wav");
  const RunResult tts = RunLingcast(
      {"tts", "Hello everyone, welcome to the show.", "--lang", "en", "-o", wav, "--timeline", Path("t.json"), "--json"});
  ASSERT_EQ(tts.exit_code, 0) << tts.err;
  nlohmann::json summary = nlohmann::json::parse(tts.out);
  EXPECT_GT(summary["duration_s"].get<double>(), 1.0);
  nlohmann::json timeline = nlohmann::json::parse(std::ifstream(Path("t.json")));
  EXPECT_FALSE(timeline["phonemes"].empty());
  EXPECT_FALSE(timeline["words"].empty());

  const RunResult cues = RunLingcast({"lipsync", wav, "--format", "tsv"});
  ASSERT_EQ(cues.exit_code, 0) << cues.err;
  const std::vector<std::string> lines = Lines(cues.out);
  ASSERT_GE(lines.size(), 3u);
  for (const std::string& line : lines) {
    ASSERT_NE(line.find('\t'), std::string::npos) << line;
    const std::string shape = line.substr(line.find('\t') + 1);
    EXPECT_NE(std::string("ABCDEFGHX").find(shape), std::string::npos) << line;
  }
  EXPECT_EQ(lines.back().substr(lines.back().find('\t') + 1), "X");
}

TEST_F(StageCliTest, RecognizesARecordingAsJsonLines) {
  const std::string jfk = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/en-jfk.wav";
  if (!fs::exists(jfk)) GTEST_SKIP() << "no recordings in ../shared/data";
  const RunResult asr = RunLingcast({"asr", jfk, "--json"});
  ASSERT_EQ(asr.exit_code, 0) << asr.err;
  int finals = 0;
  for (const std::string& line : Lines(asr.out)) {
    nlohmann::json h = nlohmann::json::parse(line);
    EXPECT_TRUE(h["type"] == "partial" || h["type"] == "final") << line;
    EXPECT_LE(h["start_ms"].get<int64_t>(), h["end_ms"].get<int64_t>()) << line;
    if (h["type"] == "final") {
      ++finals;
      EXPECT_FALSE(h["words"].empty()) << line;
    }
  }
  EXPECT_GE(finals, 1);
}

TEST_F(StageCliTest, TranslatesStdinFromAScript) {
  const std::string script = Write("show.script",
                                   "zh: 大家好，欢迎来到直播间。 | en: Hello everyone, welcome to the live stream.\n"
                                   "zh: 所有订单都包邮。 | en: Every order ships for free.\n");
  RunOptions options;
  options.stdin_text = "所有订单都包邮\n今天天气怎么样\n";
  const RunResult r = RunLingcast({"translate", "--tm", script}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Every order ships for free.\n\n");
  EXPECT_NE(r.err.find("no translation"), std::string::npos) << r.err;
}

TEST_F(StageCliTest, StageCommandsRejectBadInputWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::string script = Write("show.script", "en: Hello | zh: 你好\n");
  for (const Case& c : std::vector<Case>{
           {{"asr", Path("missing.wav")}, "missing.wav"},
           {{"asr", Path("missing.wav"), "--lang", "zh"}, "missing.wav"},
           {{"follow", Path("missing.wav"), "--script", script}, "missing.wav"},
           {{"lipsync", Path("missing.wav")}, "missing.wav"},
           {{"translate", "--tm", Path("missing.tsv")}, "missing.tsv"},
           {{"translate", "--tm", script, "--engine", "gpt"}, "unknown translation engine"},
           {{"tts", "hello", "--voice", "no-such-voice", "-o", Path("x.wav")}, "no-such-voice"},
       }) {
    const RunResult r = RunLingcast(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(fs::exists(Path("x.wav")));
}

// The marian engine comes from a plug-in opened at run time (lingcast itself does
// not link libtorch): a tiny random-weight checkpoint translates (nonsense, but
// through the whole path), and a bad directory is one clear line.
TEST_F(StageCliTest, TranslatesWithTheMarianPlugin) {
  const std::string model = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/marian_tiny";
  RunOptions options;
  options.stdin_text = "今天 hello\n";
  const RunResult r = RunLingcast({"translate", "--from", "zh", "--to", "en", "--engine", "marian", "--model", model,
                                   "--json"},
                                  options);
  if (r.exit_code != 0 && r.err.find("built without neural engines") != std::string::npos) {
    GTEST_SKIP() << "this build has no neural engines (libtorch not found)";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json line = nlohmann::json::parse(r.out);
  EXPECT_EQ(line["engine"], "marian");
  EXPECT_FALSE(line["target"].get<std::string>().empty());

  const RunResult bad = RunLingcast({"translate", "--engine", "marian", "--model", Path("no-such-model")}, options);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("no-such-model"), std::string::npos) << bad.err;
}

// The vits engine comes from the same plug-in: the tiny random-weight checkpoint
// speaks (noise, but through the whole path: tokenizer, durations, flow, HiFi-GAN,
// WAV and a timeline timed by the predicted durations).
TEST_F(StageCliTest, SpeaksWithTheVitsPlugin) {
  const std::string model = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/vits_tiny";
  const RunResult r = RunLingcast({"tts", "Hello big world.", "--lang", "en", "--engine", "vits", "--model", model, "-o",
                                   Path("vits.wav"), "--timeline", Path("vits.json"), "--json"});
  if (r.exit_code != 0 && r.err.find("built without neural engines") != std::string::npos) {
    GTEST_SKIP() << "this build has no neural engines (libtorch not found)";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(nlohmann::json::parse(r.out)["duration_s"].get<double>(), 0.0);
  const nlohmann::json timeline = nlohmann::json::parse(std::ifstream(Path("vits.json")));
  EXPECT_EQ(timeline["sample_rate"], 16000);
  ASSERT_EQ(timeline["words"].size(), 3u) << timeline.dump();
  EXPECT_EQ(timeline["words"][1]["text"], "big");
  EXPECT_LT(timeline["words"][1]["start_ms"].get<double>(), timeline["words"][2]["start_ms"].get<double>());

  const RunResult no_model = RunLingcast({"tts", "hello", "--engine", "vits", "-o", Path("x.wav")});
  EXPECT_EQ(no_model.exit_code, 2) << no_model.err;
  EXPECT_NE(no_model.err.find("--model"), std::string::npos) << no_model.err;
  const RunResult bad = RunLingcast({"tts", "hello", "--engine", "vits", "--model", Path("no-such-model"), "-o", Path("x.wav")});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("no-such-model"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(Path("x.wav")));
}

}  // namespace
}  // namespace lingcast::e2e
