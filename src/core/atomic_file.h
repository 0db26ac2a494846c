// Writing outputs atomically: a render that fails or is interrupted leaves no
// partial file at the user's path.
//
// Everything is written to a hidden temporary file in the destination's own
// directory (so the final rename never crosses a file system), fsync'ed, then
// renamed over the destination; the directory is fsync'ed so the rename
// survives a crash. A TempFile that is destroyed uncommitted deletes itself.
//
// An interrupted render (SIGINT) leaves no file as long as the app turns the
// signal into a cancelled job and unwinds, so the TempFile's destructor runs.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lingcast {

// Fails early, before any work, when `path` cannot be written as an output
// file: empty path, a directory, an existing non-regular file (a device),
// a parent directory that is missing, not a directory, or not writable (found
// by creating and removing a probe file, which also catches read-only mounts
// and /proc, where even root cannot create files). One line naming the path.
absl::Status CheckOutputPath(const std::string& path);

class TempFile {
 public:
  // Creates an empty, new temporary file beside `final_path`, named
  // ".<name>.tmp-<pid>-<random>", with the usual 0666 & ~umask permissions.
  static absl::StatusOr<TempFile> Create(const std::string& final_path);

  TempFile(TempFile&& other) noexcept;
  TempFile& operator=(TempFile&& other) noexcept;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();  // removes the temporary file unless committed

  const std::string& path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  // A name that always opens this file, the one Create made: /proc/self/fd/N
  // of the descriptor it keeps (path() where /proc is not mounted). Give this
  // to libraries that open the file by name, once or again (libavformat's MP4
  // faststart reads its file back): a link or another file put at path()
  // meanwhile by someone who can write to the directory is not what they open.
  const std::string& open_path() const { return open_path_; }
  // The descriptor Create opened (write only), for writing without a name.
  int fd() const { return fd_; }

  // fsync the file, rename it onto final_path, fsync the directory. Refuses
  // (FailedPrecondition, the temporary removed) when path() no longer names
  // the file Create made.
  absl::Status Commit();
  // Removes the temporary file now (also what the destructor does).
  void Discard();

 private:
  TempFile(std::string temp_path, std::string final_path, int fd);
  void CloseFile();

  std::string temp_path_;  // empty once committed or discarded
  std::string final_path_;
  std::string open_path_;
  int fd_ = -1;  // open from Create until committed or discarded
};

// Writes `contents` to `path` atomically (for small text outputs: SRT, JSON).
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace lingcast
