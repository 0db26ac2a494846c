// The command registry as main.cc uses it: Add*Command puts the subcommand on the
// CLI, and the runner it returns runs with the flags that were parsed, each
// registration with its own storage.
#include "app/command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "app/asr_command.h"
#include "app/doctor.h"
#include "app/follow_command.h"
#include "app/lipsync_command.h"
#include "app/live_command.h"
#include "app/pinyin_command.h"
#include "app/render_options.h"
#include "app/serve_command.h"
#include "app/translate_command.h"
#include "app/tts_command.h"
#include "app/worker_command.h"
#include "avatar/cuda_support.h"

namespace lingcast {
namespace {

// CLI11 parses argv back to front when given a vector, so hand it a reversed copy.
void Parse(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());
  app.parse(args);
}

// doctor names what --renderer auto draws with here, and why; never a failure.
TEST(DoctorTest, NamesTheRendererAutoWouldTake) {
  const std::vector<DoctorCheck> checks = RunDoctorChecks();
  const auto renderer =
      std::find_if(checks.begin(), checks.end(), [](const DoctorCheck& c) { return c.name == "renderer"; });
  ASSERT_NE(renderer, checks.end());
  EXPECT_TRUE(renderer->ok);
  EXPECT_EQ(renderer->detail.substr(0, 6), "auto: ") << renderer->detail;
  EXPECT_NE(renderer->detail.find(CudaDeviceUsable().ok() ? "auto: cuda on " : "auto: cpu ("), std::string::npos)
      << renderer->detail;
}

TEST(CommandTest, EveryCommandRegistersItsSubcommand) {
  CLI::App app;
  const std::vector<Command> commands = {
      AddRenderCommand(app),  AddDoctorCommand(app), AddPinyinCommand(app), AddTtsCommand(app),
      AddAsrCommand(app),     AddTranslateCommand(app), AddLipsyncCommand(app), AddLiveCommand(app),
      AddFollowCommand(app),  AddServeCommand(app),  AddWorkerCommand(app), AddSubmitCommand(app),
  };
  std::vector<std::string> names;
  for (const Command& command : commands) {
    ASSERT_NE(command.cli, nullptr);
    EXPECT_TRUE(static_cast<bool>(command.run));
    names.push_back(command.cli->get_name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"render", "doctor", "pinyin", "tts", "asr", "translate", "lipsync",
                                             "live", "follow", "serve", "worker",
                                             "submit"}));
}

// The runner owns its flags: two registrations (two CLI::App) parse and run
// apart, and a bad value is one error line with exit code 2, before any input
// is read.
TEST(CommandTest, EachRegistrationRunsWithItsOwnParsedFlags) {
  CLI::App first, second;
  const Command first_translate = AddTranslateCommand(first);
  const Command second_translate = AddTranslateCommand(second);
  Parse(first, {"translate", "--from", "fr"});
  Parse(second, {"translate", "--from", "en", "--to", "de"});
  ASSERT_TRUE(first_translate.cli->parsed());
  ASSERT_TRUE(second_translate.cli->parsed());
  Logger logger(LogLevel::kOff);

  testing::internal::CaptureStderr();
  EXPECT_EQ(first_translate.run(logger), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "lingcast: error: unknown language 'fr' (expected zh or en)\n");
  testing::internal::CaptureStderr();
  EXPECT_EQ(second_translate.run(logger), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "lingcast: error: unknown language 'de' (expected zh or en)\n");
}

TEST(CommandTest, ReportCommandStatusMapsStatusesToExitCodes) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(ReportCommandStatus(absl::OkStatus()), 0);
  EXPECT_EQ(ReportCommandStatus(absl::InvalidArgumentError("--size 1x1: too small")), 2);
  EXPECT_EQ(ReportCommandStatus(absl::InternalError("encoder failed")), 1);
  EXPECT_EQ(ReportCommandStatus(absl::CancelledError("interrupted")), 130);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "lingcast: error: --size 1x1: too small\n"
            "lingcast: error: encoder failed\n"
            "lingcast: error: interrupted\n");
}

}  // namespace
}  // namespace lingcast
