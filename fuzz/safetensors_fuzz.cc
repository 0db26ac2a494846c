// Safetensors files (model.safetensors: the Hugging Face checkpoints of the
// neural engines), read by neural/core/safetensors. A file that opens has
// every tensor loaded (a view on the mapping, or a copy where misaligned) and
// summed, so every byte it claims is touched. A corrupt file may only fail
// with NeuralError (which the engines turn into a Status); anything else
// thrown, a read past the mapping or a crash is a finding.
#include "fuzz_input.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lingcast::neural;
  static lingcast::fuzz::InputFile file(".safetensors");
  const std::string& path = file.Write(lingcast::fuzz::AsText(data, size));
  std::shared_ptr<const SafetensorsFile> tensors;
  try {
    tensors = SafetensorsFile::Open(path);
  } catch (const NeuralError&) {
    return 0;
  }
  for (const std::string& name : tensors->Names()) {
    try {
      const TensorInfo& info = tensors->Info(name);
      torch::Tensor tensor = tensors->Load(name);
      if (tensor.numel() > 0 && (tensor.is_floating_point() || info.dtype == "I64" || info.dtype == "I32")) {
        tensor.sum().item();
      }
    } catch (const NeuralError&) {
    }
  }
  return 0;
}
