#include "core/status.h"
#include "core/status_matchers.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2) return absl::InvalidArgumentError("odd");
  return x / 2;
}

absl::StatusOr<int> Quarter(int x) {
  LC_ASSIGN_OR_RETURN(int h, Half(x));
  LC_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

absl::Status Check(int x) {
  LC_RETURN_IF_ERROR(Half(x).status());
  return absl::OkStatus();
}

TEST(StatusTest, MacrosPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_OK(Check(2));
  EXPECT_FALSE(Check(3).ok());
}

TEST(StatusTest, ExitCodes) {
  EXPECT_EQ(ExitCodeFor(absl::OkStatus()), 0);
  EXPECT_EQ(ExitCodeFor(absl::InvalidArgumentError("x")), 2);
  EXPECT_EQ(ExitCodeFor(absl::NotFoundError("x")), 2);
  EXPECT_EQ(ExitCodeFor(absl::InternalError("x")), 1);
}

}  // namespace
}  // namespace lingcast
