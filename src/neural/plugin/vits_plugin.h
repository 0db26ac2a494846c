// The VITS engine's entry point in the neural plug-in (liblingcast_neural_plugin.so):
// what `lingcast tts --engine vits` and the plug-in agree on. Includes nothing from
// libtorch (marian_plugin.h says why lingcast does not link it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tts/espeak_engine.h"
#include "tts/tts_engine.h"

namespace lingcast {

struct VitsPluginRequest {
  std::string model_dir;
  std::uint64_t seed = 0;
  // Where the engine runs (neural/device_choice.h): --device "auto" (a GPU when
  // libtorch sees one), "cpu", "cuda", "cuda:N"; --dtype "auto", "float32",
  // "float16", "bfloat16".
  std::string device = "auto";
  std::string dtype = "auto";
  std::string* placed_on = nullptr;  // when set, receives where it was loaded ("cuda:0 float16")
  // A Piper voice's phonemizer: the host's EspeakEngine::PhonemizeIpa. The
  // plug-in carries its own copy of lingcast_tts, whose espeak-ng wrapper must
  // not run beside the host's: both would drive the one libespeak-ng of the
  // process (a second espeak_Initialize takes the synthesis callback from the
  // host's engine, whose Mandarin then comes out silent).
  std::function<absl::StatusOr<std::vector<IpaClause>>(std::string_view text, const std::string& voice)> phonemize;
};

// The plug-in's entry point: an entry of its table (plugin_table.h).
using CreateVitsTtsFn = void (*)(const VitsPluginRequest& request, absl::StatusOr<std::unique_ptr<TtsEngine>>& result);

}  // namespace lingcast
