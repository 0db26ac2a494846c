// The neural engines' plug-in (liblingcast_neural_plugin.so), opened with dlopen
// when a command asks for a neural engine (--engine marian, whisper, vits).
//
// lingcast does not link libtorch (src/neural/plugin/marian_plugin.h says why); the
// plug-in does, and exports one versioned table of entry points
// (src/neural/plugin/plugin_table.h), checked when it is opened. An engine made by the
// plug-in must keep it loaded: keep handle() beside it.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "neural/plugin/plugin_table.h"

namespace lingcast {

// Where the neural engines run: the words of --device and --dtype, read by the
// plug-in (src/neural/core/device_choice.h). "auto" takes a GPU when libtorch sees
// one (float16 there for Marian, float32 for Whisper and VITS) and the CPU otherwise (float32).
struct NeuralDeviceFlags {
  std::string device = "auto";  // auto, cpu, cuda, cuda:N
  std::string dtype = "auto";   // auto, float32, float16, bfloat16
  bool given() const { return device != "auto" || dtype != "auto"; }
};
inline constexpr char kDeviceFlagHelp[] =
    "Neural engines: auto (a CUDA GPU when there is one), cpu, cuda or cuda:N";
inline constexpr char kDtypeFlagHelp[] =
    "Neural engines: auto (float16 on a GPU, VITS float32; float32 on the CPU), float32, float16 or bfloat16";

class NeuralPlugin {
 public:
  // Opens the plug-in built beside this lingcast (LINGCAST_NEURAL_PLUGIN env
  // overrides the path) and takes its table. `engine` names the engine in the
  // error a build without src/neural gives ("... to use --engine whisper"). A
  // plug-in of another ABI version or table size is refused, one line, and
  // closed again before anything in it is called:
  //   neural plug-in PATH speaks ABI v2; this lingcast needs v1: rebuild it
  static absl::StatusOr<NeuralPlugin> Open(const std::string& engine);

  // The table's entry `entry` (&NeuralPluginTable::create_vits_tts, ...);
  // FailedPrecondition when the plug-in was built without that engine.
  template <typename Function>
  absl::StatusOr<Function> Entry(Function NeuralPluginTable::*entry, const char* engine) const {
    if (table_->*entry == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("neural plug-in ", path_, " was built without the ", engine, " engine: rebuild it"));
    }
    return table_->*entry;
  }

  // Keeps the library mapped for as long as an engine made by it lives.
  std::shared_ptr<void> handle() const { return library_; }
  const std::string& path() const { return path_; }

 private:
  NeuralPlugin(std::shared_ptr<void> library, std::string path, const NeuralPluginTable* table)
      : library_(std::move(library)), path_(std::move(path)), table_(table) {}

  std::shared_ptr<void> library_;
  std::string path_;
  const NeuralPluginTable* table_;  // in the library: valid while library_ is held
};

}  // namespace lingcast
