#include "text/script.h"
#include "core/status_matchers.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lingcast {
namespace {

using ::testing::HasSubstr;

const ScriptLine& LineAt(const Script& s, size_t i) { return std::get<ScriptLine>(s.items.at(i)); }
const ScriptPause& PauseAt(const Script& s, size_t i) { return std::get<ScriptPause>(s.items.at(i)); }

absl::Status ErrorOf(std::string_view text) {
  return ParseScriptText(text, "show.txt").status();
}

TEST(ScriptTest, ParsesItemsTranslationsAndTags) {
  const auto script = ParseScriptText(
      "# opening\n"
      "zh: 大家好，欢迎来到直播间。 | en: Hello everyone, welcome to the live stream.\n"
      "Today we have a deal | 今天有优惠\n",
      "show.txt");
  ASSERT_OK(script);
  EXPECT_EQ(script->filename, "show.txt");
  ASSERT_EQ(script->items.size(), 2u);
  const ScriptLine& first = LineAt(*script, 0);
  EXPECT_EQ(first.line_number, 2);
  ASSERT_EQ(first.segments.size(), 2u);
  EXPECT_EQ(first.segments[0].text, "大家好，欢迎来到直播间。");
  EXPECT_EQ(first.segments[0].language, Language::kZh);
  EXPECT_EQ(first.segments[1].text, "Hello everyone, welcome to the live stream.");
  EXPECT_EQ(first.segments[1].language, Language::kEn);
  const ScriptLine& second = LineAt(*script, 1);
  EXPECT_EQ(second.segments[0].language, Language::kEn);  // detected
  EXPECT_EQ(second.segments[1].language, Language::kZh);
}

// The example in docs/script-format.md.
TEST(ScriptTest, DocumentedExample) {
  const auto script = ParseScriptText(
      "# Opening of the Friday show. Lines starting with # are comments.\n"
      "@title Li Na|Host, Lingcast Live\n"
      "zh: 大家好，欢迎来到直播间。 | en: Hello everyone, welcome to the live stream.\n"
      "今天我们有特别优惠。 | Today we have a special offer.\n"
      "\n"
      "en: This jacket is only 99 yuan. | zh: 这件夹克只要99元。\n"
      "@pause 1.5\n"
      "zh: 喜欢的朋友点击下方链接购买。 | en: Tap the link below to buy.\n",
      "show.txt");
  ASSERT_OK(script);
  ASSERT_EQ(script->items.size(), 7u);
  ASSERT_NE(std::get_if<ScriptTitle>(&script->items[0]), nullptr);
  EXPECT_EQ(std::get<ScriptTitle>(script->items[0]).text, "Li Na|Host, Lingcast Live");
  EXPECT_EQ(LineAt(*script, 2).segments[0].language, Language::kZh);
  EXPECT_EQ(LineAt(*script, 2).segments[1].language, Language::kEn);
  EXPECT_EQ(PauseAt(*script, 3).duration, kDefaultScriptPause);
  EXPECT_EQ(LineAt(*script, 4).segments[1].text, "这件夹克只要99元。");
  EXPECT_EQ(PauseAt(*script, 5).duration, MediaTime::Millis(1500));
  EXPECT_EQ(script->spoken_line_count(), 4);
}

TEST(ScriptTest, PipeWithoutSpacesIsText) {
  const auto script = ParseScriptText("A|B testing\n", "s.txt");
  ASSERT_OK(script);
  ASSERT_EQ(LineAt(*script, 0).segments.size(), 1u);
  EXPECT_EQ(LineAt(*script, 0).segments[0].text, "A|B testing");
}

TEST(ScriptTest, TagOverridesDetection) {
  const auto script = ParseScriptText("en: 你好\n", "s.txt");
  ASSERT_OK(script);
  EXPECT_EQ(LineAt(*script, 0).segments[0].language, Language::kEn);
}

TEST(ScriptTest, BlankLinesArePausesAndRunsCollapse) {
  const auto script = ParseScriptText("one\n\n\n# note\n\ntwo\n@pause 1.5\nthree\n", "s.txt");
  ASSERT_OK(script);
  ASSERT_EQ(script->items.size(), 5u);
  EXPECT_EQ(PauseAt(*script, 1).duration, kDefaultScriptPause);
  EXPECT_EQ(PauseAt(*script, 1).line_number, 2);
  EXPECT_EQ(LineAt(*script, 2).segments[0].text, "two");
  EXPECT_EQ(PauseAt(*script, 3).duration, MediaTime::Millis(1500));
  EXPECT_EQ(script->spoken_line_count(), 3);
}

TEST(ScriptTest, StripsBomAndCrlf) {
  const auto script = ParseScriptText("\xEF\xBB\xBFzh: 你好\r\n\r\nen: hi\r\n", "s.txt");
  ASSERT_OK(script);
  ASSERT_EQ(script->items.size(), 3u);
  EXPECT_EQ(LineAt(*script, 0).segments[0].text, "你好");
  EXPECT_EQ(LineAt(*script, 2).segments[0].text, "hi");
}

TEST(ScriptTest, UnknownTagNamesFileLineAndColumn) {
  const absl::Status status = ErrorOf("hello\nzh: 你好 | fr: bonjour\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "show.txt:2:10: unknown language tag 'fr:' (use zh: or en:)");
}

TEST(ScriptTest, UnknownDirective) {
  const absl::Status status = ErrorOf("hi\n  @wait 3\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("show.txt:2:3: unknown directive '@wait'"));
}

TEST(ScriptTest, BadPauseDurations) {
  EXPECT_THAT(ErrorOf("hi\n@pause\n").message(), HasSubstr("show.txt:2:7: @pause needs a duration"));
  EXPECT_THAT(ErrorOf("hi\n@pause abc\n").message(), HasSubstr("show.txt:2:8: @pause duration 'abc'"));
  EXPECT_THAT(ErrorOf("hi\n@pause 0\n").message(), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("hi\n@pause -1\n").message(), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("hi\n@pause 61\n").message(), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("hi\n@pause nan\n").message(), HasSubstr("is not a number"));
}

TEST(ScriptTest, EmotionDirectivesAreItems) {
  const auto script = ParseScriptText("@emotion smile\nhi\n@emotion thinking\nhmm\n", "s.txt");
  ASSERT_OK(script);
  ASSERT_EQ(script->items.size(), 4u);
  const auto* first = std::get_if<ScriptEmotion>(&script->items[0]);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "smile");
  EXPECT_EQ(first->line_number, 1);
  ASSERT_NE(std::get_if<ScriptEmotion>(&script->items[2]), nullptr);
  EXPECT_EQ(std::get<ScriptEmotion>(script->items[2]).name, "thinking");
}

TEST(ScriptTest, BadEmotions) {
  EXPECT_EQ(ErrorOf("hi\n@emotion angry\n").message(),
            "show.txt:2:10: unknown emotion 'angry' (known: neutral, smile, surprised, thinking)");
  EXPECT_EQ(ErrorOf("hi\n@emotion\n").message(),
            "show.txt:2:9: @emotion needs an expression, one of neutral, smile, surprised, thinking");
  // Only directives: still no line to speak.
  EXPECT_THAT(ErrorOf("@emotion smile\n").message(), HasSubstr("no lines to speak"));
}

TEST(ScriptTest, TitleDirectivesAreItems) {
  const auto script =
      ParseScriptText("@title  Li Na | Host, 直播间 \nhi\n@title off\nbye\n@title Wang\nend\n", "s.txt");
  ASSERT_OK(script);
  ASSERT_EQ(script->items.size(), 6u);
  const auto* first = std::get_if<ScriptTitle>(&script->items[0]);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->text, "Li Na | Host, 直播间");  // trimmed around, kept inside (the compositor splits it)
  EXPECT_EQ(first->line_number, 1);
  const auto* off = std::get_if<ScriptTitle>(&script->items[2]);
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(off->text, "");
  EXPECT_EQ(off->line_number, 3);
  ASSERT_NE(std::get_if<ScriptTitle>(&script->items[4]), nullptr);
  EXPECT_EQ(std::get<ScriptTitle>(script->items[4]).text, "Wang");
  EXPECT_EQ(script->spoken_line_count(), 3);
}

TEST(ScriptTest, BadTitles) {
  EXPECT_EQ(ErrorOf("hi\n@title\n").message(),
            "show.txt:2:7: @title needs a title, e.g. '@title Li Na|Host, Lingcast Live' (or '@title off')");
  EXPECT_EQ(ErrorOf("hi\n@title   \n").message(),
            "show.txt:2:7: @title needs a title, e.g. '@title Li Na|Host, Lingcast Live' (or '@title off')");
  EXPECT_EQ(ErrorOf("hi\n@title A|B|C\n").message(),
            "show.txt:2:11: @title has more than one '|' (expected NAME|SUBTITLE)");
  EXPECT_EQ(ErrorOf("hi\n@title  | Host\n").message(), "show.txt:2:9: @title has an empty name before '|'");
  EXPECT_THAT(ErrorOf("@title Li Na\n").message(), HasSubstr("no lines to speak"));
  EXPECT_THAT(ErrorOf("hi\n@titles x\n").message(),
              HasSubstr("unknown directive '@titles' (known: @pause SECONDS, @emotion NAME, @title TEXT)"));
}

TEST(ScriptTest, InvalidUtf8NamesPosition) {
  const absl::Status status = ErrorOf("hi\n你好\xff\n");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("show.txt:2:3: invalid UTF-8"));
}

