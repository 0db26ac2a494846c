// The Whisper engine as an entry point of the neural plug-in
// (liblingcast_neural_plugin.so; marian_plugin.h says why lingcast does not link
// libtorch). This header is what both sides agree on and includes nothing from
// libtorch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "core/logger.h"

namespace lingcast {

struct WhisperPluginRequest {
  std::string model_dir;
  std::string language;    // "zh", "en", ...; empty: detected per utterance
  bool translate = false;  // English text whatever the language spoken
  // Finals also carry Whisper's English translation (AsrHypothesis::translation):
  // the offline zh -> en fallback of live and follow.
  bool also_translate = false;
  // Streaming (neural/whisper_streaming.h): LocalAgreement-n, a decode at most
  // once per this much new audio, and the window length that drops committed audio.
  int agreement = 2;
  std::int64_t min_partial_interval_ms = 500;
  std::int64_t trim_after_ms = 20000;
  Logger* logger = nullptr;  // debug: each partial decode's time; may be null
  std::string quantize = "none";  // --quantize: "none" or "int8" (neural/quantization.h)
  // With quantize "none": int8 all the same when the engine lands on the CPU
  // (live and follow: int8 streams at ~0.46 of real time on two cores, float32 at
  // 0.51-0.79, with the same words on the real recordings; docs/models.md).
  bool int8_on_cpu = false;
  // Where the engine runs (neural/device_choice.h): --device "auto" (a GPU when
  // libtorch sees one), "cpu", "cuda", "cuda:N"; --dtype "auto", "float32",
  // "float16", "bfloat16".
  std::string device = "auto";
  std::string dtype = "auto";
  std::string* placed_on = nullptr;  // when set, receives where it was loaded ("cuda:0 float16")
};

// The plug-in's entry point: an entry of its table (plugin_table.h). The model
// (and every session it makes) needs the plug-in loaded while it lives.
using CreateWhisperAsrFn = void (*)(const WhisperPluginRequest& request,
                                    absl::StatusOr<std::shared_ptr<AsrModel>>& result);

}  // namespace lingcast
