// Inside the neural plug-in: the C entry points each <engine>_plugin.cc
// defines, gathered into the one exported table by plugin_table.cc. Hidden like
// everything in the plug-in but the table's symbol.
#pragma once

#include "neural/plugin/lingcast_plugin_abi.h"

namespace lingcast::plugin {

void DescribeRuntime(lc_runtime_report* report);

lc_translator* CreateMarianTranslator(const lc_marian_options* options, lc_status* status);
void TranslatorDestroy(lc_translator* translator);
const char* TranslatorName(const lc_translator* translator);
lc_status_code TranslatorTranslate(lc_translator* translator, const lc_translation_request* request,
                                   lc_translation_sink sink, void* user, lc_status* status);
lc_status_code TranslatorTranslateBatch(lc_translator* translator, const char* const* sources,
                                        const size_t* source_sizes, size_t count, lc_stop* stop, lc_batch_sink sink,
                                        void* user, lc_status* status);

lc_recognizer* CreateWhisperRecognizer(const lc_whisper_options* options, lc_status* status);
void RecognizerDestroy(lc_recognizer* recognizer);
const char* RecognizerName(const lc_recognizer* recognizer);
lc_language RecognizerLanguage(const lc_recognizer* recognizer);
lc_recognizer_session* RecognizerNewSession(lc_recognizer* recognizer, lc_status* status);
void RecognizerSessionDestroy(lc_recognizer_session* session);
lc_status_code RecognizerSessionAcceptAudio(lc_recognizer_session* session, const float* samples, size_t sample_count,
                                            int32_t sample_rate, int32_t channels, int64_t pts_us, lc_status* status);
lc_status_code RecognizerSessionPartial(lc_recognizer_session* session, lc_hypothesis_sink sink, void* user,
                                        lc_status* status);
lc_status_code RecognizerSessionFinish(lc_recognizer_session* session, lc_hypothesis_sink sink, void* user,
                                       lc_status* status);
int64_t RecognizerSessionPositionUs(const lc_recognizer_session* session);
int32_t RecognizerStepBatching(const lc_recognizer* recognizer, lc_step_batching* out);
lc_status_code RecognizerSessionScoreOpenings(lc_recognizer_session* session, const char* const* texts,
                                              const size_t* sizes, size_t count, double* scores, lc_status* status);

lc_voice* CreateVitsVoice(const lc_vits_options* options, lc_status* status);
lc_voice* CreateFastSpeech2Voice(const lc_fastspeech2_options* options, lc_status* status);
void VoiceDestroy(lc_voice* voice);
const char* VoiceName(const lc_voice* voice);
int32_t VoiceSampleRate(const lc_voice* voice);
lc_status_code VoiceSynthesize(lc_voice* voice, const lc_voice_settings* settings, const char* text, size_t text_size,
                               lc_synthesis_sink sink, void* user, lc_status* status);
lc_voice_session* VoiceOpenSession(lc_voice* voice, const lc_voice_settings* settings, lc_status* status);
void VoiceSessionDestroy(lc_voice_session* session);
lc_status_code VoiceSessionSynthesizeClause(lc_voice_session* session, const char* clause, size_t clause_size,
                                            lc_language language, lc_synthesis_sink sink, void* user,
                                            lc_status* status);
lc_status_code VoiceSessionStreamClause(lc_voice_session* session, const char* clause, size_t clause_size,
                                        lc_language language, lc_synthesis_sink sink, void* user, lc_status* status);
void VoiceSessionCancel(lc_voice_session* session);
int32_t VoiceSessionCancelled(const lc_voice_session* session);

}  // namespace lingcast::plugin
