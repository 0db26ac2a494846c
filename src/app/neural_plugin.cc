#include "app/neural_plugin.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#ifdef LINGCAST_HAVE_NEURAL
#include <dlfcn.h>
#endif

namespace lingcast {

#ifdef LINGCAST_HAVE_NEURAL
namespace {

// The table, when the plug-in at `path` speaks this lingcast's ABI. Only the
// first two fields are read before the version is known to match.
absl::StatusOr<const NeuralPluginTable*> TableOf(void* library, const std::string& path) {
  void* address = dlsym(library, kNeuralPluginTableSymbol);
  if (address == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("neural plug-in ", path, " has no ", kNeuralPluginTableSymbol, ": rebuild it"));
  }
  const NeuralPluginTable* table = reinterpret_cast<NeuralPluginTableFn>(address)();
  if (table == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " gave no table: rebuild it"));
  }
  if (table->abi_version != kNeuralPluginAbiVersion) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " speaks ABI v", table->abi_version,
                                                      "; this lingcast needs v", kNeuralPluginAbiVersion,
                                                      ": rebuild it"));
  }
  if (table->struct_size != sizeof(NeuralPluginTable)) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " has a table of ", table->struct_size,
                                                      " bytes for ABI v", kNeuralPluginAbiVersion,
                                                      "; this lingcast needs ", sizeof(NeuralPluginTable),
                                                      ": rebuild it"));
  }
  return table;
}

}  // namespace
#endif  // LINGCAST_HAVE_NEURAL

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
  // On an error the library is closed again as `library` goes.
  absl::StatusOr<const NeuralPluginTable*> table = TableOf(library.get(), path);
  if (!table.ok()) return table.status();
  return NeuralPlugin(std::move(library), std::move(path), *table);
#else
  return absl::FailedPreconditionError(absl::StrCat(
      "this lingcast was built without neural engines (libtorch not found): install libtorch-dev "
      "(scripts/install-deps.sh) and rebuild to use the ",
      engine, " engine"));
#endif
}

}  // namespace lingcast
