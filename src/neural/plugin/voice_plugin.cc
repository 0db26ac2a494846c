// The voice entry points of the C ABI (lingcast_plugin_abi.h), shared by the
// VITS/Piper and FastSpeech2 voices: whole texts, sessions, clauses streamed in
// parts as the vocoder decodes them, and cancellation from any thread.
#include "neural/plugin/voice_plugin.h"

#include <string>

#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"

struct lc_voice_session {
  std::unique_ptr<lingcast::TtsSession> session;
};

namespace lingcast::plugin {
namespace {

absl::StatusOr<VoiceSettings> SettingsOf(const lc_voice_settings* settings) {
  if (absl::Status size = CheckStructSize(settings, settings ? settings->struct_size : 0, sizeof(lc_voice_settings),
                                          "lc_voice_settings");
      !size.ok()) {
    return size;
  }
  VoiceSettings out;
  out.language = FromC(settings->language);
  out.voice = StringOr(settings->voice, "");
  out.rate = settings->rate;
  out.pitch = settings->pitch;
  out.volume = settings->volume;
  return out;
}

}  // namespace

void VoiceDestroy(lc_voice* voice) { delete voice; }

const char* VoiceName(const lc_voice* voice) { return voice->name.c_str(); }

int32_t VoiceSampleRate(const lc_voice* voice) { return voice->engine->sample_rate(); }

lc_status_code VoiceSynthesize(lc_voice* voice, const lc_voice_settings* settings, const char* text, size_t text_size,
                               lc_synthesis_sink sink, void* user, lc_status* status) {
  return Report(Guard("synthesizing", [&]() -> absl::Status {
                  absl::StatusOr<VoiceSettings> voice_settings = SettingsOf(settings);
                  if (!voice_settings.ok()) return voice_settings.status();
                  SynthesisRequest request;
                  static_cast<VoiceSettings&>(request) = *voice_settings;
                  request.text.assign(text, text_size);
                  absl::StatusOr<SynthesisResult> result = voice->engine->Synthesize(request);
                  if (!result.ok()) return result.status();
                  return HandOver(*result, sink, user);
                }),
                status);
}

lc_voice_session* VoiceOpenSession(lc_voice* voice, const lc_voice_settings* settings, lc_status* status) {
  std::unique_ptr<lc_voice_session> session;
  Report(Guard("opening a voice session", [&]() -> absl::Status {
           absl::StatusOr<VoiceSettings> voice_settings = SettingsOf(settings);
           if (!voice_settings.ok()) return voice_settings.status();
           absl::StatusOr<std::unique_ptr<TtsSession>> opened = voice->engine->OpenSession(*voice_settings);
           if (!opened.ok()) return opened.status();
           session = std::make_unique<lc_voice_session>();
           session->session = *std::move(opened);
           return absl::OkStatus();
         }),
         status);
  return session.release();
}

void VoiceSessionDestroy(lc_voice_session* session) { delete session; }

lc_status_code VoiceSessionSynthesizeClause(lc_voice_session* session, const char* clause, size_t clause_size,
                                            lc_language language, lc_synthesis_sink sink, void* user,
                                            lc_status* status) {
  return Report(Guard("synthesizing", [&]() -> absl::Status {
                  absl::StatusOr<SynthesisResult> result =
                      session->session->SynthesizeClause(std::string_view(clause, clause_size), FromC(language));
                  if (!result.ok()) return result.status();
                  return HandOver(*result, sink, user);
                }),
                status);
}

lc_status_code VoiceSessionStreamClause(lc_voice_session* session, const char* clause, size_t clause_size,
                                        lc_language language, lc_synthesis_sink sink, void* user, lc_status* status) {
  return Report(Guard("synthesizing", [&]() -> absl::Status {
                  return session->session->StreamClause(
                      std::string_view(clause, clause_size), FromC(language),
                      [sink, user](SynthesisResult part) { return HandOver(part, sink, user); });
                }),
                status);
}

void VoiceSessionCancel(lc_voice_session* session) { session->session->Cancel(); }

int32_t VoiceSessionCancelled(const lc_voice_session* session) { return session->session->cancelled() ? 1 : 0; }

}  // namespace lingcast::plugin
