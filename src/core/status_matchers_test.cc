#include "core/status_matchers.h"

#include <gtest/gtest-spi.h>

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

absl::StatusOr<int> Good() { return 3; }
absl::StatusOr<int> Bad() { return absl::InvalidArgumentError("line 3: bad"); }

TEST(StatusMatchersTest, OkPassesWhateverFollows) {
  ASSERT_OK(Good());
  EXPECT_OK(absl::OkStatus()) << "never shown";
  if (Good().ok())
    EXPECT_OK(Good());
  else
    FAIL() << "the else belongs to the caller's if";
}

TEST(StatusMatchersTest, NotOkFailsWithTheExpressionAndTheStatus) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Bad()) << "extra", "Bad() is not OK: INVALID_ARGUMENT: line 3: bad extra");
  EXPECT_FATAL_FAILURE(ASSERT_OK(absl::InternalError("boom")), "INTERNAL: boom");
}

TEST(StatusMatchersTest, StatusIsMatchesTheCodeAndTheMessage) {
  EXPECT_THAT(Bad(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3")));
  EXPECT_THAT(absl::NotFoundError("x"), StatusIs(absl::StatusCode::kNotFound, "x"));
  EXPECT_THAT(Bad(), ::testing::Not(StatusIs(absl::StatusCode::kNotFound, HasSubstr("line 3"))));
  EXPECT_THAT(Bad(), ::testing::Not(StatusIs(absl::StatusCode::kInvalidArgument, "line 4")));
}

}  // namespace
}  // namespace lingcast
