#include "app/model_dirs.h"

#include <filesystem>
#include <fstream>

#include "core/scratch_dir.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using testing_util::ScratchDir;

TEST(ModelDirectories, ListsCheckpointDirectoriesWithTheirType) {
  ScratchDir root;
  std::filesystem::create_directories(root.File("opus-mt-zh-en"));
  std::ofstream(root.File("opus-mt-zh-en/config.json")) << R"({"model_type": "marian"})";
  std::ofstream(root.File("opus-mt-zh-en/model.safetensors")) << "x";
  std::filesystem::create_directories(root.File("broken"));
  std::ofstream(root.File("broken/config.json")) << "{not json";
  std::filesystem::create_directories(root.File("notes"));  // no config.json: not a model
  const auto dirs = FindModelDirectories(root.path());
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0].model_type, "unknown (config.json has no model_type)");
  EXPECT_FALSE(dirs[0].has_weights);
  EXPECT_EQ(dirs[1].model_type, "marian");
  EXPECT_TRUE(dirs[1].has_weights);

  const DoctorCheck check = CheckModelDirectories(root.path(), true);
  EXPECT_TRUE(check.ok);
  EXPECT_NE(check.detail.find("opus-mt-zh-en (marian)"), std::string::npos) << check.detail;
  EXPECT_NE(check.detail.find("no safetensors weights"), std::string::npos) << check.detail;
}

TEST(ModelDirectories, NoneFoundSaysHowToGetOne) {
  ScratchDir root;
  const DoctorCheck check = CheckModelDirectories(root.path(), true);
  EXPECT_TRUE(check.ok);
  EXPECT_NE(check.detail.find("none"), std::string::npos);
  EXPECT_NE(check.fix.find("opus-mt-zh-en"), std::string::npos);
  const DoctorCheck without_torch = CheckModelDirectories(root.File("missing"), false);
  EXPECT_NE(without_torch.fix.find("libtorch"), std::string::npos);
}

}  // namespace
}  // namespace lingcast
