#include "core/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/scratch_dir.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing_util::ScratchDir;

std::string Slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

TEST(CheckOutputPathTest, AcceptsANewFileInAWritableDirectoryAndLeavesNoProbe) {
  ScratchDir dir;
  EXPECT_OK(CheckOutputPath(dir.File("out.mp4")));
  EXPECT_THAT(dir.Entries(), IsEmpty());
}

TEST(CheckOutputPathTest, AcceptsAnExistingFileToReplace) {
  ScratchDir dir;
  std::ofstream(dir.File("out.mp4")) << "old";
  EXPECT_OK(CheckOutputPath(dir.File("out.mp4")));
}

TEST(CheckOutputPathTest, NamesAMissingDirectory) {
  ScratchDir dir;
  const std::string path = dir.File("nowhere/out.mp4");
  const absl::Status status = CheckOutputPath(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "output " + path + ": directory " + dir.File("nowhere") +
                                  " does not exist (create it first)");
}

TEST(CheckOutputPathTest, RefusesAPathThroughARegularFile) {
  ScratchDir dir;
  std::ofstream(dir.File("file")) << "x";
  const absl::Status status = CheckOutputPath(dir.File("file/out.mp4"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("is not a directory"));
}

TEST(CheckOutputPathTest, RefusesADirectory) {
  ScratchDir dir;
  const absl::Status status = CheckOutputPath(dir.path());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("is a directory"));
}

TEST(CheckOutputPathTest, RefusesADeviceRatherThanReplacingIt) {
  const absl::Status status = CheckOutputPath("/dev/null");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("not a regular file"));
}

TEST(CheckOutputPathTest, RefusesADirectoryWhereEvenRootCannotCreateFiles) {
  // Tests run as root, so permission bits prove nothing; /proc refuses everyone.
  if (!std::filesystem::is_directory("/proc/self")) GTEST_SKIP() << "no /proc on this system";
  const absl::Status status = CheckOutputPath("/proc/lingcast_out.mp4");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("/proc/lingcast_out.mp4"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot create a file in directory /proc"));
  EXPECT_FALSE(std::filesystem::exists("/proc/lingcast_out.mp4"));
}

TEST(CheckOutputPathTest, RefusesAnEmptyPath) {
  EXPECT_EQ(CheckOutputPath("").code(), absl::StatusCode::kInvalidArgument);
}

TEST(TempFileTest, LivesBesideTheFinalPathAndIsRemovedUnlessCommitted) {
  ScratchDir dir;
  std::string temp_path;
  {
    auto temp = TempFile::Create(dir.File("out.mp4"));
    ASSERT_OK(temp);
    temp_path = temp->path();
    EXPECT_EQ(std::filesystem::path(temp_path).parent_path(), std::filesystem::path(dir.path()));
    EXPECT_THAT(std::filesystem::path(temp_path).filename().string(), StartsWith(".out.mp4.tmp-"));
    EXPECT_TRUE(std::filesystem::exists(temp_path));
  }
  EXPECT_FALSE(std::filesystem::exists(temp_path));
  EXPECT_THAT(dir.Entries(), IsEmpty());
}

TEST(TempFileTest, TwoWritersToOnePathGetDifferentTempFiles) {
  ScratchDir dir;
  auto a = TempFile::Create(dir.File("out.mp4"));
  auto b = TempFile::Create(dir.File("out.mp4"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->path(), b->path());
}

TEST(TempFileTest, CommitMovesTheContentsIntoPlace) {
  ScratchDir dir;
  auto temp = TempFile::Create(dir.File("out.txt"));
  ASSERT_OK(temp);
  std::ofstream(temp->path()) << "done";
  ASSERT_OK(temp->Commit());
  EXPECT_EQ(Slurp(dir.File("out.txt")), "done");
  EXPECT_THAT(dir.Entries(), ElementsAre("out.txt"));
  EXPECT_FALSE(temp->Commit().ok()) << "a second commit has nothing to move";
}

TEST(TempFileTest, AMovedFromTempFileDoesNotDeleteTheFile) {
  ScratchDir dir;
  auto temp = TempFile::Create(dir.File("out.txt"));
  ASSERT_OK(temp);
  TempFile moved = std::move(*temp);
  temp = absl::InternalError("drop the moved-from object");
  EXPECT_TRUE(std::filesystem::exists(moved.path()));
}

TEST(WriteFileAtomicallyTest, WritesAndReplaces) {
  ScratchDir dir;
  const std::string path = dir.File("notes.srt");
  ASSERT_OK(WriteFileAtomically(path, "first"));
  ASSERT_OK(WriteFileAtomically(path, "second"));
  EXPECT_EQ(Slurp(path), "second");
  EXPECT_THAT(dir.Entries(), ElementsAre("notes.srt"));
}

// Someone who can write to the output directory swaps a link to another file
// in at the temporary name while the output is written: what is written by
// open_path() still goes to the file Create made, the other file is untouched,
// and Commit refuses to move the link into place.
TEST(TempFileTest, AFileSwappedInAtTheTemporaryNameIsNeitherWrittenNorCommitted) {
  if (!std::filesystem::is_directory("/proc/self/fd")) GTEST_SKIP() << "no /proc on this system";
  ScratchDir dir;
  const std::string precious = dir.File("precious.txt");
  std::ofstream(precious) << "keep me";
  auto temp = TempFile::Create(dir.File("out.txt"));
  ASSERT_OK(temp);
  EXPECT_THAT(temp->open_path(), StartsWith("/proc/self/fd/"));
  ASSERT_EQ(std::rename(temp->path().c_str(), dir.File("moved-away").c_str()), 0);
  std::filesystem::create_symlink(precious, temp->path());

  std::ofstream(temp->open_path()) << "the show";
  EXPECT_EQ(Slurp(precious), "keep me");
  EXPECT_EQ(Slurp(dir.File("moved-away")), "the show");  // the file Create made

  const absl::Status committed = temp->Commit();
  EXPECT_EQ(committed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(committed.message(), HasSubstr("replaced"));
  EXPECT_FALSE(std::filesystem::exists(dir.File("out.txt")));
  EXPECT_EQ(Slurp(precious), "keep me");
}

TEST(TempFileTest, WritesThroughItsOwnDescriptorAreCommitted) {
  ScratchDir dir;
  auto temp = TempFile::Create(dir.File("out.txt"));
  ASSERT_OK(temp);
  ASSERT_EQ(write(temp->fd(), "abc", 3), 3);
  std::ofstream(temp->open_path(), std::ios::app) << "def";
  ASSERT_OK(temp->Commit());
  EXPECT_EQ(Slurp(dir.File("out.txt")), "abcdef");
  EXPECT_EQ(temp->fd(), -1);  // closed once committed
}

}  // namespace
}  // namespace lingcast
