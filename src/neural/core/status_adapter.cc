#include "neural/core/status_adapter.h"

namespace lingcast::neural {

absl::Status ToStatus(const NeuralError& error) {
  const std::string message = error.what();
  switch (error.code()) {
    // A truncated file or an unsupported dtype or architecture is a problem with
    // the user's checkpoint, not a lingcast failure: bad input (exit code 2).
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kUnimplemented:
    case ErrorCode::kDataLoss:
      return absl::InvalidArgumentError(message);
    case ErrorCode::kNotFound:
      return absl::NotFoundError(message);
    case ErrorCode::kCancelled:
      return absl::CancelledError(message);
    case ErrorCode::kInternal:
      break;
  }
  return absl::InternalError(message);
}

}  // namespace lingcast::neural
