// The HTTP side, over loopback: routing, tokens, limits, malformed input,
// keep-alive, handler failures, start and stop.
#include "server/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/status_matchers.h"
#include "nlohmann/json.hpp"
#include "server/server_test_util.h"
#include "server/test_client.h"

namespace lingcast {
namespace {

using ::lingcast::testing_util::Eventually;
using ::lingcast::testing_util::HttpRequestText;
using ::lingcast::testing_util::kAuthHeader;
using ::lingcast::testing_util::RawResponse;
using ::lingcast::testing_util::RoundTrip;
using ::lingcast::testing_util::StatusIs;
using ::lingcast::testing_util::TestConnection;
using ::lingcast::testing_util::TestServerOptions;
using ::testing::HasSubstr;

// A server with a few routes that count their calls.
class HttpServerTest : public ::testing::Test {
 protected:
  void StartWith(HttpServerOptions options) {
    server_ = std::make_unique<HttpServer>(std::move(options));
    server_->Route("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::Json(200, {{"ok", true}}); });
    server_->Route("GET", "/v1/sessions/{id}", [this](const HttpRequest& request) {
      ++calls_;
      return HttpResponse::Json(200, {{"id", request.params.at("id")}, {"query", request.query}, {"path", request.path}});
    });
    server_->Route("DELETE", "/v1/sessions/{id}", [](const HttpRequest&) { return HttpResponse{204}; });
    server_->Route("POST", "/v1/echo", [this](const HttpRequest& request) {
      ++calls_;
      HttpResponse response{200, "text/plain", request.body};
      return response;
    });
    server_->Route("GET", "/v1/throw", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); });
    server_->Route("GET", "/v1/throw-int", [](const HttpRequest&) -> HttpResponse { throw 42; });
    server_->Route("GET", "/v1/inject", [](const HttpRequest&) {
      HttpResponse response{200};
      response.headers = {{"X-Ok", "yes"}, {"X-Bad", "a\r\nSet-Cookie: evil=1"}};
      return response;
    });
    ASSERT_OK(server_->Start());
    port_ = server_->port();
    ASSERT_GT(port_, 0);
  }
  absl::StatusOr<RawResponse> Get(const std::string& target, const std::string& headers = kAuthHeader) {
    return RoundTrip(port_, HttpRequestText("GET", target, headers));
  }

  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::atomic<int> calls_{0};
};

TEST_F(HttpServerTest, RoutesWithCapturedParams) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/ab%20c?lang=zh");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->headers["content-type"], "application/json");
  const nlohmann::json body = nlohmann::json::parse(response->body);
  EXPECT_EQ(body["id"], "ab c");
  EXPECT_EQ(body["path"], "/v1/sessions/ab c");
  EXPECT_EQ(body["query"]["lang"], "zh");
}

TEST_F(HttpServerTest, AnUnknownPathIs404) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/v1/nothing");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 404);
  EXPECT_THAT(response->body, HasSubstr("/v1/nothing"));
}

TEST_F(HttpServerTest, AnotherMethodOnAKnownPathIs405WithAllow) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = RoundTrip(port_, HttpRequestText("PUT", "/v1/sessions/x", kAuthHeader));
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 405);
  EXPECT_EQ(response->headers["allow"], "DELETE, GET");
}

TEST_F(HttpServerTest, PublicPathsNeedNoToken) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/healthz", "");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
}

TEST_F(HttpServerTest, AMissingOrWrongTokenIs401AfterTheDelay) {
  HttpServerOptions options = TestServerOptions();
  options.auth_failure_delay = absl::Milliseconds(30);
  StartWith(options);
  for (const std::string headers : {"", "Authorization: Bearer wrong\r\n", "Authorization: Basic czNjcmV0\r\n"}) {
    const auto before = std::chrono::steady_clock::now();
    absl::StatusOr<RawResponse> response = Get("/v1/sessions/x", headers);
    const auto waited = std::chrono::steady_clock::now() - before;
    ASSERT_OK(response) << headers;
    EXPECT_EQ(response->status, 401) << headers;
    EXPECT_EQ(response->headers["www-authenticate"], "Bearer");
    EXPECT_GE(waited, std::chrono::milliseconds(30));
  }
  // A wrong query token too.
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/x?token=nope", "");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 401);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(server_->stats().auth_failures, 4);
}

