#include "mt/corrections.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/glossary.h"
#include "mt/translation_memory.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CorrectionLogTest, ALineCorrectionUpdatesTheMemoryAndPersists) {
  ScratchDir dir;
  const std::string path = dir.File("corrections.tsv");
  TranslationMemory memory;
  memory.Add(TmEntry{"谢谢大家", "Thank you all", Language::kZh, Language::kEn, "show:1"});
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(path);
  ASSERT_OK(log);
  ASSERT_TRUE(log->Record({Correction::Kind::kLine, Language::kZh, Language::kEn, "谢谢大家", "Thanks, everyone"},
                          memory, nullptr)
                  .ok());
  EXPECT_EQ(memory.Lookup("谢谢大家", Language::kZh, Language::kEn)->entry.target, "Thanks, everyone");
  EXPECT_THAT(ReadAll(path), HasSubstr("line\tzh\ten\t谢谢大家\tThanks, everyone\n"));

  // The next show starts with it.
  TranslationMemory next_show;
  next_show.Add(TmEntry{"谢谢大家", "Thank you all", Language::kZh, Language::kEn, "show:1"});
  absl::StatusOr<CorrectionLog> reopened = CorrectionLog::Open(path);
  ASSERT_OK(reopened);
  ASSERT_EQ(reopened->corrections().size(), 1u);
  reopened->ApplyTo(next_show, nullptr);
  EXPECT_EQ(next_show.Lookup("谢谢大家", Language::kZh, Language::kEn)->entry.target, "Thanks, everyone");
}

TEST(CorrectionLogTest, ATermCorrectionUpdatesTheGlossary) {
  ScratchDir dir;
  TranslationMemory memory;
  absl::StatusOr<Glossary> glossary = Glossary::Parse("小米\tMillet\n", "g.tsv");
  ASSERT_OK(glossary);
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(dir.File("c.tsv"));
  ASSERT_OK(log);
  ASSERT_TRUE(log->Record({Correction::Kind::kTerm, Language::kEn, Language::kZh, "Xiaomi", "小米"}, memory, &*glossary)
                  .ok());
  EXPECT_EQ(glossary->Enforce("小米手机", Language::kZh, "小米 phone", Language::kEn).text, "Xiaomi phone");
}

TEST(CorrectionLogTest, BadCorrectionsChangeNothing) {
  ScratchDir dir;
  const std::string path = dir.File("c.tsv");
  TranslationMemory memory;
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(path);
  ASSERT_OK(log);
  ASSERT_OK(log->Record({Correction::Kind::kLine, Language::kZh, Language::kEn, "你好", "Hello"}, memory, nullptr));
  const std::string before = ReadAll(path);
  for (const Correction& bad : std::vector<Correction>{
           {Correction::Kind::kLine, Language::kZh, Language::kEn, "", "x"},
           {Correction::Kind::kLine, Language::kZh, Language::kEn, "你好", ""},
           {Correction::Kind::kLine, Language::kZh, Language::kEn, "你好", "a\tb"},
           {Correction::Kind::kLine, Language::kZh, Language::kEn, "你好", "\xFF"},
           {Correction::Kind::kTerm, Language::kZh, Language::kEn, "小米", "Xiaomi"},  // no glossary
       }) {
    absl::Status status = log->Record(bad, memory, nullptr);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  }
  EXPECT_EQ(ReadAll(path), before);
  EXPECT_EQ(log->corrections().size(), 1u);
  EXPECT_EQ(memory.Lookup("你好", Language::kZh, Language::kEn)->entry.target, "Hello");
}

TEST(CorrectionLogTest, AnUnwritableFileChangesNothing) {
  ScratchDir dir;
  TranslationMemory memory;
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(dir.File("missing-dir/c.tsv"));
  ASSERT_OK(log);
  absl::Status status =
      log->Record({Correction::Kind::kLine, Language::kZh, Language::kEn, "你好", "Hello"}, memory, nullptr);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("missing-dir"));
  EXPECT_EQ(memory.size(), 0u);
  EXPECT_TRUE(log->corrections().empty());
}

// A folder given as the log is refused when it is opened, not at the first
// correction of the show, and nothing is written into or beside it.
TEST(CorrectionLogTest, ADirectoryIsRefusedWhenOpened) {
  ScratchDir dir;
  std::filesystem::create_directory(dir.File("corrections"));
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(dir.File("corrections"));
  EXPECT_THAT(log.status(), testing_util::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   HasSubstr(dir.File("corrections") + " is a directory")));
  EXPECT_TRUE(std::filesystem::is_empty(dir.File("corrections")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
}

TEST(CorrectionLogTest, AMalformedLogNamesFileAndLine) {
  ScratchDir dir;
  const std::string path = dir.File("c.tsv");
  std::ofstream(path) << "# header\nline\tzh\ten\t你好\tHello\nline\tzh\ten\t只有四列\n";
  absl::StatusOr<CorrectionLog> log = CorrectionLog::Open(path);
  ASSERT_FALSE(log.ok());
  EXPECT_THAT(std::string(log.status().message()), HasSubstr("c.tsv:3: expected KIND"));
  std::ofstream(path) << "word\tzh\ten\ta\tb\n";
  EXPECT_THAT(std::string(CorrectionLog::Open(path).status().message()), HasSubstr("c.tsv:1: kind \"word\""));
  std::ofstream(path) << "line\tfr\ten\ta\tb\n";
  EXPECT_THAT(std::string(CorrectionLog::Open(path).status().message()), HasSubstr("zh or en"));
}

TEST(CorrectScriptLineTest, FindsTheSpokenLineOrSaysItIsUnknown) {
  absl::StatusOr<Script> script = ParseScriptText("# title\n欢迎 | Welcome\n\n谢谢 | Thanks\n", "show.script");
  ASSERT_OK(script);
  absl::StatusOr<Correction> c = CorrectScriptLine(*script, 4, Language::kEn, "Thank you");
  ASSERT_OK(c);
  EXPECT_EQ(c->source, "谢谢");
  EXPECT_EQ(c->from, Language::kZh);
  for (int unknown : {1, 3, 9}) {
    absl::StatusOr<Correction> missing = CorrectScriptLine(*script, unknown, Language::kEn, "x");
    EXPECT_TRUE(absl::IsNotFound(missing.status()));
    EXPECT_THAT(std::string(missing.status().message()), HasSubstr("show.script has no spoken line"));
  }
}

}  // namespace
}  // namespace lingcast
