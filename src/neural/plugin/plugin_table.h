// The neural plug-in's one entry point (liblingcast_neural_plugin.so;
// marian_plugin.h says why lingcast opens it rather than linking libtorch): a
// versioned table of the engines it makes.
//
// lingcast looks up kNeuralPluginTableSymbol, calls it, and takes the table only
// when its abi_version and struct_size are the ones this lingcast was built
// with; any other plug-in (an older or newer build found through
// LINGCAST_NEURAL_PLUGIN) is refused with one line instead of being called with
// requests of another layout. Change kNeuralPluginAbiVersion whenever a request
// struct, a signature or this table changes. The first two fields stay where
// they are in every version: they are how two versions recognize each other.
//
// Includes nothing from libtorch; every entry's types are in its <engine>_plugin.h.
#pragma once

#include <cstdint>

#include "neural/plugin/fastspeech2_plugin.h"
#include "neural/plugin/marian_plugin.h"
#include "neural/plugin/runtime_plugin.h"
#include "neural/plugin/vits_plugin.h"
#include "neural/plugin/whisper_plugin.h"

namespace lingcast {

inline constexpr std::uint32_t kNeuralPluginAbiVersion = 1;

struct NeuralPluginTable {
  std::uint32_t abi_version = kNeuralPluginAbiVersion;
  std::uint32_t struct_size = sizeof(NeuralPluginTable);
  // An entry is null when the plug-in was built without that engine.
  CreateMarianTranslatorFn create_marian_translator = nullptr;
  CreateWhisperAsrFn create_whisper_asr = nullptr;
  CreateVitsTtsFn create_vits_tts = nullptr;
  CreateFastSpeech2TtsFn create_fastspeech2_tts = nullptr;
  DescribeNeuralRuntimeFn describe_runtime = nullptr;
};

// The plug-in's only exported symbol, with C linkage: returns its table, which
// lives as long as the plug-in stays loaded.
inline constexpr char kNeuralPluginTableSymbol[] = "lingcast_neural_plugin_table";
using NeuralPluginTableFn = const NeuralPluginTable* (*)();

}  // namespace lingcast
