#include "app/pinyin_command.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/status_matchers.h"
#include "text/test_lexicon.h"

#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

const PinyinConverter& Lexicon() { return TestLexicon(); }

struct CommandResult {
  absl::Status status;
  std::string out;
};

CommandResult RunPinyin(const std::string& input, PinyinCommandOptions options = {}) {
  std::istringstream in(input);
  std::ostringstream out;
  CommandResult result;
  result.status = RunPinyinCommand(Lexicon(), options, in, "stdin", out);
  result.out = out.str();
  return result;
}

TEST(PinyinCommandTest, OneOutputLinePerInputLine) {
  const CommandResult r = RunPinyin("银行的行长\nhello\n\n你好！\n");
  ASSERT_OK(r.status);
  EXPECT_EQ(r.out, "yin2 hang2 de5 hang2 zhang3\n\n\nni3 hao3\n");
}

TEST(PinyinCommandTest, LastLineWithoutNewlineAndCrLf) {
  const CommandResult r = RunPinyin("你好\r\n我们");
  ASSERT_OK(r.status);
  EXPECT_EQ(r.out, "ni3 hao3\nwo3 men5\n");
}

TEST(PinyinCommandTest, NumbersAreNormalizedFirst) {
  const CommandResult r = RunPinyin("99元\n");
  ASSERT_OK(r.status);
  EXPECT_EQ(r.out, "jiu3 shi2 jiu3 yuan2\n");
}

TEST(PinyinCommandTest, SandhiGivesSurfaceTones) {
  const CommandResult lexical = RunPinyin("你好，我不是第一个。\n");
  ASSERT_OK(lexical.status);
  EXPECT_EQ(lexical.out, "ni3 hao3 wo3 bu4 shi5 di4 yi1 ge4\n");
  const CommandResult surface = RunPinyin("你好，我不是第一个。\n", {.sandhi = true});
  ASSERT_OK(surface.status);
  EXPECT_EQ(surface.out, "ni2 hao3 wo3 bu2 shi5 di4 yi1 ge4\n");
}

TEST(PinyinCommandTest, JsonHasWordsReadingsAndSources) {
  const CommandResult r = RunPinyin("银行很好\nOK\n", {.sandhi = true, .json = true});
  ASSERT_OK(r.status);
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << r.out;
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["line"], 1);
  EXPECT_EQ(first["text"], "银行很好");
  ASSERT_GE(first["words"].size(), 2u) << first.dump();
  EXPECT_EQ(first["words"][0]["text"], "银行");
  EXPECT_EQ(first["words"][0]["pinyin"], nlohmann::json({"yin2", "hang2"}));
  EXPECT_EQ(first["words"][0]["surface"], nlohmann::json({"yin2", "hang2"}));
  EXPECT_EQ(first["words"][0]["source"], "phrase");
  std::vector<std::string> surface;
  for (const auto& word : first["words"]) {
    for (const auto& s : word["surface"]) surface.push_back(s);
  }
  EXPECT_EQ(surface, (std::vector<std::string>{"yin2", "hang2", "hen2", "hao3"}));
  const nlohmann::json second = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(second["line"], 2);
  EXPECT_TRUE(second["words"].empty());
}

TEST(PinyinCommandTest, JsonWithoutSandhiHasNoSurface) {
  const CommandResult r = RunPinyin("的\n", {.json = true});
  ASSERT_OK(r.status);
  const nlohmann::json record = nlohmann::json::parse(r.out);
  ASSERT_EQ(record["words"].size(), 1u);
  EXPECT_FALSE(record["words"][0].contains("surface"));
  EXPECT_EQ(record["words"][0]["source"], "character");
}

TEST(PinyinCommandTest, JsonNamesTheContextRuleThatChangedAReading) {
  const CommandResult r = RunPinyin("我得走了\n", {.json = true});
  ASSERT_OK(r.status);
  const nlohmann::json record = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& word : record["words"]) {
    if (word["text"] == "得") {
      found = true;
      EXPECT_EQ(word["pinyin"], nlohmann::json({"dei3"}));
      EXPECT_FALSE(word.value("rule", std::string()).empty()) << word.dump();
    } else {
      EXPECT_FALSE(word.contains("rule")) << word.dump();
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(PinyinCommandTest, InvalidUtf8NamesInputLineAndColumn) {
  const CommandResult r = RunPinyin("你好\n好\xff好\n不会到这里\n");
  EXPECT_TRUE(absl::IsInvalidArgument(r.status)) << r.status;
  EXPECT_THAT(r.status.message(), HasSubstr("invalid UTF-8 in stdin at line 2, column 2"));
  EXPECT_EQ(r.out, "ni3 hao3\n");  // the lines before it were answered
}

TEST(PinyinCommandTest, EmptyInputPrintsNothing) {
  const CommandResult r = RunPinyin("");
  ASSERT_OK(r.status);
  EXPECT_EQ(r.out, "");
}

// The development set through the command, the way a user would measure it.
TEST(PinyinCommandTest, SyllableAccuracyOnDevelopmentSet) {
  const std::string path = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/text/pinyin-dev.tsv";
  std::ifstream dev(path);
  if (!dev) GTEST_SKIP() << "development set " << path << " not present (it lives beside the repo)";
  std::string sentences;
  std::vector<std::string> expected;
  std::string line;
  while (std::getline(dev, line)) {
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 2) continue;
    sentences += fields[0] + "\n";
    expected.push_back(fields[1]);
  }
  ASSERT_FALSE(expected.empty()) << path << " holds no sentences";
  const CommandResult r = RunPinyin(sentences);
  ASSERT_OK(r.status);
  const std::vector<std::string> got = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(got.size(), expected.size());
  int total = 0;
  int correct = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::vector<std::string> want = absl::StrSplit(expected[i], ' ', absl::SkipEmpty());
    const std::vector<std::string> have = absl::StrSplit(got[i], ' ', absl::SkipEmpty());
    total += static_cast<int>(want.size());
    for (size_t k = 0; k < want.size() && k < have.size(); ++k) correct += want[k] == have[k];
  }
  const double accuracy = static_cast<double>(correct) / total;
  std::cout << "lingcast pinyin syllable accuracy on pinyin-dev.tsv: " << correct << "/" << total << " = "
            << accuracy * 100 << "%\n";
  EXPECT_GE(accuracy, 0.90);
}

}  // namespace
}  // namespace lingcast
