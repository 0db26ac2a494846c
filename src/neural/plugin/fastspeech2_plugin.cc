// The FastSpeech2 entry point of the neural plug-in: FastSpeech2Tts with libtorch inside.
#include "neural/plugin/fastspeech2_plugin.h"

#include "neural/fastspeech2/fastspeech2_tts.h"

void lingcast_create_fastspeech2_tts(
    const lingcast::FastSpeech2PluginRequest& request, absl::StatusOr<std::unique_ptr<lingcast::TtsEngine>>& result) {
  lingcast::neural::FastSpeech2TtsOptions options;
  options.model_dir = request.model_dir;
  options.seed = request.seed;
  options.lexicon = request.lexicon;
  absl::StatusOr<std::unique_ptr<lingcast::neural::FastSpeech2Tts>> created =
      lingcast::neural::FastSpeech2Tts::Create(options);
  if (!created.ok()) {
    result = created.status();
    return;
  }
  result = std::unique_ptr<lingcast::TtsEngine>(std::move(*created));
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_create_fastspeech2_tts), lingcast::CreateFastSpeech2TtsFn>);
