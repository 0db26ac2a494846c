// The plug-in's table is checked when it is opened (neural/plugin/plugin_table.h):
// real shared objects of another ABI version or table size, built beside this
// test, are refused with one line, and closed again.
#include "app/neural_plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

// LINGCAST_NEURAL_PLUGIN set for one test, restored after.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const char* path) {
    if (const char* kept = std::getenv("LINGCAST_NEURAL_PLUGIN")) kept_ = kept;
    setenv("LINGCAST_NEURAL_PLUGIN", path, 1);
  }
  ~ScopedPluginPath() {
    if (kept_) {
      setenv("LINGCAST_NEURAL_PLUGIN", kept_->c_str(), 1);
    } else {
      unsetenv("LINGCAST_NEURAL_PLUGIN");
    }
  }

 private:
  std::optional<std::string> kept_;
};

bool IsLoaded(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

TEST(NeuralPluginTest, APlugInOfAnotherAbiVersionIsRefusedAndNothingStaysLoaded) {
  ScopedPluginPath path(ABI_V2_FIXTURE);
  const absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  EXPECT_THAT(plugin.status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("neural plug-in ", ABI_V2_FIXTURE, " speaks ABI v2; this lingcast needs v1: rebuild it")));
  EXPECT_FALSE(IsLoaded(ABI_V2_FIXTURE));
}

TEST(NeuralPluginTest, ATableOfAnotherSizeIsRefused) {
  ScopedPluginPath path(SHORT_TABLE_FIXTURE);
  const absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("vits");
  EXPECT_THAT(plugin.status(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                        HasSubstr(absl::StrCat(SHORT_TABLE_FIXTURE, " has a table of 16 bytes for ABI v1; "
                                                               "this lingcast needs ", sizeof(NeuralPluginTable),
                                                               ": rebuild it"))));
  EXPECT_FALSE(IsLoaded(SHORT_TABLE_FIXTURE));
}

TEST(NeuralPluginTest, APathWithoutAPlugInSaysSo) {
  ScopedPluginPath path("/nonexistent/liblingcast_neural_plugin.so");
  EXPECT_THAT(NeuralPlugin::Open("marian").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cannot load the neural engines")));
}

TEST(NeuralPluginTest, ThePlugInBuiltBesideThisLingcastOffersEveryEngine) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("marian");
  ASSERT_OK(plugin);
  EXPECT_OK(plugin->Entry(&NeuralPluginTable::create_marian_translator, "marian"));
  EXPECT_OK(plugin->Entry(&NeuralPluginTable::create_whisper_asr, "whisper"));
  EXPECT_OK(plugin->Entry(&NeuralPluginTable::create_vits_tts, "vits"));
  EXPECT_OK(plugin->Entry(&NeuralPluginTable::create_fastspeech2_tts, "fastspeech2"));
  EXPECT_OK(plugin->Entry(&NeuralPluginTable::describe_runtime, "runtime"));
}

}  // namespace
}  // namespace lingcast
