// Every engine lingcast can run, in one table: its name on the command line,
// what it does, the languages it takes, whether it needs a model directory or
// the neural plug-in, which commands offer it, and what makes it. The commands
// check their --asr / --tts / --engine flags against it (one message for every
// unknown name), build the engine a name stands for through its factory,
// `lingcast doctor` lists it, and the server offers the same names.
//
// A chooser ("auto") makes nothing itself: its resolver picks one of the
// others (ResolveRecognizer, ChooseStudioVoice), whose factory then makes it.
// A new engine is announced here, with its factory, and reaches every flag, the
// doctor and the docs at once.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/language.h"

namespace lingcast {

class AsrModel;
class Clock;
class Logger;
class Translator;
class TtsEngine;
struct RecognizerSettings;   // app/whisper_recognizer.h
struct TranslationOptions;   // app/translation_setup.h
struct TranslationStack;
struct VoiceEngineSettings;  // app/studio.h

enum class EngineRole {
  kRecognizer,  // --asr (asr, follow, live)
  kVoice,       // --tts (render, live), --engine (tts)
  kTranslator,  // --engine (translate, follow, live)
};

// The commands whose flags offer an engine (a bit set).
enum EngineUse : unsigned {
  kUsedByRender = 1u << 0,
  kUsedByLive = 1u << 1,
  kUsedByTtsCommand = 1u << 2,
  kUsedByAsrCommand = 1u << 3,
  kUsedByFollow = 1u << 4,
  kUsedByTranslate = 1u << 5,
};

// What makes an engine of each role; only the entry's own role's is set.
using RecognizerFactory = absl::StatusOr<std::shared_ptr<AsrModel>> (*)(const RecognizerSettings& settings);
using VoiceFactory = absl::StatusOr<std::unique_ptr<TtsEngine>> (*)(const VoiceEngineSettings& settings);
// `stack` holds the memory, glossary and corrections already loaded.
using TranslatorFactory = absl::StatusOr<std::unique_ptr<Translator>> (*)(const TranslationOptions& options,
                                                                          const TranslationStack& stack, Clock& clock,
                                                                          Logger& logger);

struct EngineInfo {
  std::string_view name;  // as given on the command line
  EngineRole role;
  std::vector<Language> languages;  // heard, spoken, or translated from
  bool needs_model_dir = false;     // a checkpoint directory is given with it
  bool neural = false;              // runs in the neural plug-in (libtorch)
  bool chooser = false;             // "auto": picks one of the others
  bool translates_speech = false;   // a recognizer that also gives English for Mandarin speech (Whisper)
  unsigned used_by = 0;             // EngineUse bits
  std::string_view summary;         // one line, for doctor and the docs
  RecognizerFactory make_recognizer = nullptr;
  VoiceFactory make_voice = nullptr;
  TranslatorFactory make_translator = nullptr;
};

// The whole table, in the order the flags list the names.
const std::vector<EngineInfo>& Engines();

// The engine `name` of `role`, when `use` offers it; null otherwise.
const EngineInfo* FindEngine(EngineRole role, std::string_view name, EngineUse use);

// The engine `name` of `role`, whichever command offers it; null when there is none.
const EngineInfo* FindEngine(EngineRole role, std::string_view name);

// "auto, espeak or vits": the names `use` offers for `role`, for messages.
std::string EngineNames(EngineRole role, EngineUse use);

// OK when `use` offers `name`; else InvalidArgument, one line:
//   unknown --tts "x" (use auto, espeak or vits)
absl::Status CheckEngineFlag(EngineRole role, std::string_view name, EngineUse use, std::string_view flag);

// Whether any of `names` runs in the neural plug-in, or is a chooser that may
// pick an engine that does (what --device and --dtype apply to).
bool AnyNeuralEngine(EngineRole role, const std::vector<std::string>& names);

// The engine `name` of `role` made by its factory; InvalidArgument for a name
// with no factory of that role (a chooser: resolve it first).
absl::StatusOr<std::shared_ptr<AsrModel>> MakeRecognizer(std::string_view name, const RecognizerSettings& settings);
absl::StatusOr<std::unique_ptr<TtsEngine>> MakeVoice(std::string_view name,
                                                     const VoiceEngineSettings& settings);
absl::StatusOr<std::unique_ptr<Translator>> MakeTranslator(std::string_view name, const TranslationOptions& options,
                                                           const TranslationStack& stack, Clock& clock, Logger& logger);

}  // namespace lingcast
