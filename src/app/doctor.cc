#include "app/doctor.h"

#include <cstdio>
#include <iostream>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "app/engine_registry.h"
#include "app/model_dirs.h"
#include "app/neural_plugin.h"
#include "app/neural_plugin_engines.h"
#include "app/studio.h"
#include "app/whisper_recognizer.h"
#include "compose/font.h"
#include "compose/gpu_compositor.h"
#include "nlohmann/json.hpp"
#include "audio/av_util.h"
#include "text/data_files.h"
#include "tts/espeak_engine.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace lingcast {
namespace {

constexpr const char* kInstallFix = "run scripts/install-deps.sh (as root), or apt-get install ";

DoctorCheck CheckLexicon() {
  DoctorCheck c{"Mandarin lexicon"};
  auto path = FindDataFile("zh_lexicon.tsv");
  c.ok = path.ok();
  c.detail = path.ok() ? *path : std::string(path.status().message());
  if (!c.ok) c.fix = "build lingcast (the lexicon is generated into build/data/), or set LINGCAST_DATA_DIR";
  return c;
}

DoctorCheck CheckVoices() {
  DoctorCheck c{"espeak-ng voices"};
  EspeakOptions options;
  auto engine = EspeakEngine::Create(options);
  c.ok = engine.ok();
  c.detail = engine.ok() ? absl::StrCat(options.default_voice_en, ", ", options.default_voice_zh, " at ",
                                        (*engine)->sample_rate(), " Hz")
                         : std::string(engine.status().message());
  if (!c.ok) c.fix = absl::StrCat(kInstallFix, "espeak-ng-data");
  return c;
}

DoctorCheck CheckFont(compose::FontWeight weight, const char* name) {
  DoctorCheck c{name};
  auto font = compose::FindNotoSansCjkSc(weight);
  c.ok = font.ok();
  c.detail = font.ok() ? absl::StrCat(font->family, " ", font->style, " (", font->path, ")")
                       : std::string(font.status().message());
  if (!c.ok) c.fix = absl::StrCat(kInstallFix, "fonts-noto-cjk");
  return c;
}

// What --renderer auto draws with here: informative, never a failure (the CPU
// renderer always works).
DoctorCheck CheckRenderer() {
  DoctorCheck c{"renderer"};
  c.ok = true;
  c.detail = compose::DescribeRendererChoice();
  return c;
}

DoctorCheck CheckEncoder(const char* codec, const char* package) {
  DoctorCheck c{absl::StrCat("encoder ", codec)};
  const AVCodec* found = avcodec_find_encoder_by_name(codec);
  c.ok = found != nullptr;
  c.detail = found ? absl::StrCat(found->long_name ? found->long_name : codec, " (libavcodec ",
                                  AV_STRINGIFY(LIBAVCODEC_VERSION), ")")
                   : "not available in this libavcodec";
  if (!c.ok) c.fix = absl::StrCat(kInstallFix, package);
  return c;
}

#ifdef LINGCAST_HAVE_NEURAL
// What the neural engines would run on (neural/core/runtime_info.h): the plug-in is
// opened and asked. A reference BLAS fails the check: install-deps installs
// OpenBLAS, and without it every CPU engine is 10-70x slower.
DoctorCheck CheckNeuralRuntime() {
  DoctorCheck c{"neural runtime"};
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("neural");
  const absl::Status usable = plugin.ok() ? plugin->Require(plugin->table().describe_runtime, "runtime")
                                          : plugin.status();
  if (!usable.ok()) {
    c.detail = std::string(usable.message());
    c.fix = "rebuild lingcast (the plug-in is built beside it), or point LINGCAST_NEURAL_PLUGIN at it";
    return c;
  }
  const NeuralRuntimeReport report = DescribePluginRuntime(*plugin);
  c.ok = !report.reference_blas && !report.summary.empty();
  c.detail = report.summary;
  if (report.reference_blas) c.fix = absl::StrCat(kInstallFix, "libopenblas0-openmp");
  return c;
}
#endif  // LINGCAST_HAVE_NEURAL

// What --tts auto speaks with; not OK (with the install step) while English
// falls back to espeak-ng, which a recognizer misunderstands several times as
// often (docs/models.md).
DoctorCheck CheckAnchorVoice() {
  DoctorCheck check;
  check.name = "avatar voice";
  const absl::StatusOr<StudioVoiceChoice> choice = ChooseStudioVoice("auto", "", "");
  check.ok = choice.ok() && !choice->english_dir.empty();
  check.detail = choice.ok() ? absl::StrCat("--tts auto: ", choice->reason) : std::string(choice.status().message());
  if (!check.ok) {
    check.fix = NeuralEnginesBuilt() ? "run scripts/install-deps.sh (installs and converts the Piper English voice)"
                                     : "install libtorch-dev (scripts/install-deps.sh) and rebuild";
  }
  return check;
}

// The engine table (engine_registry.h): which engines this build can run.
// Neural engines need the plug-in; their models are the checks above.
DoctorCheck CheckEngineTable(bool neural_built) {
  DoctorCheck check;
  check.name = "engines";
  check.ok = true;
  std::vector<std::string> runnable;
  std::vector<std::string> missing;
  for (const EngineInfo& engine : Engines()) {
    if (engine.chooser) continue;
    const char* role = engine.role == EngineRole::kRecognizer ? "asr"
                       : engine.role == EngineRole::kVoice    ? "tts"
                                                              : "mt";
    (engine.neural && !neural_built ? missing : runnable).push_back(absl::StrCat(role, " ", std::string(engine.name)));
  }
  check.detail = absl::StrCat(absl::StrJoin(runnable, ", "));
  if (!missing.empty()) {
    absl::StrAppend(&check.detail, "; not in this build: ", absl::StrJoin(missing, ", "));
    check.fix = "install libtorch-dev (scripts/install-deps.sh) and rebuild";
  }
  return check;
}

}  // namespace

