// The whole render pipeline (script -> TTS -> visemes -> avatar -> subtitles ->
// MP4) through RunRender, small and short. Also run under the TSan build.
#include "app/render_job.h"
#include "app/studio.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "avatar/cuda_support.h"
#include "core/status.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

namespace fs = std::filesystem;

class RenderJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1);
    dir_ = fs::temp_directory_path() / ("lingcast-render-job-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "s.script") << "zh: 大家好 | en: Hello everyone\n\n@pause 0.3\nen: Thank you! | zh: 谢谢！\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  RenderOptions Options() const {
    RenderOptions o;
    o.script_path = (dir_ / "s.script").string();
    o.output_path = (dir_ / "out.mp4").string();
    o.width = 320;
    o.height = 180;
    o.fps = 10;
    o.quiet = true;
    return o;
  }
  fs::path dir_;
};

TEST_F(RenderJobTest, RendersATinyScriptEndToEnd) {
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(Options(), logger, signals);
  ASSERT_OK(summary);
  EXPECT_EQ(summary->lines, 2);
  EXPECT_GT(summary->duration_s, 1.5);
  EXPECT_EQ(summary->frames, static_cast<int64_t>(std::ceil(summary->duration_s * 10 - 1e-9)));
  EXPECT_TRUE(fs::exists(Options().output_path));
  EXPECT_GT(summary->bytes, 0);
  const std::string json = RenderSummaryJson(*summary);
  EXPECT_NE(json.find("\"x_realtime\""), std::string::npos);
  // --renderer auto: the GPU where this build has the CUDA renderer and finds one.
  EXPECT_EQ(summary->renderer, CudaDeviceUsable().ok() ? "cuda" : "cpu");
  EXPECT_NE(json.find("\"renderer\": \"" + summary->renderer + "\""), std::string::npos) << json;
}

// --renderer cuda where it cannot run stops before any output exists, saying why.
TEST_F(RenderJobTest, CudaWithoutAGpuIsAUserErrorAndWritesNothing) {
  if (CudaDeviceUsable().ok()) GTEST_SKIP() << "this machine has a CUDA GPU";
  RenderOptions o = Options();
  o.renderer = "cuda";
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(o, logger, signals);
  EXPECT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().message().substr(0, 16), "--renderer cuda:") << summary.status();
  EXPECT_FALSE(fs::exists(o.output_path));
}

TEST_F(RenderJobTest, BadScriptIsAUserErrorAndWritesNothing) {
  std::ofstream(dir_ / "s.script") << "xx: what language is this\n";
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(Options(), logger, signals);
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(Options().output_path));
}

// --device reaches the neural voice: a word it does not know stops the render
// before any output exists, with one line naming the flag.
TEST_F(RenderJobTest, BadDeviceForTheNeuralVoiceIsAUserErrorAndWritesNothing) {
  absl::StatusOr<StudioVoiceChoice> voices = ChooseStudioVoice("auto", "", "");
  ASSERT_OK(voices);
  if (voices->english_dir.empty()) GTEST_SKIP() << "no English neural voice installed: " << voices->reason;
  RenderOptions options = Options();
  options.neural.device = "gpu9";
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(options, logger, signals);
  EXPECT_THAT(summary.status(), testing_util::StatusIs(absl::StatusCode::kInvalidArgument,
                                                      ::testing::HasSubstr("--device \"gpu9\"")));
  EXPECT_FALSE(fs::exists(options.output_path));
}

// A background file that is missing or not media stops the render before any
// output exists, with one line naming the file.
TEST_F(RenderJobTest, BadBackgroundFileIsAUserErrorAndWritesNothing) {
  std::ofstream(dir_ / "broken.png") << "not a picture";
  for (const fs::path& background : {dir_ / "missing.png", dir_ / "broken.png"}) {
    RenderOptions o = Options();
    o.background = background.string();
    Logger logger(LogLevel::kOff);
    SignalWatcher signals;
    absl::StatusOr<RenderSummary> summary = RunRender(o, logger, signals);
    ASSERT_FALSE(summary.ok()) << background;
    EXPECT_TRUE(IsUserError(summary.status())) << summary.status();
    EXPECT_NE(summary.status().message().find(background.string()), std::string::npos) << summary.status();
    EXPECT_FALSE(fs::exists(o.output_path));
  }
}

// A rig that is missing, not JSON, or wrong inside stops the render before any
// output exists, with one line naming the file (and the field, where there is one).
TEST_F(RenderJobTest, BadAvatarRigIsAUserErrorAndWritesNothing) {
  std::ofstream(dir_ / "cut.json") << "{\"lingcast_rig\": 1,";
  std::ofstream(dir_ / "typo.json") << R"({"lingcast_rig": 1, "canvas": {"width": 10, "height": 10},
      "layers": [{"id": "a", "shape": {"rect": {"x": 0, "y": 0, "width": 1, "height": 1}}, "fil": "#FFFFFF"}]})";
  for (const auto& [rig, message] : std::vector<std::pair<fs::path, std::string>>{
           {dir_ / "missing.json", "missing.json"},
           {dir_ / "cut.json", "cut.json: not valid JSON"},
           {dir_ / "typo.json", "layers[0].fil: unknown field"},
       }) {
    RenderOptions o = Options();
    o.avatar_path = rig.string();
    Logger logger(LogLevel::kOff);
    SignalWatcher signals;
    absl::StatusOr<RenderSummary> summary = RunRender(o, logger, signals);
    ASSERT_FALSE(summary.ok()) << rig;
    EXPECT_EQ(ExitCodeFor(summary.status()), 2) << summary.status();
    EXPECT_NE(summary.status().message().find(message), std::string::npos) << summary.status();
    EXPECT_EQ(summary.status().message().find('\n'), std::string::npos) << summary.status();
    EXPECT_FALSE(fs::exists(o.output_path)) << rig;
  }
}

TEST_F(RenderJobTest, RendersWithColourBackgroundBoxHighlightAndTitle) {
  RenderOptions o = Options();
  o.background = "#203040";
  o.subtitle_style = "box";
  o.highlight_words = true;
  o.title = "Li Na|Host";
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(o, logger, signals);
  ASSERT_OK(summary);
  EXPECT_TRUE(fs::exists(o.output_path));
}

// The script's `@title` and `@title off` go through the whole pipeline (the
// video stage's lower third; its frames are checked in compose/render_stage_test);
// a bad `@title` stops the render before any output exists, naming the line.
TEST_F(RenderJobTest, ScriptTitlesRenderAndABadOneWritesNothing) {
  std::ofstream(dir_ / "s.script") << "@title Li Na|Host\nzh: 大家好 | en: Hello everyone\n@title off\n"
                                       "en: Thank you! | zh: 谢谢！\n@title Wang Wei\n";
  Logger logger(LogLevel::kOff);
  SignalWatcher signals;
  absl::StatusOr<RenderSummary> summary = RunRender(Options(), logger, signals);
  ASSERT_OK(summary);
  EXPECT_EQ(summary->lines, 2);
  EXPECT_TRUE(fs::exists(Options().output_path));

  fs::remove(Options().output_path);
  std::ofstream(dir_ / "s.script") << "hi\n@title A|B|C\nbye\n";
  summary = RunRender(Options(), logger, signals);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(summary.status().message().find("s.script:2:"), std::string::npos) << summary.status();
  EXPECT_FALSE(fs::exists(Options().output_path));
}

}  // namespace
}  // namespace lingcast
