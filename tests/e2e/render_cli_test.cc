// End-to-end: `lingcast render` and `lingcast doctor` as a user runs them.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

class RenderCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lingcast-e2e-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // Everything in the test folder other than the inputs the test wrote.
  std::vector<std::string> OutputsLeft(const std::vector<std::string>& inputs) const {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (std::find(inputs.begin(), inputs.end(), name) == inputs.end()) left.push_back(name);
    }
    return left;
  }

  // Expects exit 2, one line on stderr containing `needle`, and no output file.
  void ExpectUserError(const std::vector<std::string>& args, const std::string& needle,
                       const std::vector<std::string>& inputs) {
    const RunResult r = RunLingcast(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "expected one line, got: " << r.err;
    EXPECT_TRUE(OutputsLeft(inputs).empty()) << "left behind: " << OutputsLeft(inputs).front();
  }

  fs::path dir_;
};

constexpr const char* kShortScript =
    "# a short test script\n"
    "zh: 大家好，欢迎来到直播间。 | en: Hello everyone, welcome to the live stream.\n"
    "\n"
    "en: Every order ships for free. | zh: 所有订单都包邮。\n";

TEST_F(RenderCliTest, RendersAScriptToAnMp4WithAJsonSummary) {
  const std::string script = Write("s.script", kShortScript);
  const std::string out = Path("out.mp4");
  const RunResult r = RunLingcast({"render", script, "-o", out, "--size", "320x180", "--fps", "15", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  for (const char* key : {"output", "duration_s", "frames", "width", "height", "fps", "wall_s", "x_realtime",
                          "peak_rss_mb"}) {
    EXPECT_TRUE(summary.contains(key)) << key;
  }
  EXPECT_EQ(summary["output"], out);
  EXPECT_EQ(summary["width"], 320);
  EXPECT_EQ(summary["fps"], 15);
  const double duration = summary["duration_s"];
  EXPECT_GT(duration, 3.0);
  // Video frames cover the audio: one frame per 1/fps of speech.
  EXPECT_EQ(summary["frames"].get<int64_t>(), static_cast<int64_t>(std::ceil(duration * 15 - 1e-9)));

  // Read it back: one H.264 and one AAC stream, as long as the speech.
  AVFormatContext* raw = nullptr;
  ASSERT_EQ(avformat_open_input(&raw, out.c_str(), nullptr, nullptr), 0);
  std::unique_ptr<AVFormatContext, void (*)(AVFormatContext*)> fmt(raw, [](AVFormatContext* f) {
    avformat_close_input(&f);
  });
  ASSERT_GE(avformat_find_stream_info(fmt.get(), nullptr), 0);
  ASSERT_EQ(fmt->nb_streams, 2u);
  int video = -1, audio = -1;
  for (unsigned i = 0; i < fmt->nb_streams; ++i) {
    const AVCodecParameters* p = fmt->streams[i]->codecpar;
    if (p->codec_id == AV_CODEC_ID_H264) video = static_cast<int>(i);
    if (p->codec_id == AV_CODEC_ID_AAC) audio = static_cast<int>(i);
  }
  ASSERT_GE(video, 0);
  ASSERT_GE(audio, 0);
  EXPECT_EQ(fmt->streams[video]->codecpar->width, 320);
  EXPECT_EQ(fmt->streams[video]->codecpar->height, 180);
  EXPECT_NEAR(static_cast<double>(fmt->duration) / AV_TIME_BASE, duration, 0.2);
  EXPECT_EQ(OutputsLeft({"s.script"}), std::vector<std::string>{"out.mp4"});  // no temp file left
}

TEST_F(RenderCliTest, SrtSidecarHoldsBothLines) {
  const std::string script = Write("s.script", kShortScript);
  const RunResult r =
      RunLingcast({"render", script, "-o", Path("out.mp4"), "--size", "320x180", "--subtitles", "srt", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // --quiet
  std::ifstream srt(Path("out.srt"));
  const std::string text((std::istreambuf_iterator<char>(srt)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("大家好，欢迎来到直播间。"), std::string::npos) << text;
  EXPECT_NE(text.find("Hello everyone, welcome to the live stream."), std::string::npos) << text;
  EXPECT_NE(text.find("-->"), std::string::npos);
}

TEST_F(RenderCliTest, SigintLeavesNoPartialOutput) {
  std::string long_script;
  for (int i = 0; i < 200; ++i) long_script += "en: This is a long line that keeps the renderer busy for a while.\n";
  const std::string script = Write("long.script", long_script);
  RunOptions options;
  options.signal_on_stderr = "msg=started";
  options.signal = SIGINT;
  const RunResult r = RunLingcast({"--log-level", "info", "render", script, "-o", Path("out.mp4"), "--quiet"}, options);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_TRUE(OutputsLeft({"long.script"}).empty());
}

TEST_F(RenderCliTest, MissingScript) {
  ExpectUserError({"render", Path("nope.script"), "-o", Path("out.mp4")}, "nope.script", {});
}

TEST_F(RenderCliTest, UnreadableScript) {
  fs::create_directories(dir_ / "a-directory.script");
  ExpectUserError({"render", Path("a-directory.script"), "-o", Path("out.mp4")}, "a-directory.script",
                  {"a-directory.script"});
}

TEST_F(RenderCliTest, InvalidUtf8NamesFileLineAndColumn) {
  const std::string script = Write("bad.script", "en: fine line\nzh: \xe5\xa4 broken\n");
  ExpectUserError({"render", script, "-o", Path("out.mp4")}, "bad.script:2:", {"bad.script"});
}

TEST_F(RenderCliTest, EmptyScript) {
  const std::string script = Write("empty.script", "# only a comment\n\n");
  ExpectUserError({"render", script, "-o", Path("out.mp4")}, "empty.script", {"empty.script"});
}

TEST_F(RenderCliTest, UnknownLanguageTag) {
  const std::string script = Write("fr.script", "fr: Bonjour tout le monde\n");
  ExpectUserError({"render", script, "-o", Path("out.mp4")}, "fr.script:1:", {"fr.script"});
}

TEST_F(RenderCliTest, UnknownDirective) {
  const std::string script = Write("d.script", "en: Hello\n@dance 3\n");
  ExpectUserError({"render", script, "-o", Path("out.mp4")}, "d.script:2:", {"d.script"});
}

TEST_F(RenderCliTest, AbsurdSizes) {
  const std::string script = Write("s.script", kShortScript);
  for (const char* size : {"0x0", "100000x100000", "1281x720", "wide"}) {
    ExpectUserError({"render", script, "-o", Path("out.mp4"), "--size", size}, std::string("--size ") + size,
                    {"s.script"});
  }
}

TEST_F(RenderCliTest, AbsurdFps) {
  const std::string script = Write("s.script", kShortScript);
  for (const char* fps : {"0", "1000"}) {
    ExpectUserError({"render", script, "-o", Path("out.mp4"), "--fps", fps}, std::string("--fps ") + fps,
                    {"s.script"});
  }
}

TEST_F(RenderCliTest, UnwritableOutputPath) {
  const std::string script = Write("s.script", kShortScript);
  ExpectUserError({"render", script, "-o", Path("no-such-dir/out.mp4")}, "no-such-dir", {"s.script"});
  // A regular file where a directory should be: unwritable even for root.
  Write("plain-file", "x");
  ExpectUserError({"render", script, "-o", Path("plain-file/out.mp4")}, "plain-file", {"s.script", "plain-file"});
}

TEST_F(RenderCliTest, UnknownVoice) {
  const std::string script = Write("s.script", kShortScript);
  ExpectUserError({"render", script, "-o", Path("out.mp4"), "--voice-en", "xx-nonexistent"}, "xx-nonexistent",
                  {"s.script"});
}

TEST_F(RenderCliTest, BadUsage) {
  const RunResult r = RunLingcast({"render"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("script"), std::string::npos) << r.err;
  const RunResult unknown = RunLingcast({"dance"});
  EXPECT_EQ(unknown.exit_code, 2);
}

TEST_F(RenderCliTest, HelpListsCommandsAndOptions) {
  const RunResult r = RunLingcast({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("render"), std::string::npos);
  EXPECT_NE(r.out.find("doctor"), std::string::npos);
  const RunResult render = RunLingcast({"render", "--help"});
  EXPECT_EQ(render.exit_code, 0);
  for (const char* option : {"--size", "--fps", "--voice-zh", "--voice-en", "--speak", "--subtitles", "--json"}) {
    EXPECT_NE(render.out.find(option), std::string::npos) << option;
  }
}

TEST_F(RenderCliTest, DoctorPassesOnAProperlyInstalledMachine) {
  const RunResult r = RunLingcast({"doctor", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_GE(j["checks"].size(), 5u);
  // With neural engines built: what they run on, from the plug-in (an optimized BLAS
  // under a CPU libtorch, as install-deps installs it).
  for (const auto& check : j["checks"]) {
    if (check["name"] != "neural runtime") continue;
    EXPECT_NE(check["detail"].get<std::string>().find("libtorch "), std::string::npos) << check;
    EXPECT_NE(check["detail"].get<std::string>().find("BLAS: "), std::string::npos) << check;
  }
}

TEST_F(RenderCliTest, PinyinPrintsLexicalReadingsAfterNormalization) {
  const RunResult r = RunLingcast({"pinyin", "银行的行长有99元"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "yin2 hang2 de5 hang2 zhang3 you3 jiu3 shi2 jiu3 yuan2\n");
  EXPECT_EQ(r.err, "");
  // Several arguments are one text joined by spaces; a newline starts a new output line.
  const RunResult lines = RunLingcast({"pinyin", "你好", "世界\nhello\n我们"});
  EXPECT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(lines.out, "ni3 hao3 shi4 jie4\n\nwo3 men5\n");
}

TEST_F(RenderCliTest, PinyinSandhiGivesSpokenTones) {
  const RunResult r = RunLingcast({"pinyin", "--sandhi", "你好，我不是第一个，一百。"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ni2 hao3 wo3 bu2 shi5 di4 yi1 ge4 yi4 bai3\n");
}

TEST_F(RenderCliTest, PinyinJsonHasWordsReadingsAndSources) {
  const RunResult r = RunLingcast({"pinyin", "--json", "--sandhi", "展览馆很好"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["line"], 1);
  ASSERT_FALSE(j["words"].empty()) << r.out;
  std::vector<std::string> lexical, surface;
  for (const auto& word : j["words"]) {
    EXPECT_TRUE(word["source"] == "phrase" || word["source"] == "character") << word.dump();
    for (const auto& s : word["pinyin"]) lexical.push_back(s);
    for (const auto& s : word["surface"]) surface.push_back(s);
  }
  EXPECT_EQ(lexical, (std::vector<std::string>{"zhan3", "lan3", "guan3", "hen3", "hao3"}));
  EXPECT_EQ(surface, (std::vector<std::string>{"zhan2", "lan2", "guan2", "hen2", "hao3"}));
}

TEST_F(RenderCliTest, PinyinRejectsInvalidUtf8) {
  ExpectUserError({"pinyin", "好\nab\xff"}, "invalid UTF-8 in argument at line 2, column 3", {});
}

TEST_F(RenderCliTest, PinyinWithoutTheLexiconIsAClearError) {
  // A copy of the binary with no data folder beside it, LINGCAST_DATA_DIR pointing nowhere.
  const fs::path copy = dir_ / "bin" / "lingcast";
  fs::create_directories(copy.parent_path());
  fs::copy_file(LingcastBinary(), copy);
  const std::string command =
      "LINGCAST_DATA_DIR='" + Path("no-data") + "' '" + copy.string() + "' pinyin 你好 2>&1";
  FILE* child = ::popen(command.c_str(), "r");
  ASSERT_NE(child, nullptr);
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, child) != nullptr) output += buffer;
  const int status = ::pclose(child);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 2) << output;
  EXPECT_NE(output.find("zh_lexicon.tsv"), std::string::npos) << output;
  EXPECT_NE(output.find("LINGCAST_DATA_DIR"), std::string::npos) << output;
}

}  // namespace
}  // namespace lingcast::e2e
