#include "app/lipsync_command.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "audio/test_audio.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

VisemeTrack Cues(std::vector<std::tuple<int, int, char>> cues) {
  VisemeTrack track;
  for (auto [start_ms, end_ms, letter] : cues) {
    track.cues.push_back({MediaTime::Millis(start_ms), MediaTime::Millis(end_ms), *VisemeFromLetter(letter)});
  }
  return track;
}

TEST(LipsyncFormatTest, TsvLayout) {
  const VisemeTrack track = Cues({{100, 233, 'B'}, {233, 400, 'D'}, {600, 700, 'A'}});
  EXPECT_EQ(FormatRhubarbTsv(track, MediaTime::Millis(1000)),
            "0.00\tX\n"
            "0.10\tB\n"
            "0.23\tD\n"
            "0.40\tX\n"
            "0.60\tA\n"
            "0.70\tX\n"
            "1.00\tX\n");
}

TEST(LipsyncFormatTest, TsvOfSilenceIsRestFromStartToEnd) {
  EXPECT_EQ(FormatRhubarbTsv(VisemeTrack{}, MediaTime::Millis(2505)), "0.00\tX\n2.51\tX\n");
}

TEST(LipsyncFormatTest, CuesPastTheEndAreCutAndTinyOnesDropped) {
  // 1001..1004 ms rounds to one centisecond boundary: nothing left of it.
  const VisemeTrack track = Cues({{0, 1001, 'C'}, {1001, 1004, 'B'}, {1004, 1500, 'F'}});
  EXPECT_EQ(FormatRhubarbTsv(track, MediaTime::Millis(1200)), "0.00\tC\n1.00\tF\n1.20\tX\n");
}

TEST(LipsyncFormatTest, JsonLayout) {
  const VisemeTrack track = Cues({{50, 120, 'F'}});
  EXPECT_EQ(FormatRhubarbJson(track, MediaTime::Millis(300), "clips/hi \"there\".wav"),
            "{\n"
            "  \"metadata\": {\n"
            "    \"soundFile\": \"clips/hi \\\"there\\\".wav\",\n"
            "    \"duration\": 0.30\n"
            "  },\n"
            "  \"mouthCues\": [\n"
            "    { \"start\": 0.00, \"end\": 0.05, \"value\": \"X\" },\n"
            "    { \"start\": 0.05, \"end\": 0.12, \"value\": \"F\" },\n"
            "    { \"start\": 0.12, \"end\": 0.30, \"value\": \"X\" }\n"
            "  ]\n"
            "}\n");
  const nlohmann::json parsed = nlohmann::json::parse(FormatRhubarbJson(track, MediaTime::Millis(300), "a.wav"));
  EXPECT_DOUBLE_EQ(parsed["metadata"]["duration"].get<double>(), 0.30);
  EXPECT_EQ(parsed["mouthCues"].size(), 3u);
}

// A WAV of 16-bit mono samples.
void WriteWav(const std::string& path, const std::vector<float>& samples, int rate = 16000) {
  lingcast::testing::WriteFile(path, lingcast::testing::WavBytes(lingcast::testing::WavEncoding::kS16, rate, 1, samples));
}

// A vowel-like buzz: a 120 Hz pulse train through two resonances, with
// silence around it, so the tracker sees speech-like sound between rests.
std::vector<float> SilenceBuzzSilence() {
  std::vector<float> samples(16000 * 2, 0.0f);
  double phase1 = 0, phase2 = 0;
  for (int i = 16000 / 2; i < 16000 * 3 / 2; ++i) {
    phase1 += 2 * 3.14159265 * 700 / 16000;
    phase2 += 2 * 3.14159265 * 1200 / 16000;
    const double pulse = (i % (16000 / 120)) < 8 ? 1.0 : 0.0;
    samples[static_cast<size_t>(i)] = static_cast<float>(0.2 * pulse * (std::sin(phase1) + 0.5 * std::sin(phase2)) +
                                                          0.1 * std::sin(phase1));
  }
  return samples;
}

class LipsyncCommandTest : public ::testing::Test {
 protected:
  testing_util::ScratchDir dir_;
  Logger logger_{LogLevel::kOff};

  std::string Path(const std::string& name) { return dir_.File(name); }

  absl::StatusOr<LipsyncSummary> Run(LipsyncCommandOptions options, std::string* out_text = nullptr) {
    std::ostringstream out;
    absl::StatusOr<LipsyncSummary> summary = RunLipsyncCommand(options, out, logger_);
    if (out_text) *out_text = out.str();
    return summary;
  }
};

