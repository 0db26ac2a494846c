// Every engine lingcast can run, in one table: its name on the command line,
// what it does, the languages it takes, whether it needs a model directory or
// the neural plug-in, and which commands offer it. The commands check their
// --asr / --tts / --engine flags against it (one message for every unknown
// name), `lingcast doctor` lists it, and the server will offer the same names.
//
// The factories stay with the code that builds each engine (whisper_recognizer,
// studio, tts_command, translation_setup); this table is where a new engine
// is announced, so it reaches every flag, the doctor and the docs at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "media/language.h"

namespace lingcast {

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

struct EngineInfo {
  std::string_view name;  // as given on the command line
  EngineRole role;
  std::vector<Language> languages;  // heard, spoken, or translated from
  bool needs_model_dir = false;     // a checkpoint directory is given with it
  bool neural = false;              // runs in the neural plug-in (libtorch)
  bool chooser = false;             // "auto": picks one of the others
  unsigned used_by = 0;             // EngineUse bits
  std::string_view summary;         // one line, for doctor and the docs
};

// The whole table, in the order the flags list the names.
const std::vector<EngineInfo>& Engines();

// The engine `name` of `role`, when `use` offers it; null otherwise.
const EngineInfo* FindEngine(EngineRole role, std::string_view name, EngineUse use);

// "auto, espeak or vits": the names `use` offers for `role`, for messages.
std::string EngineNames(EngineRole role, EngineUse use);

// OK when `use` offers `name`; else InvalidArgument, one line:
//   unknown --tts "x" (use auto, espeak or vits)
absl::Status CheckEngineFlag(EngineRole role, std::string_view name, EngineUse use, std::string_view flag);

}  // namespace lingcast
