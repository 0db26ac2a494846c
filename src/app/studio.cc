#include "app/studio.h"

#include "compose/background.h"
#include "compose/lower_third.h"
#include "compose/media_background.h"
#include "compose/subtitle_renderer.h"
#include "core/status.h"

namespace lingcast {

absl::StatusOr<std::shared_ptr<const rig::Rig>> LoadStudioAvatar(const StudioLook& look) {
  if (look.avatar_path.empty()) return rig::BuiltInPresenter();
  return rig::LoadRig(look.avatar_path);
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
