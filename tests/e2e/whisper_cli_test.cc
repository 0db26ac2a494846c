// `lingcast asr --engine whisper`: the Whisper engine comes from the neural
// plug-in opened at run time (lingcast itself does not link libtorch). The tiny
// random-weight checkpoint hears nonsense, but through the whole path: raw PCM,
// VAD, the plug-in, the session, the printed finals; bad options are one line.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "subprocess.h"

namespace lingcast::e2e {
namespace {

const std::string kModel = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/whisper_tiny";
const std::string kMarianModel = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/marian_tiny";
const std::string kVitsModel = std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/vits_tiny";

// Half a second of silence, two seconds of a loud sweep with bursts, a second of
// silence: raw s16le 16 kHz mono.
std::string TestPcm() {
  std::vector<double> samples(16000 / 2, 0.0);
  for (int i = 0; i < 32000; ++i) {
    const double t = i / 16000.0;
    const double sweep = 0.3 * std::sin(2 * M_PI * (200 + 900 * t) * t);
    const double bursts = std::sin(2 * M_PI * 3 * t) > 0.2 ? 0.2 * std::sin(2 * M_PI * 1500 * t) : 0.0;
    samples.push_back(sweep + bursts);
  }
  samples.resize(samples.size() + 16000, 0.0);
  std::string pcm;
  for (double s : samples) {
    const auto v = static_cast<std::int16_t>(std::lround(s * 32767.0));
    pcm += static_cast<char>(v & 0xFF);
    pcm += static_cast<char>((v >> 8) & 0xFF);
  }
  return pcm;
}

// TestPcm() as a 16 kHz mono WAV file.
void WriteTestWav(const std::string& path) {
  const std::string pcm = TestPcm();
  std::ofstream wav(path, std::ios::binary);
  auto u32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) wav.put(static_cast<char>((v >> (8 * i)) & 0xFF)); };
  auto u16 = [&](std::uint16_t v) { for (int i = 0; i < 2; ++i) wav.put(static_cast<char>((v >> (8 * i)) & 0xFF)); };
  wav << "RIFF";
  u32(static_cast<std::uint32_t>(36 + pcm.size()));
  wav << "WAVEfmt ";
  u32(16), u16(1), u16(1), u32(16000), u32(32000), u16(2), u16(16);
  wav << "data";
  u32(static_cast<std::uint32_t>(pcm.size()));
  wav << pcm;
}