TEST_F(LipsyncCommandTest, AudioOnlyTsvToStdout) {
  WriteWav(Path("buzz.wav"), SilenceBuzzSilence());
  LipsyncCommandOptions options;
  options.input = Path("buzz.wav");
  std::string text;
  absl::StatusOr<LipsyncSummary> summary = Run(options, &text);
  ASSERT_OK(summary);
  EXPECT_EQ(summary->method, LipSyncMethod::kAudioOnly);
  const std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front(), "0.00\tX");
  EXPECT_EQ(lines.back(), "2.00\tX");
  // The mouth opens around 0.5 s and rests again by about 1.7 s.
  bool opened = false;
  for (const std::string& line : lines) {
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    ASSERT_EQ(fields.size(), 2u) << line;
    const double t = std::stod(fields[0]);
    if (fields[1] != "X" && fields[1] != "A") {
      opened = true;
      EXPECT_GE(t, 0.45) << line;
      EXPECT_LT(t, 1.5) << line;
    }
  }
  EXPECT_TRUE(opened);
}

TEST_F(LipsyncCommandTest, JsonToFileAtomically) {
  WriteWav(Path("buzz.wav"), SilenceBuzzSilence());
  LipsyncCommandOptions options;
  options.input = Path("buzz.wav");
  options.format = "json";
  options.output_path = Path("cues.json");
  std::string stdout_text;
  ASSERT_OK(Run(options, &stdout_text));
  EXPECT_TRUE(stdout_text.empty());
  std::ifstream in(options.output_path);
  const nlohmann::json cues = nlohmann::json::parse(in);
  EXPECT_EQ(cues["metadata"]["soundFile"], options.input);
  EXPECT_DOUBLE_EQ(cues["metadata"]["duration"].get<double>(), 2.0);
  ASSERT_FALSE(cues["mouthCues"].empty());
  EXPECT_DOUBLE_EQ(cues["mouthCues"].front()["start"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(cues["mouthCues"].back()["end"].get<double>(), 2.0);
  // Only the final file is left in the folder.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) files += entry.is_regular_file();
  EXPECT_EQ(files, 2);  // buzz.wav and cues.json
}

TEST_F(LipsyncCommandTest, ChineseDialogFallsBackToAudioOnly) {
  WriteWav(Path("buzz.wav"), SilenceBuzzSilence());
  std::ofstream(Path("dialog.txt")) << "大家好，欢迎来到直播间。\n";
  LipsyncCommandOptions options;
  options.input = Path("buzz.wav");
  options.dialog_path = Path("dialog.txt");
  absl::StatusOr<LipsyncSummary> summary = Run(options);
  ASSERT_OK(summary);
  EXPECT_EQ(summary->method, LipSyncMethod::kAudioOnly);
  EXPECT_THAT(summary->note, HasSubstr("Chinese"));
}

TEST_F(LipsyncCommandTest, BadInputFailsWithOneLineAndWritesNothing) {
  WriteWav(Path("buzz.wav"), SilenceBuzzSilence());
  std::ofstream(Path("garbage.wav")) << "this is not audio at all, just text pretending to be a file";
  std::filesystem::create_directory(Path("folder"));
  struct Case {
    std::string name;
    LipsyncCommandOptions options;
    absl::StatusCode code;
    std::string message;
  };
  LipsyncCommandOptions base;
  base.input = Path("buzz.wav");
  base.output_path = Path("out.tsv");
  std::vector<Case> cases;
  cases.push_back({"missing audio", base, absl::StatusCode::kNotFound, "no such file"});
  cases.back().options.input = Path("nope.wav");
  cases.push_back({"corrupt audio", base, absl::StatusCode::kInvalidArgument, "garbage.wav"});
  cases.back().options.input = Path("garbage.wav");
  cases.push_back({"format", base, absl::StatusCode::kInvalidArgument, "--format must be tsv or json, got 'xml'"});
  cases.back().options.format = "xml";
  cases.push_back({"fps low", base, absl::StatusCode::kInvalidArgument, "--fps must be between 1 and 120, got 0"});
  cases.back().options.fps = 0;
  cases.push_back({"fps high", base, absl::StatusCode::kInvalidArgument, "got 1000"});
  cases.back().options.fps = 1000;
  cases.push_back({"missing dialog", base, absl::StatusCode::kNotFound, "dialog file not found"});
  cases.back().options.dialog_path = Path("none.txt");
  cases.push_back({"dialog folder", base, absl::StatusCode::kInvalidArgument, "is a folder"});
  cases.back().options.dialog_path = Path("folder");
  cases.push_back({"output folder", base, absl::StatusCode::kInvalidArgument, "folder"});
  cases.back().options.output_path = Path("folder");
  for (const Case& c : cases) {
    std::string text;
    absl::StatusOr<LipsyncSummary> summary = Run(c.options, &text);
    ASSERT_FALSE(summary.ok()) << c.name;
    EXPECT_EQ(summary.status().code(), c.code) << c.name << ": " << summary.status();
    EXPECT_THAT(std::string(summary.status().message()), HasSubstr(c.message)) << c.name;
    EXPECT_EQ(std::string(summary.status().message()).find('\n'), std::string::npos) << c.name;
    EXPECT_TRUE(text.empty()) << c.name;
    EXPECT_FALSE(std::filesystem::exists(Path("out.tsv"))) << c.name;
  }
}

}  // namespace
}  // namespace lingcast
