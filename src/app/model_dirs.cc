#include "app/model_dirs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace lingcast {

std::string ModelsRoot() {
  const char* env = std::getenv("LINGCAST_MODELS");
  return env != nullptr && *env != '\0' ? env : "models";
}

std::vector<ModelDirectory> FindModelDirectories(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<ModelDirectory> found;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    const fs::path config_path = it->path() / "config.json";
    std::ifstream in(config_path);
    if (!in) continue;
    const nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    ModelDirectory dir;
    dir.path = it->path().string();
    dir.model_type = config.is_object() && config.contains("model_type") && config["model_type"].is_string()
                         ? config["model_type"].get<std::string>()
                         : "unknown (config.json has no model_type)";
    dir.has_weights = fs::exists(it->path() / "model.safetensors", ec) ||
                      fs::exists(it->path() / "model.safetensors.index.json", ec);
    found.push_back(std::move(dir));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return found;
}

DoctorCheck CheckModelDirectories(const std::string& root, bool neural_built) {
  DoctorCheck check;
  check.name = "neural models";
  // Models are optional: the embedded engines work without them.
  check.ok = true;
  const std::vector<ModelDirectory> dirs = FindModelDirectories(root);
  std::string listed;
  for (const auto& dir : dirs) {
    if (!listed.empty()) listed += ", ";
    listed += dir.path + " (" + dir.model_type + (dir.has_weights ? "" : ", no safetensors weights") + ")";
  }
  check.detail = dirs.empty() ? "none in " + root + " (optional)" : listed;
  if (!neural_built) {
    check.detail += "; this build has no neural engines (libtorch was not found)";
    check.fix = "install libtorch-dev (scripts/install-deps.sh) and rebuild to use them";
  } else if (dirs.empty()) {
    check.fix = "optional: download Helsinki-NLP/opus-mt-zh-en into " + root + "/ (docs/models.md)";
  }
  return check;
}

}  // namespace lingcast