TEST(ScriptTest, EmptyScripts) {
  for (const char* text : {"", "\n\n", "# only a comment\n", "@pause 1\n"}) {
    const absl::Status status = ErrorOf(text);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(status.message(), HasSubstr("show.txt:1:1: script has no lines to speak"));
  }
}

TEST(ScriptTest, EmptySegment) {
  EXPECT_THAT(ErrorOf("zh: | en: hi\n").message(), HasSubstr("show.txt:1:4: empty segment"));
}

class ScriptFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("lingcast_script_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ScriptFileTest, ReadsAFile) {
  const std::string path = (dir_ / "a.txt").string();
  std::ofstream(path) << "zh: 你好 | en: hello\n";
  const auto script = ParseScriptFile(path);
  ASSERT_OK(script);
  EXPECT_EQ(script->filename, path);
  EXPECT_EQ(LineAt(*script, 0).segments.size(), 2u);
}

TEST_F(ScriptFileTest, MissingFileIsNotFound) {
  const std::string path = (dir_ / "missing.txt").string();
  const absl::Status status = ParseScriptFile(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr(path));
}

TEST_F(ScriptFileTest, DirectoryIsAClearError) {
  const absl::Status status = ParseScriptFile(dir_.string()).status();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(dir_.string()));
}

TEST_F(ScriptFileTest, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: file permissions are not enforced";
  const std::string path = (dir_ / "locked.txt").string();
  std::ofstream(path) << "hi\n";
  std::filesystem::permissions(path, std::filesystem::perms::none);
  EXPECT_EQ(ParseScriptFile(path).status().code(), absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace lingcast
