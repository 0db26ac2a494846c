// MappedFile: a whole file mapped into memory, unmapped when the last owner goes.
//
// Checkpoint tensors point straight into the mapping (no copy), so the mapping is
// shared (std::shared_ptr) by every tensor made from it. It is mapped private and
// writable: a tensor that is written to gets its own copy of the touched pages
// (copy on write) and the file on disk never changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace lingcast::neural {

class MappedFile {
 public:
  // Throws NeuralError (kNotFound when the file is missing, kInvalidArgument when
  // it is not a regular file).
  static std::shared_ptr<MappedFile> Open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return path_; }
  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  MappedFile(std::string path, std::uint8_t* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::string path_;
  std::uint8_t* data_;  // null for an empty file (nothing is mapped)
  std::size_t size_;
};

}  // namespace lingcast::neural
