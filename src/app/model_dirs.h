// Neural model directories (docs/models.md): where lingcast looks for them and
// what `lingcast doctor` reports about them.
#pragma once

#include <string>
#include <vector>

#include "app/doctor.h"

namespace lingcast {

struct ModelDirectory {
  std::string path;
  std::string model_type;  // config.json's "model_type": "marian", "whisper", "vits", ...
  bool has_weights = false;  // model.safetensors or model.safetensors.index.json
};

// $LINGCAST_MODELS when set, else "models" (relative to the working directory).
std::string ModelsRoot();

// The subdirectories of `root` (one level) that hold a config.json, sorted by path.
std::vector<ModelDirectory> FindModelDirectories(const std::string& root);

// A doctor line: the model directories found, whether this build can run neural
// engines (libtorch), and how to get models when there are none.
DoctorCheck CheckModelDirectories(const std::string& root, bool neural_built);

}  // namespace lingcast
