// The plug-in's one exported symbol (plugin_table.h): the table of the entries
// each <engine>_plugin.cc defines, hidden like everything else in the plug-in.
#include "neural/plugin/plugin_table.h"

#include <type_traits>

std::remove_pointer_t<lingcast::CreateMarianTranslatorFn> lingcast_create_marian_translator;
std::remove_pointer_t<lingcast::DescribeNeuralRuntimeFn> lingcast_describe_neural_runtime;
#ifdef LINGCAST_PLUGIN_HAS_WHISPER
std::remove_pointer_t<lingcast::CreateWhisperAsrFn> lingcast_create_whisper_asr;
#endif
#ifdef LINGCAST_PLUGIN_HAS_VOICES
std::remove_pointer_t<lingcast::CreateVitsTtsFn> lingcast_create_vits_tts;
std::remove_pointer_t<lingcast::CreateFastSpeech2TtsFn> lingcast_create_fastspeech2_tts;
#endif

namespace {

lingcast::NeuralPluginTable MakeTable() {
  lingcast::NeuralPluginTable table;
  table.create_marian_translator = &lingcast_create_marian_translator;
  table.describe_runtime = &lingcast_describe_neural_runtime;
#ifdef LINGCAST_PLUGIN_HAS_WHISPER
  table.create_whisper_asr = &lingcast_create_whisper_asr;
#endif
#ifdef LINGCAST_PLUGIN_HAS_VOICES
  table.create_vits_tts = &lingcast_create_vits_tts;
  table.create_fastspeech2_tts = &lingcast_create_fastspeech2_tts;
#endif
  return table;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const lingcast::NeuralPluginTable* lingcast_neural_plugin_table() {
  static const lingcast::NeuralPluginTable kTable = MakeTable();
  return &kTable;
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_neural_plugin_table), lingcast::NeuralPluginTableFn>);
