#include "fuzz_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace lingcast::fuzz {

InputFile::InputFile(const std::string& extension) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/lingcast-fuzz-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("fuzz: cannot make a temporary folder");
  directory_ = buffer.data();
  path_ = directory_ + "/input" + extension;
}

InputFile::~InputFile() {
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

const std::string& InputFile::Write(std::string_view bytes) {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("fuzz: cannot write " + path_);
  return path_;
}

}  // namespace lingcast::fuzz