std::vector<DoctorCheck> RunDoctorChecks() {
  return {
      CheckLexicon(),
      CheckVoices(),
      CheckFont(compose::FontWeight::kRegular, "subtitle font (regular)"),
      CheckFont(compose::FontWeight::kBold, "subtitle font (bold)"),
      CheckEncoder("libx264", "libavcodec59 libx264-164"),
      CheckEncoder("aac", "libavcodec59"),
      CheckRenderer(),
#ifdef LINGCAST_HAVE_NEURAL
      CheckModelDirectories(ModelRoots(), /*neural_built=*/true),
      CheckSpeechRecognizer(/*neural_built=*/true),
      CheckAnchorVoice(),
      CheckNeuralRuntime(),
      CheckEngineTable(/*neural_built=*/true),
#else
      CheckModelDirectories(ModelRoots(), /*neural_built=*/false),
      CheckSpeechRecognizer(/*neural_built=*/false),
      CheckAnchorVoice(),
      CheckEngineTable(/*neural_built=*/false),
#endif
  };
}

int RunDoctor(bool json) {
  const std::vector<DoctorCheck> checks = RunDoctorChecks();
  bool all_ok = true;
  for (const auto& c : checks) all_ok &= c.ok;
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& c : checks) j.push_back({{"name", c.name}, {"ok", c.ok}, {"detail", c.detail}, {"fix", c.fix}});
    std::cout << nlohmann::json{{"ok", all_ok}, {"checks", j}}.dump(2) << std::endl;
  } else {
    for (const auto& c : checks) {
      std::printf("%-4s %-26s %s\n", c.ok ? "ok" : "FAIL", c.name.c_str(), c.detail.c_str());
      if (!c.ok) std::printf("     %-26s fix: %s\n", "", c.fix.c_str());
    }
    std::printf(all_ok ? "all checks passed\n" : "some checks failed\n");
  }
  return all_ok ? 0 : 1;
}

Command AddDoctorCommand(CLI::App& app) {
  CLI::App* doctor_cmd = app.add_subcommand("doctor", "Check libraries, voices, fonts and data files");
  auto doctor_json = std::make_shared<bool>(false);
  doctor_cmd->add_flag("--json", *doctor_json, "Print the checks as JSON");
  return {doctor_cmd, [doctor_json](Logger&) { return RunDoctor(*doctor_json); }};
}

}  // namespace lingcast
