#include "text/data_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace lingcast {

std::vector<std::string> DataSearchPath() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("LINGCAST_DATA_DIR"); env != nullptr && *env != '\0') {
    dirs.emplace_back(env);
  }
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path dir = exe.parent_path();
    dirs.push_back((dir / "data").string());
    dirs.push_back((dir.parent_path() / "share" / "lingcast").string());
  }
  return dirs;
}

absl::StatusOr<std::string> FindDataFile(std::string_view name) {
  const std::vector<std::string> dirs = DataSearchPath();
  for (const std::string& dir : dirs) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
  }
  return absl::NotFoundError(absl::StrCat(
      "data file '", std::string(name), "' not found in ", absl::StrJoin(dirs, ", "),
      " (build lingcast to generate it, or set LINGCAST_DATA_DIR to the folder holding it)"));
}

}  // namespace lingcast