TEST(WhisperCli, RecognizesRawPcmThroughThePlugin) {
  RunOptions options;
  options.stdin_text = TestPcm();
  const RunResult r = RunLingcast({"asr", "-", "--engine", "whisper", "--model", kModel, "--language", "en", "--json"}, options);
  if (r.exit_code != 0 && r.err.find("built without neural engines") != std::string::npos) {
    GTEST_SKIP() << "this build has no neural engines (libtorch not found)";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int finals = 0;
  std::size_t start = 0;
  while (start < r.out.size()) {
    const std::size_t end = r.out.find('\n', start);
    const nlohmann::json line = nlohmann::json::parse(r.out.substr(start, end - start));
    start = end == std::string::npos ? r.out.size() : end + 1;
    EXPECT_EQ(line["language"], "en");
    if (line["type"] != "final") continue;
    ++finals;
    EXPECT_FALSE(line["text"].get<std::string>().empty());
    EXPECT_GE(line["start_ms"].get<int>(), 300);
    EXPECT_LE(line["end_ms"].get<int>(), 3500);
    EXPECT_FALSE(line["words"].empty());
  }
  EXPECT_EQ(finals, 1) << r.out;
}

TEST(WhisperCli, BadOptionsAreOneClearLine) {
  // Nothing on stdin: each of these stops before reading it.
  RunOptions options;
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  for (const Case& c : std::vector<Case>{
           {{"asr", "-", "--engine", "whisper", "--model", kModel, "--task", "summarize"}, "summarize"},
           {{"asr", "-", "--engine", "whispr", "--model", kModel}, "whispr"},
           {{"asr", "-", "--engine", "whisper", "--model", kModel + "/no-such-dir"}, "no-such-dir"},
           {{"asr", "-", "--engine", "whisper", "--model", kModel, "--language", "xx"}, "xx"},
           {{"asr", "-", "--engine", "whisper", "--model", kModel, "--device", "tpu"}, "--device \"tpu\" is not supported"},
           {{"asr", "-", "--engine", "whisper", "--model", kModel, "--device", "cpu", "--dtype", "fp16"},
            "--dtype fp16 needs a GPU"},
           {{"tts", "hello", "-o", "/tmp/never-written.wav", "--engine", "vits", "--model", kVitsModel, "--device", "cpu",
             "--dtype", "half"},
            "--dtype \"half\" is not supported"},
       }) {
    const RunResult r = RunLingcast(c.args, options);
    if (r.err.find("built without neural engines") != std::string::npos) GTEST_SKIP() << "no neural engines in this build";
    EXPECT_EQ(r.exit_code, 2) << c.args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// Sets an environment variable for one test (the child processes inherit it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(WhisperCli, WithoutAnInstalledModelWhisperSaysHowToGetOne) {
  ScopedEnv models("LINGCAST_MODELS", "none");
  const RunResult r = RunLingcast({"asr", "-", "--engine", "whisper"});
  if (r.err.find("no neural engines") != std::string::npos) GTEST_SKIP() << "no neural engines in this build";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--asr whisper: no Whisper model is installed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scripts/install-deps.sh"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  const RunResult zh = RunLingcast({"asr", "-", "--lang", "zh"});
  EXPECT_EQ(zh.exit_code, 2) << zh.err;
  EXPECT_NE(zh.err.find("--lang zh: pocketsphinx hears only English"), std::string::npos) << zh.err;
}

// The installed Whisper base (scripts/install-deps.sh) with no recognizer flags:
// a real Mandarin recording comes out in Simplified characters, and `live`
// interprets it into an MP4.
const std::string kInstalledBase = std::string(LINGCAST_SOURCE_DIR) + "/models/whisper-base";
const std::string kAishell = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/zh-aishell-BAC009S0764W0121.wav";

#define INSTALLED_BASE_OR_SKIP()                                                                           \
  if (!std::filesystem::exists(kInstalledBase + "/config.json"))                                           \
    GTEST_SKIP() << "Whisper base is not installed in models/ (scripts/install-deps.sh installs it)";      \
  if (!std::filesystem::exists(kAishell)) GTEST_SKIP() << "no recordings in ../shared/data (" << kAishell << ")"

TEST(WhisperCli, AsrHearsMandarinInSimplifiedCharactersByDefault) {
  INSTALLED_BASE_OR_SKIP();
  const RunResult r = RunLingcast({"asr", kAishell, "--lang", "zh"});
  if (r.err.find("no neural engines") != std::string::npos) GTEST_SKIP() << "no neural engines in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("final: 甚至出现交易几乎停滞的情况"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("現"), std::string::npos) << r.out;  // Traditional 現 for 现: not converted
}

TEST(WhisperCli, LiveInterpretsAMandarinRecordingWithTheDefaults) {
  INSTALLED_BASE_OR_SKIP();
  const std::string dir = std::filesystem::temp_directory_path() / ("lingcast-e2e-live-zh-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const RunResult r = RunLingcast({"live", "--in", kAishell, "--source", "zh", "--target", "en", "--out",
                                   dir + "/x.mp4", "--clock", "simulated", "--size", "320x180", "--report", dir + "/report.json"});
  if (r.err.find("no neural engines") != std::string::npos) GTEST_SKIP() << "no neural engines in this build";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/x.mp4"));
  std::ifstream report_file(dir + "/report.json");
  const nlohmann::json report = nlohmann::json::parse(report_file, nullptr, false);
  ASSERT_FALSE(report.is_discarded());
  EXPECT_NE(report["summary"]["recognizer"].get<std::string>().find("whisper"), std::string::npos) << report["summary"];
  EXPECT_NE(report.dump().find("甚至出现"), std::string::npos) << report.dump();
  std::filesystem::remove_all(dir);
}

// `lingcast live --asr whisper`: a Mandarin host (the embedded recognizer hears
// English only), heard by the checkpoint through the plug-in, interpreted into an
// MP4 on the simulated clock. The tiny checkpoint's words match no script line:
// they are off-script speech, which the report shows with what Whisper heard,
// translated by the Marian fallback (the tiny zh -> en checkpoint) and spoken
// with the tiny VITS checkpoint: Whisper, Marian and VITS in one live run.
TEST(WhisperCli, LiveHearsAMandarinHostThroughThePlugin) {
  const std::string dir = std::filesystem::temp_directory_path() / ("lingcast-e2e-live-whisper-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  WriteTestWav(dir + "/host.wav");
  std::ofstream(dir + "/show.script") << "zh: 欢迎大家来到直播间 | en: Welcome to the live room everyone\n";
  const RunResult r = RunLingcast({"live", "--in", dir + "/host.wav", "--source", "zh", "--target", "en", "--asr", "whisper",
                                   "--asr-model", kModel, "--script", dir + "/show.script", "--out", dir + "/out.mp4",
                                   "--engine", "marian", "--marian-model", kMarianModel, "--tts", "vits", "--tts-model",
                                   kVitsModel, "--device", "cpu", "--clock", "simulated", "--size", "320x180", "--json"});
  if (r.exit_code != 0 && r.err.find("built without neural engines") != std::string::npos) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "this build has no neural engines (libtorch not found)";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_NE(report["summary"]["recognizer"].get<std::string>().find("whisper"), std::string::npos) << report["summary"];
  ASSERT_GE(report["utterances"].size(), 1u) << r.out;
  for (const nlohmann::json& u : report["utterances"]) {
    EXPECT_FALSE(u["source_text"].get<std::string>().empty());
    EXPECT_TRUE(u["off_script"].get<bool>()) << u["source_text"];
    EXPECT_GE(u["decided_at_ms"].get<double>(), 500);  // the sound starts at 0.5 s
    // Off-script speech goes to the fallback: the Marian checkpoint, through the plug-in too.
    EXPECT_EQ(u["engine"], "marian") << u;
    EXPECT_FALSE(u["translation"].get<std::string>().empty());
  }
  // ...and the avatar says it with the VITS checkpoint (the tiny English one).
  EXPECT_NE(report["summary"]["voice"].get<std::string>().find("vits"), std::string::npos) << report["summary"];
  EXPECT_GE(report["summary"]["spoken"].get<int>(), 1) << report["summary"];
  EXPECT_GT(std::filesystem::file_size(dir + "/out.mp4"), 0u);
  std::filesystem::remove_all(dir);
}

// `lingcast follow --asr whisper --lang zh`: the front half of live on a
// Mandarin recording; one JSON line per utterance, off script here (the tiny
// checkpoint hears noise).
TEST(WhisperCli, FollowHearsAMandarinRecordingThroughThePlugin) {
  const std::string dir = std::filesystem::temp_directory_path() / ("lingcast-e2e-follow-whisper-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  WriteTestWav(dir + "/host.wav");
  std::ofstream(dir + "/show.script") << "zh: 欢迎大家来到直播间 | en: Welcome to the live room everyone\n";
  const RunResult r = RunLingcast({"follow", dir + "/host.wav", "--script", dir + "/show.script", "--lang", "zh", "--asr",
                                   "whisper", "--asr-model", kModel, "--engine", "tm", "--json"});
  std::filesystem::remove_all(dir);
  if (r.exit_code != 0 && r.err.find("built without neural engines") != std::string::npos) {
    GTEST_SKIP() << "this build has no neural engines (libtorch not found)";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int records = 0;
  std::size_t start = 0;
  while (start < r.out.size()) {
    const std::size_t end = r.out.find('\n', start);
    const nlohmann::json record = nlohmann::json::parse(r.out.substr(start, end - start));
    start = end == std::string::npos ? r.out.size() : end + 1;
    ++records;
    EXPECT_TRUE(record["off_script"].get<bool>()) << record;
    EXPECT_FALSE(record["source_text"].get<std::string>().empty());
  }
  EXPECT_GE(records, 1) << r.out;
}

}  // namespace
}  // namespace lingcast::e2e
