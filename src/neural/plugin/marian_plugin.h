// The Marian engine as a plug-in: lingcast loads libtorch only when a user asks
// for a neural engine.
//
// libtorch is large (loading libtorch_cpu relocates half a million pointers and
// adds about 140 MB of resident memory to every process that links it, whatever
// it runs), so the `lingcast` binary does not link it. The Marian translator is
// built into a module (liblingcast_neural_plugin.so, one versioned table of
// entry points: plugin_table.h) that `--engine marian` opens with dlopen; this
// header is what both sides agree on, and includes nothing from libtorch.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "media/language.h"
#include "mt/translator.h"

namespace lingcast {

struct MarianPluginRequest {
  std::string model_dir;
  Language from = Language::kZh;
  Language to = Language::kEn;
  std::string quantize = "none";  // --quantize: "none" or "int8" (neural/quantization.h)
  // Where the engine runs (neural/device_choice.h): --device "auto" (a GPU when
  // libtorch sees one), "cpu", "cuda", "cuda:N"; --dtype "auto", "float32",
  // "float16", "bfloat16".
  std::string device = "auto";
  std::string dtype = "auto";
  std::string* placed_on = nullptr;  // when set, receives where it was loaded ("cuda:0 float16")
};

// The plug-in's entry point: an entry of its table (plugin_table.h).
using CreateMarianTranslatorFn = void (*)(const MarianPluginRequest& request,
                                          absl::StatusOr<std::unique_ptr<Translator>>& result);

}  // namespace lingcast
