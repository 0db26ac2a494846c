// GoogleTest helpers for absl::Status and absl::StatusOr (tests only):
//
//   ASSERT_OK(LoadModel(dir));            // fails with the status's message
//   EXPECT_OK(engine.status());
//   EXPECT_THAT(Parse("x"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3")));
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lingcast::testing_util {

inline const absl::Status& StatusOf(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// Matches a Status or StatusOr whose code is `code` and whose message matches
// `message` (a string or a matcher such as HasSubstr).
MATCHER_P2(StatusIs, code, message,
           std::string("has code ") + absl::StatusCodeToString(code) + " and a message that " +
               ::testing::DescribeMatcher<std::string>(message, negation)) {
  const absl::Status& status = StatusOf(arg);
  *result_listener << "whose status is " << status;
  return status.code() == code &&
         ::testing::ExplainMatchResult(::testing::MatcherCast<std::string>(message), std::string(status.message()),
                                       result_listener);
}

}  // namespace lingcast::testing_util

// The expression is evaluated once; on failure the status is printed. More
// can be streamed, as with ASSERT_TRUE: ASSERT_OK(Load(path)) << path;
// (the switch keeps a dangling else from binding to the caller's if, as
// GoogleTest's own macros do).
#define LC_STATUS_CHECK_(fail, expr)                                                          \
  switch (0)                                                                                  \
  case 0:                                                                                     \
  default:                                                                                    \
    if (const ::absl::Status lc_status_ = ::lingcast::testing_util::StatusOf(expr); lc_status_.ok()) { \
    } else                                                                                    \
      fail() << #expr << " is not OK: " << lc_status_ << " "
#define ASSERT_OK(expr) LC_STATUS_CHECK_(GTEST_FAIL, expr)
#define EXPECT_OK(expr) LC_STATUS_CHECK_(ADD_FAILURE, expr)
