// The boundary between src/neural's model code (which throws NeuralError, and
// whose libtorch throws c10::Error) and lingcast's absl::Status world.
#pragma once

#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "neural/core/neural_error.h"

namespace lingcast::neural {

absl::Status ToStatus(const NeuralError& error);

// Runs `f` and returns its result, or the exception it threw as a Status (a
// NeuralError keeps its code; anything else from libtorch is Internal).
template <typename F>
auto CallNeural(const std::string& what, F&& f) -> absl::StatusOr<std::invoke_result_t<F>> {
  try {
    return std::forward<F>(f)();
  } catch (const NeuralError& e) {
    return ToStatus(e);
  } catch (const std::exception& e) {
    return absl::InternalError(what + ": " + e.what());
  }
}

}  // namespace lingcast::neural
