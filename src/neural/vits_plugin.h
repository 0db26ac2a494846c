// The VITS engine's entry point in the neural plug-in (liblingcast_neural_plugin.so):
// what `lingcast tts --engine vits` and the plug-in agree on. Includes nothing from
// libtorch (marian_plugin.h says why lingcast does not link it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
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
};

// The plug-in's entry point, exported with C linkage under this name.
inline constexpr char kCreateVitsTtsSymbol[] = "lingcast_create_vits_tts";
using CreateVitsTtsFn = void (*)(const VitsPluginRequest& request, absl::StatusOr<std::unique_ptr<TtsEngine>>& result);

}  // namespace lingcast
