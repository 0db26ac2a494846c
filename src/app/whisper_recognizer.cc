#include "app/whisper_recognizer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "app/neural_plugin.h"
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

absl::StatusOr<std::shared_ptr<AsrModel>> LoadWhisperRecognizer(const WhisperPluginRequest& request) {
  LC_ASSIGN_OR_RETURN(NeuralPlugin plugin, NeuralPlugin::Open("whisper"));
  LC_ASSIGN_OR_RETURN(CreateWhisperAsrFn create, plugin.Find<CreateWhisperAsrFn>(kCreateWhisperAsrSymbol));
  absl::StatusOr<std::shared_ptr<AsrModel>> model = absl::UnknownError("the plug-in did not answer");
  std::string placed_on;
  WhisperPluginRequest placed_request = request;
  placed_request.placed_on = &placed_on;
  create(placed_request, model);
  if (!model.ok()) return model.status();
  if (request.logger != nullptr) {
    request.logger->Info("asr", "whisper loaded", {{"model", request.model_dir}, {"device", placed_on}});
  }
  return std::shared_ptr<AsrModel>(std::make_shared<PluginAsrModel>(plugin.handle(), *std::move(model)));
}

absl::Status CheckRecognizerFlags(const std::string& engine, const std::string& model_dir, Language language,
                                  const std::string& language_flag) {
  if (engine != "pocketsphinx" && engine != "whisper") {
    return absl::InvalidArgumentError(absl::StrCat("unknown --asr \"", engine, "\" (use pocketsphinx or whisper)"));
  }
  if (engine == "whisper" && model_dir.empty()) {
    return absl::InvalidArgumentError("--asr whisper needs a checkpoint directory: give --asr-model DIR (docs/models.md)");
  }
  if (engine == "pocketsphinx" && !model_dir.empty()) {
    return absl::InvalidArgumentError("--asr-model is a Whisper checkpoint: give it with --asr whisper");
  }
  if (engine == "pocketsphinx" && language != Language::kEn) {
    return absl::InvalidArgumentError(absl::StrCat(
        language_flag, " ", std::string(LanguageCode(language)),
        ": there is no embedded Mandarin recognizer (Debian ships only pocketsphinx's en-us model); "
        "give --asr whisper --asr-model DIR for a Mandarin host (docs/models.md)"));
  }
  return absl::OkStatus();
}

}  // namespace lingcast