TEST_F(HttpServerTest, AQueryTokenIsAcceptedAndHiddenFromTheHandler) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/x?token=s3cret-t0ken&a=1", "");
  ASSERT_OK(response);
  ASSERT_EQ(response->status, 200);
  const nlohmann::json body = nlohmann::json::parse(response->body);
  EXPECT_EQ(body["query"], nlohmann::json({{"a", "1"}}));
}

TEST_F(HttpServerTest, AViewTokenOpensOnlyRoutesRegisteredForItsSessionsViewerAndOnlyForGet) {
  HttpServerOptions options = TestServerOptions();
  options.auth_failure_delay = absl::Milliseconds(1);
  // "viewer-a" is session a's view token.
  options.admits_viewer = [](const std::string& session, std::string_view offered) {
    return session == "a" && offered == "viewer-a";
  };
  StartWith(options);
  const RouteAccess viewer{.viewer_session_param = "session"};
  auto ok = [](const HttpRequest& request) { return HttpResponse::Json(200, {{"session", request.params.at("session")}}); };
  server_->Route("GET", "/v1/view/{session}", ok, viewer);
  server_->Route("POST", "/v1/view/{session}", ok, viewer);
  // The flag names a parameter the pattern does not capture: no viewer gets in.
  server_->Route("GET", "/v1/misnamed/{id}", [](const HttpRequest&) { return HttpResponse{200}; }, viewer);
  auto status_of = [&](std::string_view method, const std::string& target, const std::string& headers) {
    absl::StatusOr<RawResponse> response = RoundTrip(port_, HttpRequestText(method, target, headers));
    return response.ok() ? response->status : -1;
  };
  const std::string as_viewer = "Authorization: Bearer viewer-a\r\n";
  EXPECT_EQ(status_of("GET", "/v1/view/a", as_viewer), 200);
  EXPECT_EQ(status_of("GET", "/v1/view/a?token=viewer-a", ""), 200);
  // Not another session, not another token, not another method.
  EXPECT_EQ(status_of("GET", "/v1/view/b", as_viewer), 401);
  EXPECT_EQ(status_of("GET", "/v1/view/a", "Authorization: Bearer someone\r\n"), 401);
  EXPECT_EQ(status_of("POST", "/v1/view/a", as_viewer), 401);
  // Routes registered without the flag refuse the view token, though their path names session a.
  EXPECT_EQ(status_of("GET", "/v1/sessions/a", as_viewer), 401);
  EXPECT_EQ(status_of("DELETE", "/v1/sessions/a", as_viewer), 401);
  EXPECT_EQ(status_of("GET", "/v1/misnamed/a", as_viewer), 401);
  // A path with no route is a 401 too: a refused request learns nothing of the routes.
  EXPECT_EQ(status_of("GET", "/v1/nothing/a", as_viewer), 401);
  EXPECT_EQ(calls_, 0);
  // The server's own token still opens everything.
  EXPECT_EQ(status_of("DELETE", "/v1/sessions/a", kAuthHeader), 204);
  EXPECT_EQ(status_of("POST", "/v1/view/a", kAuthHeader), 200);
}

TEST_F(HttpServerTest, WithoutAdmitsViewerNoViewTokenGetsIn) {
  HttpServerOptions options = TestServerOptions();
  options.auth_failure_delay = absl::Milliseconds(1);
  StartWith(options);
  server_->Route("GET", "/v1/view/{session}", [](const HttpRequest&) { return HttpResponse{200}; },
                 RouteAccess{.viewer_session_param = "session"});
  absl::StatusOr<RawResponse> response = Get("/v1/view/a?token=anything", "");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 401);
}

