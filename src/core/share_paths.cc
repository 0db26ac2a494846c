#include "core/share_paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace lingcast {

namespace {
constexpr std::string_view kSystemShare = "/usr/share/";
}  // namespace

std::string SharePathIn(std::string_view share_dir, std::string_view system_path) {
  if (share_dir.empty() || system_path.substr(0, kSystemShare.size()) != kSystemShare) {
    return std::string(system_path);
  }
  const std::filesystem::path candidate =
      std::filesystem::path(share_dir) / std::filesystem::path(system_path.substr(kSystemShare.size()));
  std::error_code ec;
  if (std::filesystem::exists(candidate, ec)) return candidate.string();
  return std::string(system_path);
}

std::string SharePath(std::string_view system_path) {
  const char* share_dir = std::getenv(kShareDirVariable);
  return SharePathIn(share_dir != nullptr ? share_dir : "", system_path);
}

}  // namespace lingcast
