// What `lingcast doctor` asks the neural plug-in (marian_plugin.h says why
// lingcast opens it rather than linking libtorch): what the engines would run
// on in this process (neural/runtime_info.h). Includes nothing from libtorch.
#pragma once

#include <string>

namespace lingcast {

struct NeuralRuntimeReport {
  std::string summary;          // one line: libtorch, GPUs, threads, BLAS
  bool reference_blas = false;  // the CPU multiplies through netlib's reference BLAS
  int gpus = 0;                 // CUDA devices libtorch sees
};

using DescribeNeuralRuntimeFn = void (*)(NeuralRuntimeReport& report);

}  // namespace lingcast
