#include "neural/core/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

// Closes the descriptor on every path out of Open(); the mapping outlives it.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::shared_ptr<MappedFile> MappedFile::Open(const std::string& path) {
  FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    const int err = errno;
    Fail(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kInvalidArgument,
         path + ": cannot open: " + std::strerror(err));
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    Fail(ErrorCode::kInvalidArgument, path + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) Fail(ErrorCode::kInvalidArgument, path + ": not a regular file");
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size == 0) return std::shared_ptr<MappedFile>(new MappedFile(path, nullptr, 0));
  void* data = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, file.fd, 0);
  if (data == MAP_FAILED) {
    Fail(ErrorCode::kInternal, path + ": cannot map " + std::to_string(size) + " bytes: " + std::strerror(errno));
  }
  return std::shared_ptr<MappedFile>(new MappedFile(path, static_cast<std::uint8_t*>(data), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace lingcast::neural