TEST_F(HttpServerTest, TheAuthDelayHoldsOnlyTheFailingConnection) {
  HttpServerOptions options = TestServerOptions();
  options.auth_failure_delay = absl::Minutes(10);
  StartWith(options);
  absl::StatusOr<TestConnection> guesser = TestConnection::Connect(port_);
  ASSERT_OK(guesser);
  ASSERT_OK(guesser->Send(HttpRequestText("GET", "/v1/sessions/x", "Authorization: Bearer guess\r\n")));
  ASSERT_TRUE(Eventually([&] { return server_->stats().auth_failures == 1; }));
  // Served while the guesser's answer is still being held back.
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/y");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_FALSE(guesser->HasData());
  // Stop does not wait for the timer either.
  server_->Stop();
  EXPECT_TRUE(guesser->ReadsEof());
}

TEST_F(HttpServerTest, ABodyOverTheLimitIs413AndNeverReachesTheHandler) {
  HttpServerOptions options = TestServerOptions();
  options.max_body_bytes = 1024;
  StartWith(options);
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  ASSERT_OK(connection->Send(absl::StrCat("POST /v1/echo HTTP/1.1\r\nHost: t\r\n", kAuthHeader,
                                          "Content-Length: 4096\r\n\r\n", std::string(512, 'x'))));
  absl::StatusOr<RawResponse> response = connection->ReadResponse();
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 413);
  EXPECT_TRUE(connection->ReadsEof());
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(server_->stats().limit_rejections, 1);
}

TEST_F(HttpServerTest, AChunkedBodyOverTheLimitIs413) {
  HttpServerOptions options = TestServerOptions();
  options.max_body_bytes = 1024;
  StartWith(options);
  const std::string chunk(800, 'y');
  absl::StatusOr<RawResponse> response =
      RoundTrip(port_, absl::StrCat("POST /v1/echo HTTP/1.1\r\nHost: t\r\n", kAuthHeader,
                                    "Transfer-Encoding: chunked\r\n\r\n320\r\n", chunk, "\r\n320\r\n", chunk,
                                    "\r\n0\r\n\r\n"));
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 413);
  EXPECT_EQ(calls_, 0);
}

TEST_F(HttpServerTest, ABodyWithinTheLimitReachesTheHandler) {
  HttpServerOptions options = TestServerOptions();
  options.max_body_bytes = 1024;
  StartWith(options);
  const std::string body(1024, 'z');
  absl::StatusOr<RawResponse> response = RoundTrip(port_, HttpRequestText("POST", "/v1/echo", kAuthHeader, body));
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, body);
  EXPECT_EQ(response->headers["content-type"], "text/plain");
}

TEST_F(HttpServerTest, ExpectContinueIsAnsweredBeforeTheBody) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  ASSERT_OK(connection->Send(absl::StrCat("POST /v1/echo HTTP/1.1\r\nHost: t\r\n", kAuthHeader,
                                          "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n")));
  absl::StatusOr<RawResponse> go_on = connection->ReadHead();
  ASSERT_OK(go_on);
  EXPECT_EQ(go_on->status, 100);
  ASSERT_OK(connection->Send("hello"));
  absl::StatusOr<RawResponse> response = connection->ReadResponse();
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello");
}

TEST_F(HttpServerTest, AHeaderOverTheLimitIs431) {
  HttpServerOptions options = TestServerOptions();
  options.max_header_bytes = 1024;
  StartWith(options);
  absl::StatusOr<RawResponse> response =
      Get("/v1/sessions/x", absl::StrCat(kAuthHeader, "X-Big: ", std::string(4096, 'h'), "\r\n"));
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 431);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(server_->stats().limit_rejections, 1);
}

TEST_F(HttpServerTest, GarbageIs400AndClosedAndOthersAreStillServed) {
  StartWith(TestServerOptions());
  for (const std::string& garbage :
       {std::string("GARBAGE\r\n\r\n"), std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15),
        std::string("GET /x HTTX/1.1\r\n\r\n"), std::string("GET /x HTTP/1.1\r\nBad Header\r\n\r\n")}) {
    absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
    ASSERT_OK(connection);
    ASSERT_OK(connection->Send(garbage));
    absl::StatusOr<RawResponse> response = connection->ReadResponse();
    ASSERT_OK(response) << garbage;
    EXPECT_EQ(response->status, 400) << garbage;
    EXPECT_TRUE(connection->ReadsEof()) << garbage;
  }
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/ok");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
}

