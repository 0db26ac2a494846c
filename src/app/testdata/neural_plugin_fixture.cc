// A stand-in for a neural plug-in of another lingcast build: it exports the
// table symbol with the two fields every ABI version keeps first
// (neural/plugin/plugin_table.h) set to FIXTURE_ABI_VERSION and FIXTURE_TABLE_SIZE, and
// entries no caller may reach. Plain data only, so nothing stays mapped once the
// test's dlopen is closed again.
#include <cstdint>

namespace {

struct ForeignTable {
  std::uint32_t abi_version;
  std::uint32_t struct_size;
  void* entries[5];
};

const ForeignTable kTable = {FIXTURE_ABI_VERSION, FIXTURE_TABLE_SIZE, {}};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ForeignTable* lingcast_neural_plugin_table() { return &kTable; }
