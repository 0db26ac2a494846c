// CTranslate2 checkpoints (model.bin: the Whisper and Marian models `lingcast`
// loads from a model directory), read by neural/core/ctranslate2_checkpoint.
// A file that opens has every variable read out: tensors, integer settings
// and weights converted to float32. A corrupt file may only fail with
// NeuralError (which the engines turn into a Status); anything else thrown,
// a read past the end or a crash is a finding.
#include "fuzz_input.h"
#include "neural/core/ctranslate2_checkpoint.h"
#include "neural/core/neural_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast::neural;
  static lingcast::fuzz::InputFile file(".bin");
  const std::string& path = file.Write(lingcast::fuzz::AsText(data, size));
  std::shared_ptr<const Ct2Checkpoint> checkpoint;
  try {
    checkpoint = Ct2Checkpoint::OpenFiles({path});
  } catch (const NeuralError&) {
    return 0;
  }
  std::vector<std::string> names = checkpoint->Names();
  for (const auto& [alias, target] : checkpoint->aliases()) names.push_back(alias);
  for (const std::string& name : names) {
    try {
      const Ct2Variable& info = checkpoint->Info(name);
      checkpoint->Load(name);
      if (info.shape.empty()) {
        checkpoint->LoadInt(name);
      } else {
        checkpoint->LoadWeight(name, info.shape, torch::TensorOptions().dtype(torch::kFloat32));
        checkpoint->LoadWeightRows(name, info.shape, 0, info.shape[0] > 0 ? 1 : 0,
                                   torch::TensorOptions().dtype(torch::kFloat32));
      }
    } catch (const NeuralError&) {
    }
  }
  return 0;
}
