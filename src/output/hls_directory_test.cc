#include "output/hls_directory.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ReadFile;
using testing_util::ScratchDir;

TEST(HlsDirectoryTest, WritesReadsAndReplacesRegularFiles) {
  ScratchDir scratch;
  auto dir = HlsDirectory::Open(scratch.File("a/b"));
  ASSERT_OK(dir);
  ASSERT_OK((*dir)->WriteAtomically("index.m3u8", "one"));
  ASSERT_OK((*dir)->WriteAtomically("index.m3u8", "two"));
  EXPECT_EQ(ReadFile(scratch.File("a/b/index.m3u8")), "two");
  EXPECT_EQ(*(*dir)->Read("index.m3u8"), "two");
  EXPECT_TRUE(*(*dir)->RegularFileExists("index.m3u8"));
  EXPECT_FALSE(*(*dir)->RegularFileExists("missing"));
  EXPECT_EQ((*dir)->RegularFileBytes(), 3);
  // Only the file itself: no temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(scratch.File("a/b")), {}), 1);
  (*dir)->Remove("index.m3u8");
  EXPECT_FALSE(std::filesystem::exists(scratch.File("a/b/index.m3u8")));
}

TEST(HlsDirectoryTest, NeverWritesOrReadsThroughALink) {
  ScratchDir scratch;
  std::ofstream(scratch.File("precious")) << "keep me";
  auto dir = HlsDirectory::Open(scratch.File("hls"));
  ASSERT_OK(dir);
  std::filesystem::create_symlink(scratch.File("precious"), scratch.File("hls/subtitles.m3u8"));
  const absl::Status written = (*dir)->WriteAtomically("subtitles.m3u8", "overwritten");
  EXPECT_THAT(written.message(), HasSubstr(scratch.File("hls/subtitles.m3u8") + " is a symbolic link"));
  EXPECT_THAT((*dir)->Read("subtitles.m3u8").status().message(), HasSubstr("is a symbolic link"));
  EXPECT_THAT((*dir)->RegularFileExists("subtitles.m3u8").status().message(), HasSubstr("is a symbolic link"));
  EXPECT_EQ(ReadFile(scratch.File("precious")), "keep me");
  // A link is not counted, and removing it leaves its target alone.
  EXPECT_EQ((*dir)->RegularFileBytes(), 0);
  (*dir)->Remove("subtitles.m3u8");
  EXPECT_FALSE(std::filesystem::is_symlink(scratch.File("hls/subtitles.m3u8")));
  EXPECT_EQ(ReadFile(scratch.File("precious")), "keep me");
  // Names that would leave the directory are not touched.
  (*dir)->Remove("../precious");
  EXPECT_EQ(ReadFile(scratch.File("precious")), "keep me");
}

TEST(HlsDirectoryTest, PlainNames) {
  EXPECT_TRUE(HlsDirectory::IsPlainName("video_00001.ts"));
  EXPECT_FALSE(HlsDirectory::IsPlainName(""));
  EXPECT_FALSE(HlsDirectory::IsPlainName("."));
  EXPECT_FALSE(HlsDirectory::IsPlainName(".."));
  EXPECT_FALSE(HlsDirectory::IsPlainName("../x.ts"));
  EXPECT_FALSE(HlsDirectory::IsPlainName("sub/x.ts"));
}

TEST(HlsDirectoryTest, AFileInTheWayOfTheDirectoryIsNamed) {
  ScratchDir scratch;
  std::ofstream(scratch.File("file")) << "x";
  auto dir = HlsDirectory::Open(scratch.File("file/hls"));
  EXPECT_THAT(dir.status().message(), HasSubstr("cannot create the HLS directory " + scratch.File("file/hls")));
}

TEST(HlsDirectoryTest, TheMuxerPathIsTheOpenDirectoryEvenAfterASwap) {
  ScratchDir scratch;
  auto dir = HlsDirectory::Open(scratch.File("hls"));
  ASSERT_OK(dir);
  std::filesystem::rename(scratch.File("hls"), scratch.File("moved"));
  std::filesystem::create_directory(scratch.File("hls"));
  std::ofstream((*dir)->MuxerPath("probe")) << "here";
  EXPECT_EQ(ReadFile(scratch.File("moved/probe")), "here");
  EXPECT_FALSE(std::filesystem::exists(scratch.File("hls/probe")));
}

}  // namespace
}  // namespace lingcast
