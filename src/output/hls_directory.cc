#include "output/hls_directory.h"

#include <dirent.h>
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
#include "core/status.h"

extern "C" {
#include <libavutil/mem.h>
}

namespace lingcast {
namespace {

constexpr std::string_view kTempSuffix = ".tmp";  // what libavformat's hls muxer appends (hls_flags temp_file)
constexpr int kIoBufferBytes = 32 * 1024;

std::string ErrnoText(int error) { return std::error_code(error, std::generic_category()).message(); }

// An AVIOContext opened by HlsDirectory::IoOpen carries its file descriptor as its opaque.
void* AsOpaque(int fd) { return reinterpret_cast<void*>(static_cast<intptr_t>(fd)); }
int FdOf(void* opaque) { return static_cast<int>(reinterpret_cast<intptr_t>(opaque)); }

// libavformat 61 made the write callback's buffer const.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WriteBuffer = const uint8_t*;
#else
using WriteBuffer = uint8_t*;
#endif

int WriteToFile(void* opaque, WriteBuffer data, int size) {
  const int fd = FdOf(opaque);
  int done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, static_cast<size_t>(size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return AVERROR(errno);
    done += static_cast<int>(n);
  }
  return done;
}

int ReadFromFile(void* opaque, uint8_t* data, int size) {
  const ssize_t n = read(FdOf(opaque), data, static_cast<size_t>(size));
  if (n < 0) return AVERROR(errno);
  return n == 0 ? AVERROR_EOF : static_cast<int>(n);
}

int64_t SeekFile(void* opaque, int64_t offset, int whence) {
  const int fd = FdOf(opaque);
  if (whence == AVSEEK_SIZE) {
    struct stat info {};
    return fstat(fd, &info) == 0 ? static_cast<int64_t>(info.st_size) : AVERROR(errno);
  }
  const off_t at = lseek(fd, static_cast<off_t>(offset), whence & ~AVSEEK_FORCE);
  return at < 0 ? AVERROR(errno) : static_cast<int64_t>(at);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HlsDirectory>> HlsDirectory::Open(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int open_error = errno;
    return absl::PermissionDeniedError(absl::StrCat("cannot create the HLS directory ", path, ": ",
                                                    error ? error.message() : ErrnoText(open_error)));
  }
  std::unique_ptr<HlsDirectory> directory(new HlsDirectory(path, fd));
  if (faccessat(fd, ".", W_OK | X_OK, 0) != 0) {
    return absl::PermissionDeniedError(absl::StrCat("the HLS directory ", path, " is not writable"));
  }
  // The muxer reaches the directory through /proc/self/fd: make sure that is it.
  struct stat held {}, through_proc {};
  if (fstat(fd, &held) != 0 || stat(directory->MuxerPath("").c_str(), &through_proc) != 0 ||
      held.st_dev != through_proc.st_dev || held.st_ino != through_proc.st_ino) {
    return absl::FailedPreconditionError(
        absl::StrCat("the HLS directory ", path, " cannot be reached through /proc/self/fd (is /proc mounted?)"));
  }
  return directory;
}

HlsDirectory::HlsDirectory(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

HlsDirectory::~HlsDirectory() { close(fd_); }

std::string HlsDirectory::DisplayPath(std::string_view name) const {
  return (std::filesystem::path(path_) / std::string(name)).string();
}

std::string HlsDirectory::MuxerPath(std::string_view name) const {
  return absl::StrCat("/proc/self/fd/", fd_, "/", std::string(name));
}

bool HlsDirectory::IsPlainName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos;
}

absl::Status HlsDirectory::CheckWritable(std::string_view name) const {
  const std::string file(name);
  struct stat info {};
  if (fstatat(fd_, file.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat("cannot check ", DisplayPath(name), ": ", ErrnoText(errno)));
  }
  if (S_ISLNK(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(DisplayPath(name), " is a symbolic link: refusing to write through it"));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(DisplayPath(name), " exists and is not a regular file: refusing to replace it"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> HlsDirectory::CreateExclusive(std::string_view name) const {
  const std::string file(name);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = openat(fd_, file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    const int error = errno;
    if (error != EEXIST) {
      return absl::PermissionDeniedError(absl::StrCat("cannot create ", DisplayPath(name), ": ", ErrnoText(error)));
    }
    // A regular file here is one an interrupted run left (a temporary file):
    // it is ours to replace. A link is not followed, nor removed.
    LC_RETURN_IF_ERROR(CheckWritable(name));
    unlinkat(fd_, file.c_str(), 0);
  }
  return absl::FailedPreconditionError(absl::StrCat("cannot create ", DisplayPath(name), ": it keeps reappearing"));
}

absl::StatusOr<bool> HlsDirectory::RegularFileExists(std::string_view name) const {
  struct stat info {};
  if (fstatat(fd_, std::string(name).c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return false;
  LC_RETURN_IF_ERROR(CheckWritable(name));
  return true;
}

absl::StatusOr<std::string> HlsDirectory::Read(std::string_view name) const {
  const int fd = openat(fd_, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) LC_RETURN_IF_ERROR(CheckWritable(name));
    return absl::NotFoundError(absl::StrCat("cannot read ", DisplayPath(name), ": ", ErrnoText(errno)));
  }
  std::string contents;
  char buffer[8192];
  for (;;) {
    const int n = ReadFromFile(AsOpaque(fd), reinterpret_cast<uint8_t*>(buffer), sizeof(buffer));
    if (n == AVERROR(EINTR)) continue;
    if (n <= 0) break;
    contents.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return contents;
}

absl::Status HlsDirectory::WriteAtomically(std::string_view name, std::string_view contents) {
  LC_RETURN_IF_ERROR(CheckWritable(name));
  std::random_device random;
  const std::string temp =
      absl::StrFormat(".%s.tmp-%d-%08x", std::string(name).substr(0, 200), static_cast<int>(getpid()), random());
  LC_ASSIGN_OR_RETURN(const int temp_fd, CreateExclusive(temp));
  const int fd = temp_fd;
  const int written = WriteToFile(AsOpaque(fd), reinterpret_cast<WriteBuffer>(const_cast<char*>(contents.data())),
                                  static_cast<int>(contents.size()));
  const int write_error = written < 0 ? -written : 0;
  const bool flushed = fsync(fd) == 0;
  const bool closed = close(fd) == 0;
  if (write_error != 0 || !flushed || !closed) {
    const int error = write_error != 0 ? write_error : errno;
    unlinkat(fd_, temp.c_str(), 0);
    const std::string message = absl::StrCat("cannot write ", DisplayPath(name), ": ", ErrnoText(error));
    return error == ENOSPC ? absl::ResourceExhaustedError(message) : absl::InternalError(message);
  }
  // renameat replaces whatever is at NAME by now, a link included, without following it.
  if (renameat(fd_, temp.c_str(), fd_, std::string(name).c_str()) != 0) {
    const int error = errno;
    unlinkat(fd_, temp.c_str(), 0);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot move ", DisplayPath(name), " into place: ", ErrnoText(error)));
  }
  fsync(fd_);
  return absl::OkStatus();
}

void HlsDirectory::Remove(std::string_view name) {
  if (IsPlainName(name)) unlinkat(fd_, std::string(name).c_str(), 0);
}

int64_t HlsDirectory::RegularFileBytes() const {
  const int listing_fd = dup(fd_);
  if (listing_fd < 0) return 0;
  DIR* listing = fdopendir(listing_fd);
  if (listing == nullptr) {
    close(listing_fd);
    return 0;
  }
  rewinddir(listing);
  int64_t total = 0;
  while (const dirent* entry = readdir(listing)) {
    struct stat info {};
    if (fstatat(fd_, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode)) {
      total += static_cast<int64_t>(info.st_size);
    }
  }
  closedir(listing);
  return total;
}

void HlsDirectory::Install(AVFormatContext* context) {
  context->opaque = this;
  context->io_open = &HlsDirectory::IoOpen;
  context->io_close2 = &HlsDirectory::IoClose;
}

absl::StatusOr<int> HlsDirectory::OpenForMuxer(std::string_view url, bool write) {
  // std::string_view throughout: Debian's absl has a string_view of its own.
  if (url.substr(0, 5) == "file:") url.remove_prefix(5);
  const std::string prefix = MuxerPath("");
  std::string_view name = url;
  const bool inside = name.substr(0, prefix.size()) == prefix;
  if (inside) name.remove_prefix(prefix.size());
  if (!inside || !IsPlainName(name)) {
    return absl::PermissionDeniedError(
        absl::StrCat("refusing to open ", std::string(url), ": it is not a file of ", path_));
  }
  if (!write) {
    const int fd = openat(fd_, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot read ", DisplayPath(name), ": ", ErrnoText(errno)));
    return fd;
  }
  // NAME.tmp is renamed over NAME once written: a link at NAME is refused now,
  // with its name, rather than silently replaced later.
  if (name.size() > kTempSuffix.size() && name.substr(name.size() - kTempSuffix.size()) == kTempSuffix) {
    const std::string_view final_name = name.substr(0, name.size() - kTempSuffix.size());
    if (IsPlainName(final_name)) LC_RETURN_IF_ERROR(CheckWritable(final_name));
  }
  return CreateExclusive(name);
}

int HlsDirectory::IoOpen(AVFormatContext* context, AVIOContext** pb, const char* url, int flags,
                         AVDictionary** /*options: protocol options for the file protocol, none apply*/) {
  auto* directory = static_cast<HlsDirectory*>(context->opaque);
  const bool write = (flags & AVIO_FLAG_WRITE) != 0;
  absl::StatusOr<int> fd = directory->OpenForMuxer(url == nullptr ? "" : url, write);
  if (!fd.ok()) {
    if (write && directory->refusal_.ok()) directory->refusal_ = fd.status();
    return AVERROR(EPERM);
  }
  auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferBytes));
  *pb = buffer == nullptr
            ? nullptr
            : avio_alloc_context(buffer, kIoBufferBytes, write ? 1 : 0, AsOpaque(*fd), write ? nullptr : &ReadFromFile,
                                 write ? &WriteToFile : nullptr, &SeekFile);
  if (*pb == nullptr) {
    av_free(buffer);
    close(*fd);
    return AVERROR(ENOMEM);
  }
  return 0;
}

int HlsDirectory::IoClose(AVFormatContext* /*context*/, AVIOContext* pb) {
  if (pb == nullptr) return 0;
  if (pb->write_flag) avio_flush(pb);
  int result = pb->error;
  if (close(FdOf(pb->opaque)) != 0 && result == 0) result = AVERROR(errno);
  av_freep(&pb->buffer);
  avio_context_free(&pb);
  return result;
}

}  // namespace lingcast
