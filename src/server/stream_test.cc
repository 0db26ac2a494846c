// Streaming routes over loopback: WebSocket and SSE clients, their limits,
// and stopping the server under them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "server/http_server.h"
#include "server/server_test_util.h"
#include "server/test_client.h"

namespace lingcast {
namespace {

using ::lingcast::testing_util::ClientBox;
using ::lingcast::testing_util::Eventually;
using ::lingcast::testing_util::HttpRequestText;
using ::lingcast::testing_util::kAuthHeader;
using ::lingcast::testing_util::RawResponse;
using ::lingcast::testing_util::TestConnection;
using ::lingcast::testing_util::TestServerOptions;
using ::lingcast::testing_util::WsFrame;
using ::testing::HasSubstr;

constexpr char kEvents[] = "/v1/sessions/demo/events?token=s3cret-t0ken";
constexpr char kSseAccept[] = "Accept: text/event-stream\r\n";

class StreamTest : public ::testing::Test {
 protected:
  void StartWith(HttpServerOptions options) {
    server_ = std::make_unique<HttpServer>(std::move(options));
    server_->RouteStream("/v1/sessions/{id}/events", [this](const HttpRequest& request, std::shared_ptr<EventClient> client) {
      if (request.params.at("id") != "demo") return absl::NotFoundError("no session " + request.params.at("id"));
      client->Send("hello " + request.params.at("id"));  // before the upgrade completes: delivered first
      clients_.Add(std::move(client));
      return absl::OkStatus();
    });
    ASSERT_OK(server_->Start());
    port_ = server_->port();
  }

  absl::StatusOr<TestConnection> OpenWebSocket(int rcvbuf = 0) {
    absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_, rcvbuf);
    if (!connection.ok()) return connection.status();
    if (absl::Status upgraded = connection->UpgradeToWebSocket(kEvents); !upgraded.ok()) return upgraded;
    return connection;
  }

  absl::StatusOr<TestConnection> OpenSse() {
    absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
    if (!connection.ok()) return connection.status();
    if (absl::Status sent = connection->Send(HttpRequestText("GET", kEvents, kSseAccept)); !sent.ok()) return sent;
    absl::StatusOr<RawResponse> head = connection->ReadHead();
    if (!head.ok()) return head.status();
    if (head->status != 200 || head->headers["content-type"] != "text/event-stream") {
      return absl::FailedPreconditionError(absl::StrCat("SSE answered ", head->status));
    }
    return connection;
  }

  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  ClientBox clients_;
};

TEST_F(StreamTest, AWebSocketClientReceivesPushedMessagesInOrder) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  ASSERT_EQ(clients_.size(), 1u);
  std::shared_ptr<EventClient> client = clients_.Get(0);
  EXPECT_TRUE(client->open());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(client->Send(absl::StrCat("{\"n\":", i, "}")));
  client->Send(std::string(70000, 'L'));  // longer than a 16-bit frame length
  absl::StatusOr<WsFrame> first = ws->ReadWsMessage();
  ASSERT_OK(first);
  EXPECT_EQ(first->opcode, 1);
  EXPECT_EQ(first->payload, "hello demo");
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<WsFrame> frame = ws->ReadWsMessage();
    ASSERT_OK(frame);
    EXPECT_EQ(frame->payload, absl::StrCat("{\"n\":", i, "}"));
  }
  absl::StatusOr<WsFrame> long_one = ws->ReadWsMessage();
  ASSERT_OK(long_one);
  EXPECT_EQ(long_one->payload.size(), 70000u);
  const HttpServer::Stats stats = server_->stats();
  EXPECT_EQ(stats.event_clients, 1);
  EXPECT_EQ(stats.responses_2xx, 1);  // the 101
}

