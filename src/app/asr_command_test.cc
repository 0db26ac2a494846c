#include "app/asr_command.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_split.h"
#include "asr/asr_test_data.h"
#include "asr/word_error_rate.h"
#include "audio/audio_decoder.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct AsrRun {
  absl::Status status;
  std::vector<std::string> lines;
};

AsrRun RunAsr(AsrCommandOptions options, const std::string& stdin_bytes = "") {
  std::istringstream in(stdin_bytes);
  std::ostringstream out;
  Logger logger(LogLevel::kOff);
  AsrRun run;
  run.status = RunAsrCommand(options, in, out, logger);
  run.lines = absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
  return run;
}

std::vector<nlohmann::json> Finals(const AsrRun& run) {
  std::vector<nlohmann::json> finals;
  for (const std::string& line : run.lines) {
    nlohmann::json object = nlohmann::json::parse(line);
    if (object["type"] == "final") finals.push_back(object);
  }
  return finals;
}

std::string JoinedFinalText(const AsrRun& run) {
  std::string text;
  for (const nlohmann::json& final : Finals(run)) {
    if (!text.empty()) text += ' ';
    text += final["text"].get<std::string>();
  }
  return text;
}

#define SPEECH_OR_SKIP(path_var, recording)       \
  const std::string path_var = SpeechPath((recording).file); \
  if (!std::filesystem::exists(path_var)) GTEST_SKIP() << NoDataMessage(path_var)

TEST(AsrCommandTest, WithoutPartialsOnlyTheSameFinalsArePrinted) {
  SPEECH_OR_SKIP(path, kJfk);
  const AsrRun with = RunAsr({.input = path, .engine = "pocketsphinx", .json = true});
  AsrCommandOptions options{.input = path, .engine = "pocketsphinx", .json = true};
  options.partials = false;
  const AsrRun without = RunAsr(options);
  ASSERT_OK(with.status);
  ASSERT_OK(without.status);
  ASSERT_FALSE(without.lines.empty());
  EXPECT_GT(with.lines.size(), Finals(with).size());  // partials there
  EXPECT_EQ(without.lines.size(), Finals(without).size()) << "finals only";
  ASSERT_EQ(Finals(without).size(), Finals(with).size());
  for (std::size_t i = 0; i < Finals(with).size(); ++i) {
    EXPECT_EQ(Finals(without)[i]["start_ms"], Finals(with)[i]["start_ms"]);
    EXPECT_EQ(Finals(without)[i]["end_ms"], Finals(with)[i]["end_ms"]);
  }
}

