// The plug-in's one exported symbol (lingcast_plugin_abi.h): the table of the C
// entry points each <engine>_plugin.cc defines. Everything else in the plug-in
// is hidden (plugin.map keeps the dynamic symbol table to this one name).
#include <new>
#include <type_traits>

#include "neural/core/cpu_tensor_cache.h"
#include "neural/plugin/lingcast_plugin_abi.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"

namespace lingcast::plugin {
namespace {

lc_stop* StopCreate() { return new (std::nothrow) lc_stop(); }
void StopRequest(lc_stop* stop) { stop->source.request_stop(); }
void StopDestroy(lc_stop* stop) { delete stop; }

lc_plugin_table MakeTable() {
  lc_plugin_table table{};
  table.abi_major = LC_PLUGIN_ABI_MAJOR;
  table.abi_minor = LC_PLUGIN_ABI_MINOR;
  table.struct_size = sizeof(lc_plugin_table);
  table.describe_runtime = &DescribeRuntime;
  table.stop_create = &StopCreate;
  table.stop_request = &StopRequest;
  table.stop_destroy = &StopDestroy;
  table.create_marian_translator = &CreateMarianTranslator;
  table.translator_destroy = &TranslatorDestroy;
  table.translator_name = &TranslatorName;
  table.translator_translate = &TranslatorTranslate;
  table.translator_translate_batch = &TranslatorTranslateBatch;
#ifdef LINGCAST_PLUGIN_HAS_WHISPER
  table.create_whisper_recognizer = &CreateWhisperRecognizer;
  table.recognizer_destroy = &RecognizerDestroy;
  table.recognizer_name = &RecognizerName;
  table.recognizer_language = &RecognizerLanguage;
  table.recognizer_new_session = &RecognizerNewSession;
  table.recognizer_session_destroy = &RecognizerSessionDestroy;
  table.recognizer_session_accept_audio = &RecognizerSessionAcceptAudio;
  table.recognizer_session_partial = &RecognizerSessionPartial;
  table.recognizer_session_finish = &RecognizerSessionFinish;
  table.recognizer_session_position_us = &RecognizerSessionPositionUs;
  table.recognizer_step_batching = &RecognizerStepBatching;
  table.recognizer_session_score_openings = &RecognizerSessionScoreOpenings;
#endif
#ifdef LINGCAST_PLUGIN_HAS_VOICES
  table.create_vits_voice = &CreateVitsVoice;
  table.create_fastspeech2_voice = &CreateFastSpeech2Voice;
  table.voice_destroy = &VoiceDestroy;
  table.voice_name = &VoiceName;
  table.voice_sample_rate = &VoiceSampleRate;
  table.voice_synthesize = &VoiceSynthesize;
  table.voice_open_session = &VoiceOpenSession;
  table.voice_session_destroy = &VoiceSessionDestroy;
  table.voice_session_synthesize_clause = &VoiceSessionSynthesizeClause;
  table.voice_session_stream_clause = &VoiceSessionStreamClause;
  table.voice_session_cancel = &VoiceSessionCancel;
  table.voice_session_cancelled = &VoiceSessionCancelled;
#endif
  return table;
}

}  // namespace
}  // namespace lingcast::plugin

extern "C" __attribute__((visibility("default"))) const lc_plugin_table* lingcast_neural_plugin_table() {
  // The engines' CPU tensors reuse freed memory instead of page-faulting in
  // fresh mappings (cpu_tensor_cache.h says why); set before any engine loads.
  static const lc_plugin_table kTable = [] {
    lingcast::neural::InstallCpuTensorCache();
    return lingcast::plugin::MakeTable();
  }();
  return &kTable;
}

// The host calls it through lc_plugin_table_fn.
static_assert(std::is_same_v<decltype(&lingcast_neural_plugin_table), lc_plugin_table_fn>);
