#include "core/status.h"

namespace lingcast {

bool IsUserError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kAlreadyExists:
      return true;
    default:
      return false;
  }
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  return IsUserError(status) ? 2 : 1;
}

}  // namespace lingcast
