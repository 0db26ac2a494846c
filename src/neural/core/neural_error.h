// NeuralError: the one exception type of src/neural's model code.
//
// The model code (tensors, ops, layers, models, tokenizers) builds on the GPU
// machine with nothing but libtorch and the standard library, so it cannot use
// absl::Status. libtorch itself reports failures by throwing c10::Error, so the
// model code follows suit, as CTranslate2 does: it throws NeuralError with a code
// and one line a user can act on (naming the file, tensor or field). The adapters
// to lingcast's engine interfaces (status_adapter.h, full build only) turn it
// into an absl::Status at the boundary; nothing above them sees an exception.
#pragma once

#include <stdexcept>
#include <string>

namespace lingcast::neural {

enum class ErrorCode {
  kInvalidArgument,  // a bad checkpoint, config field, tensor shape or input
  kNotFound,         // a file or tensor that is not there
  kUnimplemented,    // an architecture, dtype or option this code does not support
  kDataLoss,         // a truncated or corrupt file
  kCancelled,        // the caller asked to stop
  kInternal,         // a libtorch failure or a broken invariant
};

class NeuralError : public std::runtime_error {
 public:
  NeuralError(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void Fail(ErrorCode code, const std::string& message) { throw NeuralError(code, message); }

}  // namespace lingcast::neural