TEST_F(StreamTest, WhenTheClientClosesItIsNoLongerOpen) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  std::shared_ptr<EventClient> client = clients_.Get(0);
  ASSERT_OK(ws->ReadWsMessage());  // hello
  ASSERT_OK(ws->SendWsFrame(1, "the stream is one-way; this is dropped"));
  ASSERT_OK(ws->SendWsFrame(8, std::string("\x03\xe8", 2)));  // close, 1000
  absl::StatusOr<WsFrame> reply = ws->ReadWsMessage();
  ASSERT_OK(reply);
  EXPECT_EQ(reply->opcode, 8);
  // The server closes the TCP connection first (RFC 6455 7.1.1); the client then closes its end.
  EXPECT_TRUE(ws->ReadsEof());
  ws->Close();
  ASSERT_TRUE(Eventually([&] { return !client->open(); }));
  EXPECT_FALSE(client->Send("gone"));
  ASSERT_TRUE(Eventually([&] { return server_->stats().event_clients == 0; }));
  EXPECT_TRUE(Eventually([&] { return server_->stats().open_connections == 0; }));
}

TEST_F(StreamTest, ADroppedConnectionIsNoLongerOpen) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  ws->Close();  // no close frame: a tab that crashed
  EXPECT_TRUE(Eventually([&] { return !clients_.Get(0)->open(); }));
}

TEST_F(StreamTest, CloseFromTheServerSendsWhatIsQueuedThenANormalClose) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  std::shared_ptr<EventClient> client = clients_.Get(0);
  client->Send("bye");
  client->Close();
  EXPECT_FALSE(client->open());
  absl::StatusOr<WsFrame> hello = ws->ReadWsMessage();
  ASSERT_OK(hello);
  absl::StatusOr<WsFrame> bye = ws->ReadWsMessage();
  ASSERT_OK(bye);
  EXPECT_EQ(bye->payload, "bye");
  absl::StatusOr<WsFrame> close = ws->ReadWsMessage();
  ASSERT_OK(close);
  EXPECT_EQ(close->opcode, 8);
  EXPECT_EQ(close->payload.substr(0, 2), std::string("\x03\xe8", 2));
  ASSERT_OK(ws->SendWsFrame(8, std::string("\x03\xe8", 2)));
  EXPECT_TRUE(ws->ReadsEof());
}

TEST_F(StreamTest, ASlowClientIsDisconnectedWhenItsQueueIsFull) {
  HttpServerOptions options = TestServerOptions();
  options.client_queue = 8;
  StartWith(options);
  absl::StatusOr<TestConnection> slow = OpenWebSocket(/*rcvbuf=*/4096);  // and never reads
  ASSERT_OK(slow);
  absl::StatusOr<TestConnection> healthy = OpenWebSocket();
  ASSERT_OK(healthy);
  std::shared_ptr<EventClient> slow_client = clients_.Get(0);
  std::shared_ptr<EventClient> healthy_client = clients_.Get(1);
  // The socket buffers take a few MB before the queue fills; the cap only
  // bounds the loop (~640 MB) if the server never dropped the client.
  const std::string chunk(64 << 10, 'x');
  int sent = 0;
  while (sent < 10000 && slow_client->Send(chunk)) ++sent;
  EXPECT_LT(sent, 10000);
  EXPECT_FALSE(slow_client->open());
  ASSERT_TRUE(Eventually([&] { return server_->stats().event_clients == 1; }));
  // The other client is unaffected.
  ASSERT_TRUE(healthy_client->Send("still here"));
  ASSERT_OK(healthy->ReadWsMessage());  // hello
  absl::StatusOr<WsFrame> frame = healthy->ReadWsMessage();
  ASSERT_OK(frame);
  EXPECT_EQ(frame->payload, "still here");
}

TEST_F(StreamTest, EventClientsBeyondTheLimitGet503) {
  HttpServerOptions options = TestServerOptions();
  options.max_event_clients = 2;
  StartWith(options);
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  absl::StatusOr<TestConnection> sse = OpenSse();  // SSE and WebSocket share the limit
  ASSERT_OK(sse);
  absl::StatusOr<TestConnection> third = TestConnection::Connect(port_);
  ASSERT_OK(third);
  EXPECT_THAT(third->UpgradeToWebSocket(kEvents), testing_util::StatusIs(absl::StatusCode::kFailedPrecondition,
                                                                          HasSubstr("503")));
  EXPECT_EQ(clients_.size(), 2u);  // the handler was not asked
  EXPECT_EQ(server_->stats().limit_rejections, 1);
  ws->Close();
  ASSERT_TRUE(Eventually([&] { return server_->stats().event_clients == 1; }));
  absl::StatusOr<TestConnection> again = OpenWebSocket();
  EXPECT_OK(again);
}

