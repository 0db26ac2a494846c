#include "server/auth.h"

#include <gtest/gtest.h>

#include "server/http_server.h"

namespace lingcast {
namespace {

TEST(ConstantTimeEqualsTest, EqualOnlyWhenEveryByteAndTheLengthMatch) {
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_FALSE(ConstantTimeEquals("secreT", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secre", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secrets", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret", ""));
  // A NUL byte in the candidate is not the end of it.
  EXPECT_FALSE(ConstantTimeEquals(std::string_view("secret\0x", 8), "secret"));
}

TEST(BearerTokenTest, TakesTheTokenOfTheBearerSchemeInAnyCase) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer abc"), "abc");
  EXPECT_EQ(BearerToken("  BEARER   abc  "), "abc");
  EXPECT_EQ(BearerToken("Basic dXNlcjpwYXNz"), "");
  EXPECT_EQ(BearerToken("Bearer"), "");
  EXPECT_EQ(BearerToken("Bearerabc"), "");
}

TEST(AuthenticatedTest, AcceptsTheHeaderOrTheQueryToken) {
  HttpRequest request;
  EXPECT_FALSE(Authenticated(request, "t0k"));
  EXPECT_TRUE(Authenticated(request, ""));  // no token configured
  request.headers["authorization"] = "Bearer t0k";
  EXPECT_TRUE(Authenticated(request, "t0k"));
  request.headers["authorization"] = "Bearer wrong";
  EXPECT_FALSE(Authenticated(request, "t0k"));
  request.headers.clear();
  request.query["token"] = "t0k";
  EXPECT_TRUE(Authenticated(request, "t0k"));
  request.query["token"] = "t0";
  EXPECT_FALSE(Authenticated(request, "t0k"));
}

}  // namespace
}  // namespace lingcast
