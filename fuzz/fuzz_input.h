// What the fuzz targets share: the libFuzzer entry point's signature, and a
// way to hand bytes to a parser that reads files (a private temporary file,
// rewritten for each input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace lingcast::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// A file that holds one input at a time, named with `extension` (".tsv"):
// some parsers choose their format by the name. In a folder of its own under
// $TMPDIR (or /tmp), removed with the object.
class InputFile {
 public:
  explicit InputFile(const std::string& extension);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's contents with `bytes`; returns its path.
  const std::string& Write(std::string_view bytes);
  const std::string& path() const { return path_; }

 private:
  std::string directory_;
  std::string path_;
};

}  // namespace lingcast::fuzz
