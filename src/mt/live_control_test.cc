#include "mt/live_control.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;
using testing_util::ScratchDir;

TEST(ParseControlCommandTest, ReadsTheThreeCommands) {
  absl::StatusOr<ControlCommand> line = ParseControlCommand("  line 4 = 点击下面的链接 ");
  ASSERT_OK(line);
  EXPECT_EQ(line->kind, ControlCommand::Kind::kLine);
  EXPECT_EQ(line->line_number, 4);
  EXPECT_EQ(line->target, "点击下面的链接");

  absl::StatusOr<ControlCommand> term = ParseControlCommand("term Lumi Glow = 露米光");
  ASSERT_OK(term);
  EXPECT_EQ(term->kind, ControlCommand::Kind::kTerm);
  EXPECT_EQ(term->source, "Lumi Glow");
  EXPECT_EQ(term->target, "露米光");

  absl::StatusOr<ControlCommand> memory = ParseControlCommand("TM see you tomorrow = 明天见");
  ASSERT_OK(memory);
  EXPECT_EQ(memory->kind, ControlCommand::Kind::kMemory);
  EXPECT_EQ(memory->source, "see you tomorrow");
}

TEST(ParseControlCommandTest, AnythingElseIsOneClearLine) {
  EXPECT_THAT(std::string(ParseControlCommand("fix 4 = x").status().message()), HasSubstr("unknown command \"fix\""));
  EXPECT_THAT(std::string(ParseControlCommand("line 4 x").status().message()), HasSubstr("expected line N = TEXT"));
  EXPECT_THAT(std::string(ParseControlCommand("line four = x").status().message()),
              HasSubstr("\"four\" is not a line number"));
  EXPECT_THAT(std::string(ParseControlCommand("line 0 = x").status().message()), HasSubstr("not a line number"));
  EXPECT_THAT(std::string(ParseControlCommand("term = x").status().message()), HasSubstr("both sides"));
  EXPECT_THAT(std::string(ParseControlCommand("term").status().message()), HasSubstr("expected term SOURCE = TEXT"));
  EXPECT_THAT(std::string(ParseControlCommand("tm hello =  ").status().message()), HasSubstr("both sides"));
  EXPECT_THAT(std::string(ParseControlCommand("tm hello = \xff").status().message()), HasSubstr("UTF-8"));
}

TEST(ParseControlCommandTest, VideoTakesASizeAFrameRateOrBoth) {
  absl::StatusOr<ControlCommand> both = ParseControlCommand("video 1280x720@30");
  ASSERT_OK(both);
  EXPECT_EQ(both->kind, ControlCommand::Kind::kVideo);
  EXPECT_EQ(both->video.width, 1280);
  EXPECT_EQ(both->video.height, 720);
  EXPECT_EQ(both->video.fps, 30);

  absl::StatusOr<ControlCommand> size = ParseControlCommand("VIDEO  1920X1080 ");
  ASSERT_OK(size);
  EXPECT_EQ(size->video.fps, 0);  // kept
  EXPECT_EQ((size->video.AppliedTo({1280, 720, 25})), (VideoFormat{1920, 1080, 25}));

  absl::StatusOr<ControlCommand> fps = ParseControlCommand("video @60");
  ASSERT_OK(fps);
  EXPECT_EQ((fps->video.AppliedTo({1280, 720, 30})), (VideoFormat{1280, 720, 60}));
}

TEST(ParseControlCommandTest, ABadVideoCommandIsOneClearLine) {
  auto message = [](const char* text) { return std::string(ParseControlCommand(text).status().message()); };
  EXPECT_THAT(message("video"), HasSubstr("expected video WIDTHxHEIGHT[@FPS] or video @FPS"));
  EXPECT_THAT(message("video big"), HasSubstr("expected video WIDTHxHEIGHT[@FPS]"));
  EXPECT_THAT(message("video 1280x720@"), HasSubstr("expected video WIDTHxHEIGHT[@FPS]"));
  EXPECT_THAT(message("video -1280x720"), HasSubstr("expected video WIDTHxHEIGHT[@FPS]"));
  EXPECT_THAT(message("video 1281x720"), HasSubstr("size 1281x720 width and height must be even"));
  EXPECT_THAT(message("video 100x50"), HasSubstr("size 100x50 must be between 160x90 and 7680x4320"));
  EXPECT_THAT(message("video 8000x4320"), HasSubstr("must be between 160x90 and 7680x4320"));
  EXPECT_THAT(message("video @0"), HasSubstr("frame rate 0 is outside 1..120"));
  EXPECT_THAT(message("video 1280x720@121"), HasSubstr("frame rate 121 is outside 1..120"));
  EXPECT_THAT(message("video @29.97"), HasSubstr("expected video WIDTHxHEIGHT[@FPS]"));
}