TEST_F(StreamTest, AHandlerRefusalBecomesItsHttpStatus) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  EXPECT_THAT(connection->UpgradeToWebSocket("/v1/sessions/nope/events", kAuthHeader),
              testing_util::StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("404")));
  EXPECT_EQ(server_->stats().event_clients, 0);
}

TEST_F(StreamTest, StreamsNeedTheToken) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port_);
  ASSERT_OK(connection);
  EXPECT_THAT(connection->UpgradeToWebSocket("/v1/sessions/demo/events"),
              testing_util::StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("401")));
  EXPECT_EQ(clients_.size(), 0u);
  absl::StatusOr<TestConnection> with_header = TestConnection::Connect(port_);
  ASSERT_OK(with_header);
  EXPECT_OK(with_header->UpgradeToWebSocket("/v1/sessions/demo/events", kAuthHeader));
}

TEST_F(StreamTest, APlainGetOnAStreamRouteIs426) {
  StartWith(TestServerOptions());
  absl::StatusOr<RawResponse> response = testing_util::RoundTrip(port_, HttpRequestText("GET", kEvents));
  ASSERT_OK(response);
  EXPECT_EQ(response->status, 426);
  EXPECT_EQ(response->headers["upgrade"], "websocket");
}

TEST_F(StreamTest, SseClientsGetDataFrames) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> sse = OpenSse();
  ASSERT_OK(sse);
  std::shared_ptr<EventClient> client = clients_.Get(0);
  ASSERT_TRUE(client->Send("{\"type\":\"subtitle\"}"));
  ASSERT_TRUE(client->Send("two\nlines"));
  for (const std::string expected :
       {"data: hello demo\n\n", "data: {\"type\":\"subtitle\"}\n\n", "data: two\ndata: lines\n\n"}) {
    absl::StatusOr<std::string> frame = sse->ReadUntil("\n\n");
    ASSERT_OK(frame);
    EXPECT_EQ(*frame, expected);
  }
  client->Close();
  EXPECT_TRUE(sse->ReadsEof());
  EXPECT_TRUE(Eventually([&] { return server_->stats().event_clients == 0; }));
}

TEST_F(StreamTest, AnSseClientThatLeavesIsNoLongerOpen) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> sse = OpenSse();
  ASSERT_OK(sse);
  sse->Close();
  EXPECT_TRUE(Eventually([&] { return !clients_.Get(0)->open(); }));
}

TEST_F(StreamTest, StopWithOpenClientsReturnsAndClosesThem) {
  StartWith(TestServerOptions());
  absl::StatusOr<TestConnection> ws = OpenWebSocket();
  ASSERT_OK(ws);
  absl::StatusOr<TestConnection> sse = OpenSse();
  ASSERT_OK(sse);
  absl::StatusOr<TestConnection> idle = TestConnection::Connect(port_);  // keep-alive, between requests
  ASSERT_OK(idle);
  ASSERT_OK(idle->Send(HttpRequestText("GET", "/nothing", kAuthHeader)));
  ASSERT_OK(idle->ReadResponse());
  absl::StatusOr<TestConnection> half = TestConnection::Connect(port_);  // in the middle of a request
  ASSERT_OK(half);
  ASSERT_OK(half->Send("POST /v1/x HTTP/1.1\r\nContent-Length: 100\r\n"));
  server_->Stop();
  EXPECT_TRUE(ws->ReadsEof());
  EXPECT_TRUE(sse->ReadsEof());
  EXPECT_TRUE(idle->ReadsEof());
  EXPECT_TRUE(half->ReadsEof());
  for (size_t i = 0; i < clients_.size(); ++i) {
    EXPECT_FALSE(clients_.Get(i)->open());
    EXPECT_FALSE(clients_.Get(i)->Send("after stop"));
  }
  const HttpServer::Stats stats = server_->stats();
  EXPECT_EQ(stats.open_connections, 0);
  EXPECT_EQ(stats.event_clients, 0);
  absl::StatusOr<TestConnection> refused = TestConnection::Connect(port_);
  EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace lingcast