TEST_F(HttpServerTest, BadPercentEncodingIs400) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/%zz");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 400);
  EXPECT_THAT(response->body, HasSubstr("percent"));
}

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  for (const std::string id : {"one", "two"}) {
    ASSERT_OK(connection->Send(HttpRequestText("GET", "/v1/sessions/" + id, kAuthHeader)));
    absl::StatusOr<RawResponse> response = connection->ReadResponse();
    ASSERT_OK(response);
    EXPECT_EQ(nlohmann::json::parse(response->body)["id"], id);
  }
  // Pipelined: both requests in one write, answered in order.
  ASSERT_OK(connection->Send(HttpRequestText("GET", "/v1/sessions/three", kAuthHeader) +
                             HttpRequestText("GET", "/v1/sessions/four", kAuthHeader)));
  for (const std::string id : {"three", "four"}) {
    absl::StatusOr<RawResponse> response = connection->ReadResponse();
    ASSERT_OK(response);
    EXPECT_EQ(nlohmann::json::parse(response->body)["id"], id);
  }
  EXPECT_EQ(server_->stats().open_connections, 1);
}

TEST_F(HttpServerTest, ConnectionCloseIsHonoured) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  ASSERT_OK(connection->Send(HttpRequestText("GET", "/v1/sessions/x", absl::StrCat(kAuthHeader, "Connection: close\r\n"))));
  absl::StatusOr<RawResponse> response = connection->ReadResponse();
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(connection->ReadsEof());
}

TEST_F(HttpServerTest, AHandlerThatThrowsGets500AndTheServerGoesOn) {
  StartWith(TestServerOptions());
  for (const std::string target : {"/v1/throw", "/v1/throw-int"}) {
    absl::StatusOr<RawResponse> response = Get(target);
    ASSERT_OK(response);
    EXPECT_EQ(response->status, 500);
    EXPECT_THAT(response->body, ::testing::Not(HasSubstr("boom")));  // the log has it, not the client
  }
  absl::StatusOr<RawResponse> response = Get("/v1/sessions/after");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(server_->stats().responses_5xx, 2);
}

TEST_F(HttpServerTest, AHandlerCannotInjectHeaders) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = Get("/v1/inject");
  ASSERT_OK(response);
  EXPECT_EQ(response->headers["x-ok"], "yes");
  EXPECT_EQ(response->headers.count("x-bad"), 0u);
  EXPECT_EQ(response->headers.count("set-cookie"), 0u);
}

TEST_F(HttpServerTest, ConnectionsBeyondTheLimitGet503) {
  HttpServerOptions options = TestServerOptions();
  options.max_connections = 2;
  StartWith(options);
  std::vector<TestConnection> held;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
    ASSERT_OK(connection);
    ASSERT_OK(connection->Send(HttpRequestText("GET", "/healthz")));
    ASSERT_OK(connection->ReadResponse());  // accepted and counted
    held.push_back(std::move(*connection));
  }
  absl::StatusOr<TestConnection> third = TestConnection::Connect(port_);
  ASSERT_OK(third);
  absl::StatusOr<RawResponse> refused = third->ReadResponse();
  ASSERT_OK(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_TRUE(third->ReadsEof());
  EXPECT_EQ(server_->stats().limit_rejections, 1);
  held.pop_back();
  ASSERT_TRUE(Eventually([&] { return server_->stats().open_connections == 1; }));
  absl::StatusOr<RawResponse> response = Get("/healthz", "");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
}

TEST_F(HttpServerTest, AnIdleConnectionIsClosed) {
  HttpServerOptions options = TestServerOptions();
  options.idle_timeout = absl::Milliseconds(50);
  StartWith(options);
  absl::StatusOr<TestConnection> silent = TestConnection::Connect(port_);
  ASSERT_OK(silent);
  EXPECT_TRUE(silent->ReadsEof());
  // A slowloris: half a request line, then nothing.
  absl::StatusOr<TestConnection> slow = TestConnection::Connect(port_);
  ASSERT_OK(slow);
  ASSERT_OK(slow->Send("GET /v1/sess"));
  EXPECT_TRUE(slow->ReadsEof());
  ASSERT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
}

