#include "app/neural_plugin.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#ifdef LINGCAST_HAVE_NEURAL
#include <dlfcn.h>
#endif

namespace lingcast {

absl::StatusOr<NeuralPlugin> NeuralPlugin::Open(const std::string& engine) {
#ifdef LINGCAST_HAVE_NEURAL
  const char* override_path = std::getenv("LINGCAST_NEURAL_PLUGIN");
  std::string path = override_path != nullptr && *override_path != '\0' ? override_path : LINGCAST_NEURAL_PLUGIN_PATH;
  // libtorch's OpenMP threads spin at every barrier by default; on a small
  // shared CPU the spinning takes the cores the other stages (and the other
  // pool thread) need (src/neural/README.md: 600 vs 34 ms a decode step under
  // load). OpenMP reads this once, when the plug-in loads it; a user's setting wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  std::shared_ptr<void> library(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL), [](void* handle) {
    if (handle != nullptr) dlclose(handle);
  });
  if (library == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load the neural engines (", path, "): ", error ? error : "unknown error"));
  }
  (void)engine;
  return NeuralPlugin(std::move(library), std::move(path));
#else
  return absl::FailedPreconditionError(absl::StrCat(
      "this lingcast was built without neural engines (libtorch not found): install libtorch-dev "
      "(scripts/install-deps.sh) and rebuild to use the ",
      engine, " engine"));
#endif
}

absl::StatusOr<void*> NeuralPlugin::FindAddress(const char* symbol) const {
#ifdef LINGCAST_HAVE_NEURAL
  void* address = dlsym(library_.get(), symbol);
  if (address == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(path_, " has no ", symbol, ": rebuild lingcast"));
  }
  return address;
#else
  (void)symbol;
  return absl::FailedPreconditionError("this lingcast was built without neural engines");
#endif
}

}  // namespace lingcast
