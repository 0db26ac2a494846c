#include "core/share_paths.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "gtest/gtest.h"

namespace lingcast {
namespace {

class SharePathsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per process: ctest runs these tests as parallel processes, and
    // a shared name let one test's TearDown remove another's files mid-test.
    share_ = std::filesystem::path(::testing::TempDir()) / ("share_paths_test-" + std::to_string(getpid()));
    std::filesystem::remove_all(share_);
    std::filesystem::create_directories(share_ / "opencc");
    std::ofstream(share_ / "opencc" / "t2s.json") << "{}";
  }
  void TearDown() override { std::filesystem::remove_all(share_); }
  std::filesystem::path share_;
};

TEST_F(SharePathsTest, ABundledFileIsFoundUnderTheShareDir) {
  EXPECT_EQ(SharePathIn(share_.string(), "/usr/share/opencc"), (share_ / "opencc").string());
  EXPECT_EQ(SharePathIn(share_.string(), "/usr/share/opencc/t2s.json"), (share_ / "opencc" / "t2s.json").string());
}

TEST_F(SharePathsTest, WhatTheBundleLacksKeepsItsSystemPath) {
  EXPECT_EQ(SharePathIn(share_.string(), "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc");
}

TEST_F(SharePathsTest, NoShareDirOrAPathOutsideUsrShareIsLeftAlone) {
  EXPECT_EQ(SharePathIn("", "/usr/share/opencc"), "/usr/share/opencc");
  EXPECT_EQ(SharePathIn(share_.string(), "/usr/lib/opencc"), "/usr/lib/opencc");
  EXPECT_EQ(SharePathIn(share_.string(), "usr/share/opencc"), "usr/share/opencc");
}

}  // namespace
}  // namespace lingcast
