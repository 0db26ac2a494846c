#include "app/neural_plugin.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#ifdef LINGCAST_HAVE_NEURAL
#include <dlfcn.h>
#endif

namespace lingcast {

NeuralPluginLibrary::~NeuralPluginLibrary() {
#ifdef LINGCAST_HAVE_NEURAL
  if (handle_ != nullptr) dlclose(handle_);
#endif
}

#ifdef LINGCAST_HAVE_NEURAL
namespace {

// The table, when the plug-in at `path` speaks this lingcast's ABI major. Only
// the first three fields are read before the version is known to match; a newer
// minor's longer table is taken (its appended entries are not read).
absl::StatusOr<const lc_plugin_table*> TableOf(void* library, const std::string& path) {
  void* address = dlsym(library, LC_PLUGIN_ENTRY_SYMBOL);
  if (address == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("neural plug-in ", path, " has no ", LC_PLUGIN_ENTRY_SYMBOL, ": rebuild it"));
  }
  const lc_plugin_table* table = reinterpret_cast<lc_plugin_table_fn>(address)();
  if (table == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " gave no table: rebuild it"));
  }
  if (table->abi_major != LC_PLUGIN_ABI_MAJOR) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " speaks ABI v", table->abi_major,
                                                      "; this lingcast needs v", LC_PLUGIN_ABI_MAJOR,
                                                      ": rebuild it"));
  }
  if (table->struct_size < LC_PLUGIN_TABLE_V2_0_SIZE) {
    return absl::FailedPreconditionError(absl::StrCat("neural plug-in ", path, " has a table of ", table->struct_size,
                                                      " bytes for ABI v", LC_PLUGIN_ABI_MAJOR,
                                                      "; this lingcast needs at least ", LC_PLUGIN_TABLE_V2_0_SIZE,
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
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load the neural engines (", path, "): ", error ? error : "unknown error"));
  }
  (void)engine;
  absl::StatusOr<const lc_plugin_table*> table = TableOf(handle, path);
  if (!table.ok()) {
    dlclose(handle);
    return table.status();
  }
  return NeuralPlugin(std::make_shared<const NeuralPluginLibrary>(handle, std::move(path), *table));
#else
  return absl::FailedPreconditionError(absl::StrCat(
      "this lingcast was built without neural engines (libtorch not found): install libtorch-dev "
      "(scripts/install-deps.sh) and rebuild to use the ",
      engine, " engine"));
#endif
}

}  // namespace lingcast
