#include "app/translate_command.h"

#include <fstream>
#include <sstream>

#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/loopback_http_server.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

struct Fixture {
  ScratchDir dir;
  SimulatedClock clock{MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance};
  Logger logger{LogLevel::kOff};

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir.File(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  absl::StatusOr<TranslateSummary> Run(const TranslateCommandOptions& options, const std::string& input,
                                       std::string& output) {
    std::istringstream in(input);
    std::ostringstream out;
    absl::StatusOr<TranslateSummary> summary = RunTranslateCommand(options, in, out, clock, logger);
    output = out.str();
    return summary;
  }
};

TEST(TranslateCommandTest, TranslatesLinesFromAScriptAndAPairFile) {
  Fixture f;
  TranslateCommandOptions options;
  options.translation.memory_paths = {f.Write("show.script", "欢迎来到直播间 | Welcome to the live room\n"),
                                      f.Write("pairs.tsv", "谢谢大家\tThank you all\n")};
  std::string output;
  absl::StatusOr<TranslateSummary> summary = f.Run(options, "欢迎来到直播间！\n今天天气很好\n谢谢大家\n", output);
  ASSERT_OK(summary);
  EXPECT_EQ(output, "Welcome to the live room\n\nThank you all\n");
  EXPECT_EQ(summary->translated, 2);
  EXPECT_EQ(summary->untranslated, 1);
}

TEST(TranslateCommandTest, JsonNamesEngineScoreAndGlossaryFixes) {
  Fixture f;
  TranslateCommandOptions options;
  options.json = true;
  options.translation.memory_paths = {f.Write("pairs.tsv", "小米手机今天特价\tThe XIAOMI phone is on sale today\n")};
  options.translation.glossary_path = f.Write("terms.tsv", "小米\tXiaomi\n");
  std::string output;
  ASSERT_OK(f.Run(options, "小米手机今天特价\n\n", output));
  std::istringstream lines(output);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  nlohmann::json hit = nlohmann::json::parse(first);
  EXPECT_EQ(hit["source"], "小米手机今天特价");
  EXPECT_EQ(hit["target"], "The Xiaomi phone is on sale today");
  EXPECT_EQ(hit["engine"], "tm");
  EXPECT_EQ(hit["score"], 1.0);
  EXPECT_EQ(hit["glossary_fixed"], 1);
  nlohmann::json blank = nlohmann::json::parse(second);
  EXPECT_TRUE(blank["target"].is_null());
  EXPECT_FALSE(blank.contains("error"));
}

TEST(TranslateCommandTest, FallsBackToAnLlmServer) {
  Fixture f;
  auto server = LoopbackHttpServer::Start([](const LoopbackHttpServer::Request&) {
    LoopbackHttpServer::Reply reply;
    reply.chunks = {R"({"choices":[{"message":{"content":"The weather is nice today"}}]})"};
    return reply;
  });
  ASSERT_OK(server);
  TranslateCommandOptions options;
  options.json = true;
  options.translation.memory_paths = {f.Write("pairs.tsv", "谢谢大家\tThank you all\n")};
  options.translation.engines = {"tm", "llm"};
  options.translation.llm.endpoint = (*server)->url();
  std::string output;
  ASSERT_OK(f.Run(options, "今天天气很好\n谢谢大家\n", output));
  EXPECT_THAT(output, HasSubstr(R"("engine":"llm")"));
  EXPECT_THAT(output, HasSubstr(R"("target":"The weather is nice today")"));
  EXPECT_THAT(output, HasSubstr(R"("engine":"tm")"));
  EXPECT_EQ((*server)->requests(), 1);
}

TEST(TranslateCommandTest, BadSetupsAreClearErrors) {
  Fixture f;
  std::string output;
  TranslateCommandOptions no_memory;
  EXPECT_THAT(std::string(f.Run(no_memory, "x\n", output).status().message()), HasSubstr("--tm FILE"));

  TranslateCommandOptions same;
  same.translation.from = same.translation.to = Language::kEn;
  EXPECT_THAT(std::string(f.Run(same, "x\n", output).status().message()), HasSubstr("same language"));

  TranslateCommandOptions missing;
  missing.translation.memory_paths = {f.dir.File("absent.tsv")};
  EXPECT_TRUE(absl::IsNotFound(f.Run(missing, "x\n", output).status()));

  TranslateCommandOptions bad_glossary;
  bad_glossary.translation.memory_paths = {f.Write("p.tsv", "a\tb\n")};
  bad_glossary.translation.glossary_path = f.Write("g.tsv", "小米 Xiaomi\n");
  EXPECT_THAT(std::string(f.Run(bad_glossary, "x\n", output).status().message()), HasSubstr("g.tsv:1"));

  TranslateCommandOptions bad_threshold;
  bad_threshold.translation.memory_paths = {f.Write("p2.tsv", "a\tb\n")};
  bad_threshold.translation.threshold = 1.5;
  EXPECT_THAT(std::string(f.Run(bad_threshold, "x\n", output).status().message()), HasSubstr("--threshold"));

  TranslateCommandOptions quantized_tm;
  quantized_tm.translation.memory_paths = {f.Write("p3.tsv", "a\tb\n")};
  quantized_tm.translation.marian_quantize = "int8";
  EXPECT_THAT(std::string(f.Run(quantized_tm, "x\n", output).status().message()),
              HasSubstr("--quantize applies to the marian engine only"));
  TranslateCommandOptions placed_tm;
  placed_tm.translation.memory_paths = {f.Write("p4.tsv", "a\tb\n")};
  placed_tm.translation.marian_device.device = "cuda:0";
  EXPECT_THAT(std::string(f.Run(placed_tm, "x\n", output).status().message()),
              HasSubstr("--device and --dtype apply to the marian engine only"));
  quantized_tm.translation.marian_quantize = "int4";
  EXPECT_THAT(std::string(f.Run(quantized_tm, "x\n", output).status().message()),
              HasSubstr("unknown --quantize \"int4\" (use none or int8)"));

  EXPECT_FALSE(ParseEngines({"tm,gpt"}, kUsedByTranslate).ok());
  EXPECT_FALSE(ParseEngines({"tm", "tm"}, kUsedByTranslate).ok());
  EXPECT_EQ(*ParseEngines({"llm, tm"}, kUsedByTranslate), (std::vector<std::string>{"llm", "tm"}));
}

TEST(TranslateCommandTest, InvalidUtf8InputStopsWithTheLineNumber) {
  Fixture f;
  TranslateCommandOptions options;
  options.translation.memory_paths = {f.Write("p.tsv", "谢谢\tThanks\n")};
  std::string output;
  absl::StatusOr<TranslateSummary> summary = f.Run(options, "谢谢\n\xFF\n", output);
  EXPECT_TRUE(absl::IsInvalidArgument(summary.status()));
  EXPECT_THAT(std::string(summary.status().message()), HasSubstr("line 2"));
  EXPECT_EQ(output, "Thanks\n");  // the line before it was answered
}

}  // namespace
}  // namespace lingcast
