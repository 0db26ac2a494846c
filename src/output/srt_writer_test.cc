#include "output/srt_writer.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

SubtitleCue Cue(double start_s, double end_s, const std::string& primary, const std::string& secondary) {
  SubtitleCue cue;
  cue.start = MediaTime::Seconds(start_s);
  cue.end = MediaTime::Seconds(end_s);
  cue.primary = {primary, Language::kZh};
  cue.secondary = {secondary, Language::kEn};
  return cue;
}

TEST(SrtTest, FormatsTimestamps) {
  EXPECT_EQ(FormatSrtTimestamp(MediaTime::Zero()), "00:00:00,000");
  EXPECT_EQ(FormatSrtTimestamp(MediaTime::Micros(3'723'456'789)), "01:02:03,456");
  EXPECT_EQ(FormatSrtTimestamp(MediaTime::Seconds(100 * 3600)), "100:00:00,000");
}

TEST(SrtTest, PutsTheSpokenLineFirstAndItsTranslationSecond) {
  auto srt = FormatSrt({Cue(0.5, 2.25, "大家好，欢迎来到直播间。", "Hello everyone, welcome to the live stream."),
                        Cue(3, 4, "Thank you.", "")});
  ASSERT_OK(srt);
  EXPECT_EQ(*srt,
            "1\n00:00:00,500 --> 00:00:02,250\n大家好，欢迎来到直播间。\nHello everyone, welcome to the live stream.\n\n"
            "2\n00:00:03,000 --> 00:00:04,000\nThank you.\n\n");
}

TEST(SrtTest, KeepsEachTextOnOneLineSoACueCannotBreak) {
  auto srt = FormatSrt({Cue(0, 1, "line one\n\nline two ", "")});
  ASSERT_OK(srt);
  EXPECT_EQ(*srt, "1\n00:00:00,000 --> 00:00:01,000\nline one  line two\n\n");
}

TEST(SrtTest, RejectsCuesThatCannotBeShown) {
  EXPECT_THAT(std::string(FormatSrt({Cue(2, 1, "a", "")}).status().message()),
              HasSubstr("subtitle cue 1 (2.000000s --> 1.000000s): ends before it starts"));
  EXPECT_THAT(std::string(FormatSrt({Cue(0, 1, "a", ""), Cue(5, 6, " ", "b")}).status().message()),
              HasSubstr("subtitle cue 2"));
  EXPECT_THAT(std::string(FormatSrt({Cue(5, 6, "a", ""), Cue(1, 2, "b", "")}).status().message()),
              HasSubstr("starts before the previous cue"));
}

TEST(SrtTest, WritesTheFileAtomically) {
  ScratchDir dir;
  const std::string path = dir.File("out.srt");
  ASSERT_OK(WriteSrtFile(path, {Cue(0, 1, "你好", "Hello")}));
  std::ifstream file(path);
  std::stringstream contents;
  contents << file.rdbuf();
  EXPECT_EQ(contents.str(), "1\n00:00:00,000 --> 00:00:01,000\n你好\nHello\n\n");
  EXPECT_THAT(dir.Entries(), ::testing::ElementsAre("out.srt"));
}

TEST(SrtTest, ABadCueWritesNothing) {
  ScratchDir dir;
  EXPECT_FALSE(WriteSrtFile(dir.File("out.srt"), {Cue(1, 0, "x", "")}).ok());
  EXPECT_THAT(dir.Entries(), ::testing::IsEmpty());
}

TEST(SrtTest, RefusesAMissingDirectory) {
  ScratchDir dir;
  const absl::Status status = WriteSrtFile(dir.File("no/out.srt"), {Cue(0, 1, "x", "")});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("does not exist"));
}

}  // namespace
}  // namespace lingcast
