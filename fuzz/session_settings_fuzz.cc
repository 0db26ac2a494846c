// A server session's settings (the body of POST /v1/sessions): the bytes as
// JSON, through the very path `lingcast serve` takes before it starts a show,
// SessionOptions (live's own CLI11 binding, validation, then every file path
// confined to the media, output and model directories). Properties: settings
// that are taken set none of the refused settings (report, control, quiet's
// opposite, json), and every local path they name lies inside its directory
// and holds no NUL byte.
#include <cstdlib>
#include <filesystem>

#include "app/serve_sessions.h"
#include "fuzz_input.h"
#include "output/output_spec.h"

namespace {

namespace fs = std::filesystem;

// Inside `root` once links are followed, and no NUL byte (which would cut the
// name the system opens short of the one checked).
bool Inside(const std::string& path, const fs::path& root) {
  if (path.empty()) return true;
  if (path.find('\0') != std::string::npos) return false;
  const fs::path inside = fs::weakly_canonical(path).lexically_relative(root);
  return !inside.empty() && *inside.begin() != "..";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast;
  static fuzz::InputFile media(".wav");  // one folder for every root, holding input.wav
  static const std::string& wav = media.Write("");
  static const fs::path root = fs::weakly_canonical(fs::path(media.path()).parent_path());
  static const ServeDirectories directories{root.string(), root.string(), {root.string()}};
  const nlohmann::json settings = nlohmann::json::parse(fuzz::AsText(data, size), nullptr, /*allow_exceptions=*/false);
  if (settings.is_discarded()) return 0;
  (void)wav;
  absl::StatusOr<LiveOptions> options = SessionOptions(settings, directories);
  if (!options.ok()) return 0;
  if (!options->report_path.empty() || !options->translation.control_path.empty() || options->json ||
      !options->quiet) {
    std::abort();
  }
  const TranslationConfig& translation = options->translation;
  const bool url = options->input.path.find("://") != std::string::npos;
  if (!url && !Inside(options->input.path, root)) std::abort();
  for (const std::string& path : {translation.script_path, translation.glossary_path, translation.corrections_path,
                                  options->look.avatar_path, options->recognition.model_dir,
                                  options->voice.model_dir, translation.marian_model_dir}) {
    if (!Inside(path, root)) std::abort();
  }
  for (const std::string& path : translation.memory_paths) {
    if (!Inside(path, root)) std::abort();
  }
  const std::string& background = options->look.background;
  if (background != "studio" && background.rfind('#', 0) != 0 && !Inside(background, root)) std::abort();
  for (const std::string& out : options->outputs.destinations) {
    absl::StatusOr<OutputSpec> spec = ParseOutputSpec(out);
    if (!spec.ok()) std::abort();  // confined outputs still parse
    if (!spec->is_network() && !Inside(spec->target, root)) std::abort();
  }
  return 0;
}
