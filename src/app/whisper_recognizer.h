// Whisper as a recognizer for the commands (`asr --engine whisper`, `live --asr
// whisper`): the engine comes from the neural plug-in (app/neural_plugin.h,
// app/neural_plugin_engines.h), opened when asked for; lingcast does not link
// libtorch. The model returned, and every session it makes, keeps the plug-in
// loaded for as long as it lives.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

#include "absl/status/status.h"
#include "app/engine_registry.h"
#include "app/neural_plugin_engines.h"
#include "asr/asr_engine.h"
#include "asr/pocketsphinx_engine.h"
#include "media/language.h"
#include "text/zh_script.h"

namespace lingcast {

// A build without src/neural answers FailedPrecondition naming the engine; a
// bad checkpoint is the plug-in's error (naming the file). Its Mandarin comes
// out in `zh_script` (--zh-script): Whisper writes mostly Traditional characters,
// so every session's Chinese partials and finals are converted
// (asr/zh_script_recognizer.h; OpenCC's config is loaded once, here). Not for
// `request.language` en, which writes no Chinese.
absl::StatusOr<std::shared_ptr<AsrModel>> LoadWhisperRecognizer(const WhisperPluginRequest& request,
                                                                ZhScript zh_script = ZhScript::kSimplified);

// What the recognizer factories of the engine registry (app/engine_registry.h)
// take: each engine reads its own part. The command fills both; the engine its
// --asr resolves to (ResolveRecognizer) is made from its part.
struct RecognizerSettings {
  WhisperPluginRequest whisper;  // model_dir: the checkpoint RecognizerChoice names
  ZhScript zh_script = ZhScript::kSimplified;
  PocketsphinxOptions pocketsphinx;
};

// The factories: LoadWhisperRecognizer(settings.whisper, settings.zh_script),
// and the embedded pocketsphinx.
absl::StatusOr<std::shared_ptr<AsrModel>> MakeWhisperRecognizer(const RecognizerSettings& settings);
absl::StatusOr<std::shared_ptr<AsrModel>> MakePocketsphinxRecognizer(const RecognizerSettings& settings);

// --zh-script of asr, follow and live: simplified (the default) or traditional;
// anything else is `unknown --zh-script "x" (use simplified or traditional)`.
absl::StatusOr<ZhScript> ParseZhScriptFlag(const std::string& value);

// The recognizer flags of asr, live and follow: --asr auto (the default),
// pocketsphinx (embedded, English only) or whisper, and --asr-model DIR,
// checked against the engines the command asking (`use`) offers.
struct RecognizerChoice {
  std::string engine;     // "whisper" or "pocketsphinx", never "auto"
  std::string model_dir;  // the Whisper checkpoint; empty for pocketsphinx
  std::string reason;     // why, for the log: "Whisper base is installed (models/whisper-base)"
};

// Whether this build has the neural plug-in (libtorch was found).
bool NeuralEnginesBuilt();

// auto: Whisper when --asr-model is given or Whisper base is installed
// (app/model_dirs.h) and this build has neural engines, else pocketsphinx for
// English; an English host following a script (`follows_script`) keeps
// pocketsphinx, whose script-biased search and acoustic check find more lines
// earlier than Whisper's words do (follow_bench: 30/30 lines, median commit
// point 0.38, against 27/30 at the endpoint, docs/live.md). whisper without
// --asr-model takes the installed base. `language_flag`
// is the flag that gave `language` ("--source", "--lang"), for the message;
// nullopt `language`: detected per utterance (whisper only). One clear line for
// each bad combination, saying how to install what is missing.
absl::StatusOr<RecognizerChoice> ResolveRecognizer(EngineUse use, const std::string& engine,
                                                   const std::string& model_dir, std::optional<Language> language,
                                                   const std::string& language_flag, bool follows_script = false);

}  // namespace lingcast