TEST(AsrCommandTest, JsonLinesWithPartialsAndFinalsOnJfk) {
  SPEECH_OR_SKIP(path, kJfk);
  const AsrRun run = RunAsr({.input = path, .engine = "pocketsphinx", .json = true});
  ASSERT_OK(run.status);
  ASSERT_FALSE(run.lines.empty());
  int partials = 0;
  std::string previous_partial;
  int64_t previous_final_end = -1;
  for (const std::string& line : run.lines) {
    const nlohmann::json object = nlohmann::json::parse(line);
    ASSERT_TRUE(object.contains("type") && object.contains("text") && object.contains("start_ms") &&
                object.contains("end_ms"))
        << line;
    EXPECT_LE(object["start_ms"].get<int64_t>(), object["end_ms"].get<int64_t>()) << line;
    EXPECT_LE(object["end_ms"].get<int64_t>(), 11'100) << line;  // the recording is 11 s
    if (object["type"] == "partial") {
      ++partials;
      EXPECT_FALSE(object.contains("words")) << line;
      EXPECT_NE(object["text"], previous_partial) << "a partial is printed only when it changed";
      previous_partial = object["text"];
      continue;
    }
    ASSERT_EQ(object["type"], "final") << line;
    previous_partial.clear();
    EXPECT_GE(object["start_ms"].get<int64_t>(), previous_final_end) << "utterances do not overlap";
    previous_final_end = object["end_ms"].get<int64_t>();
    ASSERT_TRUE(object.contains("words")) << line;
    int64_t previous_word_end = 0;
    for (const nlohmann::json& word : object["words"]) {
      EXPECT_GE(word["start_ms"].get<int64_t>(), previous_word_end) << line;
      EXPECT_GT(word["end_ms"].get<int64_t>(), word["start_ms"].get<int64_t>()) << line;
      EXPECT_GE(word["confidence"].get<double>(), 0.0);
      EXPECT_LE(word["confidence"].get<double>(), 1.0);
      previous_word_end = word["end_ms"].get<int64_t>();
      EXPECT_GE(word["start_ms"].get<int64_t>(), object["start_ms"].get<int64_t>() - 300) << "pre-roll at most";
      EXPECT_LE(word["end_ms"].get<int64_t>(), object["end_ms"].get<int64_t>()) << line;
    }
  }
  EXPECT_GT(partials, 0);
  // JFK pauses between the phrases: the VAD finds several utterances.
  EXPECT_GE(Finals(run).size(), 2u);
  const std::string text = JoinedFinalText(run);
  EXPECT_THAT(text, HasSubstr("your country can do for you")) << text;
  // Measured 0.50 (the utterances after the first benefit from the adapted
  // cepstral mean); the whole file as one utterance gives 0.68.
  const double wer = CountWordErrors(kJfk.transcript, text).rate();
  std::printf("lingcast asr jfk: WER %.2f \"%s\"\n", wer, text.c_str());
  EXPECT_LT(wer, 0.7) << text;
}

TEST(AsrCommandTest, TextLinesHaveTimesAndType) {
  SPEECH_OR_SKIP(path, kLibri);
  const AsrRun run = RunAsr({.input = path, .engine = "pocketsphinx"});
  ASSERT_OK(run.status);
  ASSERT_FALSE(run.lines.empty());
  EXPECT_THAT(run.lines.back(), StartsWith("[00:0"));
  EXPECT_THAT(run.lines.back(), HasSubstr("] final: concord"));
}

TEST(AsrCommandTest, ScriptModeRecognizesTheScriptedSentence) {
  SPEECH_OR_SKIP(path, kLibri);
  const std::string script = ::testing::TempDir() + "/asr_command_script.txt";
  std::ofstream(script) << ScriptWithReferences();
  const AsrRun run = RunAsr({.input = path, .engine = "pocketsphinx", .script_path = script, .json = true});
  ASSERT_OK(run.status);
  const std::string text = JoinedFinalText(run);
  const AsrRun free_run = RunAsr({.input = path, .engine = "pocketsphinx", .json = true});
  EXPECT_LT(CountWordErrors(kLibri.transcript, text).rate(),
            CountWordErrors(kLibri.transcript, JoinedFinalText(free_run)).rate())
      << text;
}

TEST(AsrCommandTest, RawPcmOnStdin) {
  SPEECH_OR_SKIP(path, kLibri);
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(path, 16000);
  ASSERT_OK(audio);
  std::string bytes;
  for (float sample : audio->samples) {
    const int16_t value = static_cast<int16_t>(std::lround(std::clamp(sample, -1.0f, 1.0f) * 32767));
    bytes.push_back(static_cast<char>(value & 0xff));
    bytes.push_back(static_cast<char>((value >> 8) & 0xff));
  }
  const AsrRun from_stdin = RunAsr({.input = "-", .json = true}, bytes);
  ASSERT_OK(from_stdin.status);
  const AsrRun from_file = RunAsr({.input = path, .json = true});
  ASSERT_OK(from_file.status);
  EXPECT_EQ(JoinedFinalText(from_stdin), JoinedFinalText(from_file));
  EXPECT_FALSE(JoinedFinalText(from_stdin).empty());
}

TEST(AsrCommandTest, SilenceOnlyPrintsNothing) {
  const std::string three_seconds_of_silence(3 * 16000 * 2, '\0');
  const AsrRun run = RunAsr({.input = "-"}, three_seconds_of_silence);
  EXPECT_OK(run.status);
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, MissingInputIsExitTwoNamingTheFile) {
  const std::string path = ::testing::TempDir() + "/no-such-recording.wav";
  const AsrRun run = RunAsr({.input = path});
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr(path));
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, NotAMediaFileIsExitTwo) {
  const std::string path = ::testing::TempDir() + "/not-audio.wav";
  std::ofstream(path) << "this is a text file, not a recording\n";
  const AsrRun run = RunAsr({.input = path});
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr(path));
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, TruncatedFileIsRecognizedAsFarAsItGoes) {
  SPEECH_OR_SKIP(path, kJfk);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = ::testing::TempDir() + "/jfk-truncated.wav";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);  // ~5.5 s of 11
  const AsrRun run = RunAsr({.input = cut, .json = true});
  ASSERT_OK(run.status);
  ASSERT_FALSE(Finals(run).empty());
  EXPECT_LE(Finals(run).back()["end_ms"].get<int64_t>(), 5600);
}

