// The entry point behind runtime_plugin.h.
#include "neural/plugin/runtime_plugin.h"

#include <exception>
#include <type_traits>

#include "neural/core/runtime_info.h"

void lingcast_describe_neural_runtime(
    lingcast::NeuralRuntimeReport& report) {
  try {
    const lingcast::neural::RuntimeInfo info = lingcast::neural::DescribeRuntime();
    report.summary = lingcast::neural::RuntimeSummary(info);
    report.reference_blas = info.blas == lingcast::neural::BlasKind::kReference;
    report.gpus = static_cast<int>(info.gpus.size());
  } catch (const std::exception& e) {  // libtorch failing to start (a broken CUDA install, ...)
    report.summary = std::string("libtorch failed to describe itself: ") + e.what();
  }
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_describe_neural_runtime), lingcast::DescribeNeuralRuntimeFn>);
