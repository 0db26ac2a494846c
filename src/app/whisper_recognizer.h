// Whisper as a recognizer for the commands (`asr --engine whisper`, `live --asr
// whisper`): the engine comes from the neural plug-in (app/neural_plugin.h,
// neural/whisper_plugin.h), opened when asked for; lingcast does not link
// libtorch. The model returned, and every session it makes, keeps the plug-in
// loaded for as long as it lives.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include <string>

#include "absl/status/status.h"
#include "asr/asr_engine.h"
#include "media/language.h"
#include "neural/whisper_plugin.h"

namespace lingcast {

// A build without src/neural answers FailedPrecondition naming the engine; a
// bad checkpoint is the plug-in's error (naming the file).
absl::StatusOr<std::shared_ptr<AsrModel>> LoadWhisperRecognizer(const WhisperPluginRequest& request);

// The recognizer flags of live and follow: --asr pocketsphinx (no model, English
// only) or --asr whisper with --asr-model DIR. `language_flag` is the flag that
// gave `language` ("--source", "--lang"), for the message. One clear line each.
absl::Status CheckRecognizerFlags(const std::string& engine, const std::string& model_dir, Language language,
                                  const std::string& language_flag);

}  // namespace lingcast
