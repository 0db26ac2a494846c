// Status helpers on top of absl::Status.
//
// Error convention (maps to the CLI's exit codes):
//   InvalidArgument / NotFound / PermissionDenied / FailedPrecondition / OutOfRange
//     -> bad usage or bad input: exit 2, one clear line naming file, line, field.
//   anything else -> internal failure: exit 1.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define LC_STATUS_CONCAT_INNER_(a, b) a##b
#define LC_STATUS_CONCAT_(a, b) LC_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define LC_RETURN_IF_ERROR(expr)                      \
  do {                                                \
    ::absl::Status lc_status_ = (expr);               \
    if (!lc_status_.ok()) return lc_status_;          \
  } while (0)

// `LC_ASSIGN_OR_RETURN(auto x, MakeX());` assigns the value or returns the error.
#define LC_ASSIGN_OR_RETURN(lhs, expr) \
  LC_ASSIGN_OR_RETURN_IMPL_(LC_STATUS_CONCAT_(lc_statusor_, __LINE__), lhs, expr)
#define LC_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return std::move(tmp).status();  \
  lhs = std::move(tmp).value()

namespace lingcast {

// True for errors caused by the user's input or usage rather than by lingcast.
bool IsUserError(const absl::Status& status);

// 0 for OK, 2 for user errors, 1 otherwise.
int ExitCodeFor(const absl::Status& status);

}  // namespace lingcast
