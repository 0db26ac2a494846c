#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lingcast {
namespace {

std::string ErrnoText(int error) { return std::error_code(error, std::generic_category()).message(); }

std::string DirectoryOf(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// ".<name>.tmp-<pid>-<random>" beside `final_path`; the name part is cut so
// the result stays within NAME_MAX.
std::string TempNameFor(const std::string& final_path, uint32_t random) {
  const std::filesystem::path final(final_path);
  std::string name = final.filename().string().substr(0, 200);
  std::string temp = absl::StrFormat(".%s.tmp-%d-%08x", name, static_cast<int>(getpid()), random);
  return (final.parent_path() / temp).string();
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  // close() can report a delayed write error (NFS), so callers that care use this.
  int Close() {
    const int result = close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

}  // namespace

absl::Status CheckOutputPath(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("output path is empty: give a file name such as out.mp4");
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat("output ", path, " is a directory: give a file name such as ",
                                                     (std::filesystem::path(path) / "out.mp4").string()));
    }
    if (!S_ISREG(info.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat("output ", path, " exists and is not a regular file: choose another output path"));
    }
  }
  const std::string dir = DirectoryOf(path);
  if (stat(dir.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return absl::FailedPreconditionError(
          absl::StrCat("output ", path, ": directory ", dir, " does not exist (create it first)"));
    }
    if (error == ENOTDIR) {
      return absl::FailedPreconditionError(
          absl::StrCat("output ", path, ": ", dir, " is not a directory (part of the path is a file)"));
    }
    if (error == EACCES) {
      return absl::PermissionDeniedError(absl::StrCat("output ", path, ": cannot reach directory ", dir,
                                                      " (", ErrnoText(error), ")"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("output ", path, ": cannot use directory ", dir, " (", ErrnoText(error), ")"));
  }
  if (!S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("output ", path, ": ", dir, " is not a directory"));
  }
  // Permission bits cannot answer "can I create a file here" (root ignores
  // them; read-only mounts and /proc refuse even root), so try it.
  absl::StatusOr<TempFile> probe = TempFile::Create(path);
  if (!probe.ok()) return probe.status();
  return absl::OkStatus();  // the probe removes itself
}

absl::StatusOr<TempFile> TempFile::Create(const std::string& final_path) {
  std::random_device random;
  int error = 0;
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string temp_path = TempNameFor(final_path, random());
    // O_EXCL: a new file, never one (or a link) already at the name.
    const int fd = open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return TempFile(std::move(temp_path), final_path, fd);
    error = errno;
    if (error != EEXIST) break;
  }
  const std::string dir = DirectoryOf(final_path);
  // Pseudo file systems such as /proc answer ENOENT for a directory that exists.
  const std::string reason = error == ENOENT ? "it does not accept new files" : ErrnoText(error);
  const std::string message =
      absl::StrCat("output ", final_path, ": cannot create a file in directory ", dir, " (", reason, ")");
  if (error == EACCES || error == EPERM || error == EROFS) return absl::PermissionDeniedError(message);
  if (error == ENOSPC || error == EDQUOT) return absl::ResourceExhaustedError(message);
  return absl::FailedPreconditionError(message);
}

TempFile::TempFile(std::string temp_path, std::string final_path, int fd)
    : temp_path_(std::move(temp_path)), final_path_(std::move(final_path)), fd_(fd) {
  const std::string by_descriptor = absl::StrCat("/proc/self/fd/", fd_);
  open_path_ = access(by_descriptor.c_str(), F_OK) == 0 ? by_descriptor : temp_path_;
}

TempFile::TempFile(TempFile&& other) noexcept
    : temp_path_(std::exchange(other.temp_path_, std::string())),
      final_path_(std::move(other.final_path_)),
      open_path_(std::exchange(other.open_path_, std::string())),
      fd_(std::exchange(other.fd_, -1)) {}

TempFile& TempFile::operator=(TempFile&& other) noexcept {
  if (this != &other) {
    Discard();
    temp_path_ = std::exchange(other.temp_path_, std::string());
    final_path_ = std::move(other.final_path_);
    open_path_ = std::exchange(other.open_path_, std::string());
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

TempFile::~TempFile() { Discard(); }

void TempFile::CloseFile() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void TempFile::Discard() {
  CloseFile();
  if (!temp_path_.empty()) {
    unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

absl::Status TempFile::Commit() {
  if (temp_path_.empty()) return absl::InternalError(absl::StrCat("output ", final_path_, ": already committed"));
  struct stat made {}, named {};
  if (fstat(fd_, &made) != 0 || fsync(fd_) != 0) {
    return absl::InternalError(
        absl::StrCat("output ", final_path_, ": cannot flush ", temp_path_, " to disk (", ErrnoText(errno), ")"));
  }
  const int closed = close(fd_);
  fd_ = -1;
  if (closed != 0) {
    return absl::InternalError(
        absl::StrCat("output ", final_path_, ": cannot flush ", temp_path_, " to disk (", ErrnoText(errno), ")"));
  }
  // Only the file this object made goes into place, never whatever else was put at its name.
  if (lstat(temp_path_.c_str(), &named) != 0 || named.st_dev != made.st_dev || named.st_ino != made.st_ino) {
    temp_path_.clear();  // not ours to remove any more
    return absl::FailedPreconditionError(absl::StrCat(
        "output ", final_path_, ": its temporary file was replaced while it was written; nothing was moved into place"));
  }
  if (rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int error = errno;
    return absl::FailedPreconditionError(
        absl::StrCat("output ", final_path_, ": cannot move the finished file into place (", ErrnoText(error), ")"));
  }
  temp_path_.clear();
  // Make the rename itself durable. Some file systems cannot fsync a
  // directory (EINVAL); the file is complete either way.
  FileDescriptor dir(open(DirectoryOf(final_path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) fsync(dir.get());
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  absl::StatusOr<TempFile> temp = TempFile::Create(path);
  if (!temp.ok()) return temp.status();
  {
    size_t done = 0;
    while (done < contents.size()) {
      const ssize_t n = write(temp->fd(), contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int error = errno;
        const std::string message = absl::StrCat("output ", path, ": write failed (", ErrnoText(error), ")");
        return error == ENOSPC ? absl::ResourceExhaustedError(message) : absl::InternalError(message);
      }
      done += static_cast<size_t>(n);
    }
  }
  return temp->Commit();
}

}  // namespace lingcast