TEST(LiveControlTest, VideoCommandsGoToThePlayoutNotToTheCorrections) {
  std::unique_ptr<LiveControl> control = LiveControl::InProcess();
  ASSERT_OK(control->Submit("line 2 = 第二行", "api"));
  ASSERT_OK(control->Submit("video 1920x1080", "api"));
  ASSERT_OK(control->Submit("video @60", "api"));
  // A bad one is refused at once and queues nothing.
  EXPECT_THAT(control->Submit("video 1921x1080", "api"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be even")));
  const std::vector<ControlInput> corrections = control->Take();
  ASSERT_EQ(corrections.size(), 1u);
  EXPECT_EQ(corrections[0].command->kind, ControlCommand::Kind::kLine);
  const std::vector<absl::StatusOr<VideoChange>> changes = control->TakeVideoChanges();
  ASSERT_EQ(changes.size(), 2u);
  ASSERT_OK(changes[0]);
  EXPECT_EQ(changes[0]->width, 1920);
  ASSERT_OK(changes[1]);
  EXPECT_EQ(changes[1]->fps, 60);
  EXPECT_TRUE(control->TakeVideoChanges().empty());
}

// A `video` line of a control file that is no valid command is not a
// correction that failed: it goes to the playout, as a bad video command
// with the parser's reason, in order with the good ones.
TEST(LiveControlTest, ABadVideoLineIsABadVideoCommandNotACorrection) {
  ScratchDir dir;
  std::ofstream(dir.File("control.txt")) << "video 1281x720\nline 2 = 第二行\nVIDEO big\nvideo @60\nvideos 1280x720\n";
  absl::StatusOr<std::unique_ptr<LiveControl>> control = LiveControl::Open(dir.File("control.txt"));
  ASSERT_OK(control);
  const std::vector<ControlInput> corrections = (*control)->Take();
  ASSERT_EQ(corrections.size(), 2u);
  ASSERT_OK(corrections[0].command);
  EXPECT_EQ(corrections[0].command->kind, ControlCommand::Kind::kLine);
  // Not `video`: an unknown command stays with the corrections, as before.
  EXPECT_THAT(corrections[1].command, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown command \"videos\"")));

  const std::vector<absl::StatusOr<VideoChange>> changes = (*control)->TakeVideoChanges();
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_THAT(changes[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("bad video command at " + dir.File("control.txt") +
                                             ":1: \"video 1281x720\": size 1281x720 width and height must be even")));
  EXPECT_THAT(changes[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("bad video command at " + dir.File("control.txt") +
                                             ":3: \"VIDEO big\": expected video WIDTHxHEIGHT[@FPS]")));
  ASSERT_OK(changes[2]);
  EXPECT_EQ(changes[2]->fps, 60);
}

TEST(LiveControlTest, WhatAFileHoldsAtTheStartIsReadyAtOnce) {
  ScratchDir dir;
  std::ofstream(dir.File("control.txt")) << "# corrections for tonight\n\nline 2 = 第二行\nfix it\ntm a b = 甲乙\n";
  absl::StatusOr<std::unique_ptr<LiveControl>> control = LiveControl::Open(dir.File("control.txt"));
  ASSERT_OK(control);
  std::vector<ControlInput> inputs = (*control)->Take();
  ASSERT_EQ(inputs.size(), 3u);
  ASSERT_OK(inputs[0].command);
  EXPECT_EQ(inputs[0].command->line_number, 2);
  EXPECT_EQ(inputs[0].where, dir.File("control.txt") + ":3");
  EXPECT_FALSE(inputs[1].command.ok());
  EXPECT_EQ(inputs[1].where, dir.File("control.txt") + ":4");
  ASSERT_OK(inputs[2].command);
  EXPECT_EQ(inputs[2].command->source, "a b");
  EXPECT_TRUE((*control)->Take().empty());
}

TEST(LiveControlTest, AFifoIsFollowedAsTheOperatorWrites) {
  ScratchDir dir;
  const std::string fifo = dir.File("control.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<std::unique_ptr<LiveControl>> control = LiveControl::Open(fifo);  // no writer yet: must not block
  ASSERT_OK(control);
  const int writer = open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  const std::string text = "line 7 = 谢谢\nline 8 = 再";  // the second line is not ended yet
  ASSERT_EQ(write(writer, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  std::vector<ControlInput> inputs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (inputs.empty() && std::chrono::steady_clock::now() < deadline) {
    inputs = (*control)->Take();
    std::this_thread::yield();
  }
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].command->line_number, 7);
  ASSERT_EQ(write(writer, "见\n", 4), 4);
  close(writer);  // the operator's tool exits; a new one may open the FIFO later
  inputs.clear();
  while (inputs.empty() && std::chrono::steady_clock::now() < deadline) {
    inputs = (*control)->Take();
    std::this_thread::yield();
  }
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].command->target, "再见");
}

TEST(LiveControlTest, AMissingFileOrADirectoryIsNamed) {
  ScratchDir dir;
  absl::StatusOr<std::unique_ptr<LiveControl>> missing = LiveControl::Open(dir.File("nope.txt"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("nope.txt"));
  absl::StatusOr<std::unique_ptr<LiveControl>> directory = LiveControl::Open(dir.path());
  EXPECT_THAT(std::string(directory.status().message()), HasSubstr("is a directory"));
}

}  // namespace
}  // namespace lingcast