TEST(AsrCommandTest, UnknownLanguageIsExitTwo) {
  const AsrRun run = RunAsr({.input = "-", .language = "fr"});
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr("unknown language 'fr'"));
}

TEST(AsrCommandTest, QuantizeIsInt8AndForWhisperOnly) {
  const AsrRun unknown = RunAsr({.input = "-", .engine = "whisper", .model_dir = "/no/such/checkpoint", .quantize = "int4"});
  EXPECT_EQ(ExitCodeFor(unknown.status), 2) << unknown.status;
  EXPECT_THAT(unknown.status.message(), HasSubstr("unknown --quantize \"int4\" (use none or int8)"));
  const AsrRun pocketsphinx = RunAsr({.input = "-", .engine = "pocketsphinx", .quantize = "int8"}, std::string(3200, '\0'));
  EXPECT_EQ(ExitCodeFor(pocketsphinx.status), 2) << pocketsphinx.status;
  EXPECT_THAT(pocketsphinx.status.message(), HasSubstr("--quantize applies to --engine whisper only"));
  EXPECT_TRUE(pocketsphinx.lines.empty());
}

TEST(AsrCommandTest, DeviceAndDtypeAreForWhisperOnly) {
  AsrCommandOptions options{.input = "-", .engine = "pocketsphinx"};
  options.neural.device = "cuda";
  const AsrRun device = RunAsr(options, std::string(3200, '\0'));
  EXPECT_EQ(ExitCodeFor(device.status), 2) << device.status;
  EXPECT_THAT(device.status.message(), HasSubstr("--device and --dtype apply to --engine whisper only"));
  EXPECT_TRUE(device.lines.empty());
  options.neural = {.dtype = "float16"};
  EXPECT_THAT(RunAsr(options, std::string(3200, '\0')).status.message(), HasSubstr("--engine whisper only"));
}

TEST(AsrCommandTest, MandarinOnPocketsphinxSaysItHearsOnlyEnglish) {
  const AsrRun run = RunAsr({.input = "-", .language = "zh", .engine = "pocketsphinx"}, std::string(3200, '\0'));
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr("--lang zh: pocketsphinx hears only English"));
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, MandarinWithoutWhisperInstalledSaysHowToInstallIt) {
  const char* old = std::getenv("LINGCAST_MODELS");
  const std::string kept = old != nullptr ? old : "";
  setenv("LINGCAST_MODELS", "none", 1);
  const AsrRun run = RunAsr({.input = "-", .language = "zh"}, std::string(3200, '\0'));
  if (old != nullptr) {
    setenv("LINGCAST_MODELS", kept.c_str(), 1);
  } else {
    unsetenv("LINGCAST_MODELS");
  }
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr("--lang zh: pocketsphinx hears only English"));
  EXPECT_THAT(run.status.message(), HasSubstr("install"));
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, ChineseOnlyScriptIsExitTwo) {
  const std::string script = ::testing::TempDir() + "/zh_only_script.txt";
  std::ofstream(script) << "大家好，欢迎来到直播间。\n";
  const AsrRun run = RunAsr({.input = "-", .engine = "pocketsphinx", .script_path = script}, std::string(3200, '\0'));
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_THAT(run.status.message(), HasSubstr("no en lines to recognize"));
}

TEST(AsrCommandTest, UnknownZhScriptIsExitTwo) {
  const AsrRun run = RunAsr({.input = "-", .zh_script = "cursive"}, std::string(3200, '\0'));
  EXPECT_EQ(ExitCodeFor(run.status), 2) << run.status;
  EXPECT_EQ(run.status.message(), "unknown --zh-script \"cursive\" (use simplified or traditional)");
  EXPECT_TRUE(run.lines.empty());
}

TEST(AsrCommandTest, FormatAsrTime) {
  EXPECT_EQ(FormatAsrTime(MediaTime::Millis(1200)), "00:01.20");
  EXPECT_EQ(FormatAsrTime(MediaTime::Millis(754'500)), "12:34.50");
  EXPECT_EQ(FormatAsrTime(MediaTime::Seconds(3723.4)), "1:02:03.40");
}

}  // namespace
}  // namespace lingcast