TEST_F(HttpServerTest, StatsCountResponsesByClass) {
  StartWith(TestServerOptions());
  ASSERT_OK(Get("/v1/sessions/a"));
  ASSERT_OK(Get("/healthz", ""));
  ASSERT_OK(Get("/missing"));
  ASSERT_OK(Get("/v1/throw"));
  const HttpServer::Stats stats = server_->stats();
  EXPECT_EQ(stats.requests, 4);
  EXPECT_EQ(stats.responses_2xx, 2);
  EXPECT_EQ(stats.responses_4xx, 1);
  EXPECT_EQ(stats.responses_5xx, 1);
}

TEST_F(HttpServerTest, SeveralThreadsServeConcurrentClients) {
  HttpServerOptions options = TestServerOptions();
  options.threads = 3;
  StartWith(options);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
      if (!connection.ok()) return;
      for (int i = 0; i < 20; ++i) {
        const std::string id = absl::StrCat(c, "-", i);
        if (!connection->Send(HttpRequestText("GET", "/v1/sessions/" + id, kAuthHeader)).ok()) return;
        absl::StatusOr<RawResponse> response = connection->ReadResponse();
        if (response.ok() && nlohmann::json::parse(response->body)["id"] == id) ++ok;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(ok, 80);
  EXPECT_EQ(calls_, 80);
}

TEST_F(HttpServerTest, StartingOnAPortInUseFailsClearly) {
  StartWith(TestServerOptions());
  HttpServerOptions options = TestServerOptions();
  options.listen = absl::StrCat("127.0.0.1:", port_);
  HttpServer second(options);
  EXPECT_THAT(second.Start(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       absl::StrCat("listen 127.0.0.1:", port_, ": Address already in use")));
  // The first one is unharmed.
  absl::StatusOr<RawResponse> response = Get("/healthz", "");
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 200);
}

TEST(HttpServerStartTest, BadListenAddressesAreInvalidArgument) {
  for (const std::string listen : {"nonsense:80", "127.0.0.1", "127.0.0.1:99999", "127.0.0.1:http", "::1:80", ":80",
                                   "[::1]80", "300.1.1.1:80"}) {
    HttpServerOptions options;
    options.listen = listen;
    HttpServer server(options);
    EXPECT_THAT(server.Start(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listen " + listen + ": ")))
        << listen;
  }
}

TEST(HttpServerStartTest, StartOnceStopTwice) {
  HttpServerOptions options = TestServerOptions();
  options.listen = "localhost:0";
  HttpServer server(options);
  server.Route("GET", "/healthz", [](const HttpRequest&) { return HttpResponse{200}; });
  ASSERT_OK(server.Start());
  EXPECT_THAT(server.Start(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already")));
  server.Stop();
  server.Stop();
  EXPECT_EQ(server.stats().open_connections, 0);
  HttpServer never_started(options);
  never_started.Stop();
}

TEST(HttpTypesTest, StatusesMapToHttpCodes) {
  EXPECT_EQ(HttpStatusFor(absl::OkStatus()), 200);
  EXPECT_EQ(HttpStatusFor(absl::InvalidArgumentError("")), 400);
  EXPECT_EQ(HttpStatusFor(absl::NotFoundError("")), 404);
  EXPECT_EQ(HttpStatusFor(absl::PermissionDeniedError("")), 403);
  EXPECT_EQ(HttpStatusFor(absl::FailedPreconditionError("")), 409);
  EXPECT_EQ(HttpStatusFor(absl::ResourceExhaustedError("")), 429);
  EXPECT_EQ(HttpStatusFor(absl::UnavailableError("")), 503);
  EXPECT_EQ(HttpStatusFor(absl::InternalError("")), 500);
  const HttpResponse error = ErrorResponseFor(absl::NotFoundError("no session \"x\""));
  EXPECT_EQ(error.status, 404);
  EXPECT_EQ(nlohmann::json::parse(error.body), nlohmann::json({{"error", "no session \"x\""}}));
}

TEST(HttpTypesTest, JsonNeverThrowsOnBadUtf8) {
  const HttpResponse response = HttpResponse::Json(200, {{"text", std::string("a\xff" "b")}});
  EXPECT_EQ(response.body, "{\"text\":\"a\xef\xbf\xbd" "b\"}");
}

}  // namespace
}  // namespace lingcast
