// The neural engines' plug-in (liblingcast_neural_plugin.so), opened with dlopen
// when a command asks for a neural engine (--engine marian, whisper, vits).
//
// lingcast does not link libtorch (src/neural/plugin/marian_plugin.cc says why);
// the plug-in does, and exports one versioned table of C entry points
// (src/neural/plugin/lingcast_plugin_abi.h), checked when it is opened. Only C
// crosses, so a plug-in built by another compiler, standard library, absl or
// libtorch loads as long as it speaks this lingcast's ABI major version.
// app/neural_plugin_engines.h turns the table into lingcast's engine interfaces;
// every engine made from it keeps the library loaded.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "neural/plugin/lingcast_plugin_abi.h"

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

// A loaded plug-in: closed when the last holder lets go.
class NeuralPluginLibrary {
 public:
  NeuralPluginLibrary(void* handle, std::string path, const lc_plugin_table* table)
      : handle_(handle), path_(std::move(path)), table_(table) {}
  ~NeuralPluginLibrary();
  NeuralPluginLibrary(const NeuralPluginLibrary&) = delete;
  NeuralPluginLibrary& operator=(const NeuralPluginLibrary&) = delete;

  const lc_plugin_table& table() const { return *table_; }
  const std::string& path() const { return path_; }

 private:
  void* handle_;
  std::string path_;
  const lc_plugin_table* table_;  // in the library: valid while handle_ is open
};

class NeuralPlugin {
 public:
  // Opens the plug-in built beside this lingcast (LINGCAST_NEURAL_PLUGIN env
  // overrides the path) and takes its table. `engine` names the engine in the
  // error a build without src/neural gives ("... to use --engine whisper"). A
  // plug-in of another ABI major version, or whose table is shorter than this
  // major's first minor, is refused, one line, and closed again before anything
  // in it is called:
  //   neural plug-in PATH speaks ABI v1; this lingcast needs v2: rebuild it
  static absl::StatusOr<NeuralPlugin> Open(const std::string& engine);

  // FailedPrecondition when the plug-in was built without `engine`, whose create
  // entry `entry` is (table().create_vits_voice, ...).
  template <typename Function>
  absl::Status Require(Function* entry, const char* engine) const {
    if (entry != nullptr) return absl::OkStatus();
    return absl::FailedPreconditionError(
        absl::StrCat("neural plug-in ", path(), " was built without the ", engine, " engine: rebuild it"));
  }

  const lc_plugin_table& table() const { return library_->table(); }
  const std::string& path() const { return library_->path(); }
  // Keeps the library mapped for as long as an engine made by it lives.
  std::shared_ptr<const NeuralPluginLibrary> library() const { return library_; }

 private:
  explicit NeuralPlugin(std::shared_ptr<const NeuralPluginLibrary> library) : library_(std::move(library)) {}

  std::shared_ptr<const NeuralPluginLibrary> library_;
};

}  // namespace lingcast
