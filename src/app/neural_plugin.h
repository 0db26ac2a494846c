// The neural engines' plug-in (liblingcast_neural_plugin.so), opened with dlopen
// when a command asks for a neural engine (--engine marian, whisper, vits).
//
// lingcast does not link libtorch (src/neural/marian_plugin.h says why); the
// plug-in does, and exports one C entry point per engine. An engine made by the
// plug-in must keep it loaded: wrap it with KeepLoaded's handle.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace lingcast {

// Where the neural engines run: the words of --device and --dtype, read by the
// plug-in (src/neural/device_choice.h). "auto" takes a GPU when libtorch sees
// one (float16 there; VITS float32) and the CPU otherwise (float32).
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
  // overrides the path). `engine` names the engine in the error a build without
  // src/neural gives ("... to use --engine whisper").
  static absl::StatusOr<NeuralPlugin> Open(const std::string& engine);

  // The entry point `symbol`, cast to the function type both sides agree on.
  template <typename Function>
  absl::StatusOr<Function> Find(const char* symbol) const {
    absl::StatusOr<void*> address = FindAddress(symbol);
    if (!address.ok()) return address.status();
    return reinterpret_cast<Function>(*address);
  }

  // Keeps the library mapped for as long as an engine made by it lives.
  std::shared_ptr<void> handle() const { return library_; }
  const std::string& path() const { return path_; }

 private:
  NeuralPlugin(std::shared_ptr<void> library, std::string path)
      : library_(std::move(library)), path_(std::move(path)) {}
  absl::StatusOr<void*> FindAddress(const char* symbol) const;

  std::shared_ptr<void> library_;
  std::string path_;
};

}  // namespace lingcast
