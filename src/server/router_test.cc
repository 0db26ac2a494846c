#include "server/router.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::lingcast::testing_util::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(ParseTargetTest, DecodesThePathEachSegmentAndTheQuery) {
  absl::StatusOr<ParsedTarget> target = ParseTarget("/v1/a%20b/c%2Fd?x=1&name=Ann+Lee&empty&q=%E4%BD%A0");
  ASSERT_OK(target);
  EXPECT_EQ(target->path, "/v1/a b/c/d");
  // An encoded slash stays inside its segment: an id may contain one.
  EXPECT_THAT(target->segments, ElementsAre("v1", "a b", "c/d"));
  EXPECT_THAT(target->query,
              UnorderedElementsAre(Pair("x", "1"), Pair("name", "Ann Lee"), Pair("empty", ""), Pair("q", "你")));
}

TEST(ParseTargetTest, PlusIsASpaceOnlyInTheQuery) {
  absl::StatusOr<ParsedTarget> target = ParseTarget("/a+b?c=d+e");
  ASSERT_OK(target);
  EXPECT_EQ(target->path, "/a+b");
  EXPECT_EQ(target->query.at("c"), "d e");
}

TEST(ParseTargetTest, TheFirstOfRepeatedKeysWins) {
  absl::StatusOr<ParsedTarget> target = ParseTarget("/x?k=1&k=2");
  ASSERT_OK(target);
  EXPECT_EQ(target->query.at("k"), "1");
}

TEST(ParseTargetTest, RejectsWhatIsNotAnOriginFormPath) {
  EXPECT_THAT(ParseTarget("http://example.com/x"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'/'")));
  EXPECT_THAT(ParseTarget("*"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'/'")));
  EXPECT_THAT(ParseTarget(""), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'/'")));
}

TEST(ParseTargetTest, RejectsBadPercentEncodingAndNul) {
  EXPECT_THAT(ParseTarget("/a%zz"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("percent")));
  EXPECT_THAT(ParseTarget("/a%2"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("percent")));
  EXPECT_THAT(ParseTarget("/x?a=%"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("percent")));
  EXPECT_THAT(ParseTarget("/a%00b"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
  // A raw NUL too, in the path or the query (found by fuzz/http_target).
  EXPECT_THAT(ParseTarget(std::string_view("/a\0b", 4)), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
  EXPECT_THAT(ParseTarget(std::string_view("/a?k\0=v", 7)), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
}

TEST(SplitPathTest, KeepsEmptySegments) {
  EXPECT_THAT(SplitPath("/a/b"), ElementsAre("a", "b"));
  EXPECT_THAT(SplitPath("/"), ElementsAre(""));
  EXPECT_THAT(SplitPath("/a/"), ElementsAre("a", ""));
}

HttpServer::Handler Answer(int status) {
  return [status](const HttpRequest&) { return HttpResponse{status}; };
}

int Call(const RouteMatch& match) { return match.handler(HttpRequest{}).status; }

TEST(RouterTest, CapturesNamedSegments) {
  Router router;
  router.Add("GET", "/v1/sessions/{id}/lines/{n}", Answer(200));
  const RouteMatch match = router.Match("GET", SplitPath("/v1/sessions/abc/lines/7"));
  ASSERT_EQ(match.kind, RouteMatch::Kind::kHandler);
  EXPECT_THAT(match.params, UnorderedElementsAre(Pair("id", "abc"), Pair("n", "7")));
}

TEST(RouterTest, UnknownPathsAreNotFoundAndCapturesNeedASegment) {
  Router router;
  router.Add("GET", "/v1/sessions/{id}", Answer(200));
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/other/abc")).kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/sessions/")).kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/sessions/a/b")).kind, RouteMatch::Kind::kNotFound);
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/sessions")).kind, RouteMatch::Kind::kNotFound);
}

TEST(RouterTest, AnotherMethodOnAKnownPathListsTheAllowedOnes) {
  Router router;
  router.Add("GET", "/v1/sessions/{id}", Answer(200));
  router.Add("DELETE", "/v1/sessions/{id}", Answer(204));
  router.AddStream("/v1/sessions/{id}", nullptr);
  const RouteMatch match = router.Match("POST", SplitPath("/v1/sessions/abc"));
  EXPECT_EQ(match.kind, RouteMatch::Kind::kMethodNotAllowed);
  EXPECT_EQ(match.allow, "DELETE, GET");
}

TEST(RouterTest, AMatchCarriesItsRoutesViewerParameterAndOnlyItsOwn) {
  Router router;
  router.Add("GET", "/overlay/{id}", Answer(200), RouteAccess{.viewer_session_param = "id"});
  router.AddStream("/v1/sessions/{id}/events", nullptr, RouteAccess{.viewer_session_param = "id"});
  router.Add("GET", "/v1/sessions/{id}", Answer(200));
  router.Add("DELETE", "/overlay/{id}", Answer(204));
  EXPECT_EQ(router.Match("GET", SplitPath("/overlay/s1")).viewer_session_param, "id");
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/sessions/s1/events")).viewer_session_param, "id");
  EXPECT_EQ(router.Match("GET", SplitPath("/v1/sessions/s1")).viewer_session_param, "");
  EXPECT_EQ(router.Match("DELETE", SplitPath("/overlay/s1")).viewer_session_param, "");
  EXPECT_EQ(router.Match("POST", SplitPath("/overlay/s1")).viewer_session_param, "");
  // Registering the same method and pattern again replaces the access too.
  router.Add("GET", "/overlay/{id}", Answer(200));
  EXPECT_EQ(router.Match("GET", SplitPath("/overlay/s1")).viewer_session_param, "");
}

TEST(RouterTest, ALiteralSegmentWinsOverACapture) {
  Router router;
  router.Add("GET", "/v1/sessions/{id}", Answer(1));
  router.Add("GET", "/v1/sessions/active", Answer(2));
  router.Add("GET", "/v1/{kind}/active", Answer(3));
  EXPECT_EQ(Call(router.Match("GET", SplitPath("/v1/sessions/active"))), 2);
  EXPECT_EQ(Call(router.Match("GET", SplitPath("/v1/sessions/x"))), 1);
  EXPECT_EQ(Call(router.Match("GET", SplitPath("/v1/jobs/active"))), 3);
}

TEST(RouterTest, TheSameRouteAgainReplacesIt) {
  Router router;
  router.Add("GET", "/a/{x}", Answer(1));
  router.Add("GET", "/a/{y}", Answer(2));
  const RouteMatch match = router.Match("GET", SplitPath("/a/v"));
  EXPECT_EQ(Call(match), 2);
  EXPECT_THAT(match.params, ElementsAre(Pair("y", "v")));
}

TEST(RouterTest, AStreamRouteIsAGetRoute) {
  Router router;
  router.AddStream("/events", [](const HttpRequest&, std::shared_ptr<EventClient>) { return absl::OkStatus(); });
  EXPECT_EQ(router.Match("GET", SplitPath("/events")).kind, RouteMatch::Kind::kStream);
  EXPECT_EQ(router.Match("POST", SplitPath("/events")).allow, "GET");
}

TEST(RouterTest, TheRootPathRoutes) {
  Router router;
  router.Add("GET", "/", Answer(200));
  EXPECT_EQ(router.Match("GET", SplitPath("/")).kind, RouteMatch::Kind::kHandler);
  EXPECT_EQ(router.Match("GET", SplitPath("/x")).kind, RouteMatch::Kind::kNotFound);
}

}  // namespace
}  // namespace lingcast
