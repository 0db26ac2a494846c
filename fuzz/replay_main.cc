// The fuzz targets without libFuzzer: every file of the folders (or files)
// named on the command line goes through the target once, in name order. The
// normal build runs this under ctest over each target's seed corpus and every
// input that once crashed it (fuzz/regressions/), so a fixed finding stays
// fixed without clang. A crash, a sanitizer report or an uncaught exception
// fails the run; a folder that does not exist is skipped (git keeps no empty ones).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.h"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> InputsOf(const fs::path& given) {
  std::vector<fs::path> inputs;
  std::error_code error;
  if (fs::is_directory(given, error)) {
    for (const fs::directory_entry& entry : fs::directory_iterator(given, error)) {
      if (entry.is_regular_file()) inputs.push_back(entry.path());
    }
    std::sort(inputs.begin(), inputs.end());
  } else if (fs::is_regular_file(given, error)) {
    inputs.push_back(given);
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const fs::path& input : InputsOf(argv[i])) {
      std::ifstream in(input, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "replay: cannot read %s\n", input.c_str());
        return 1;
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %d inputs\n", replayed);
  return 0;
}
