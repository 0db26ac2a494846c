// A deliberately small HTTP/WebSocket client on plain POSIX sockets, for the
// server's tests: it writes exactly the bytes it is given (so a test can send
// malformed HTTP) and reads with a generous poll timeout, a safety net against
// a hung test rather than a timing assertion.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace lingcast::testing_util {

struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct WsFrame {
  int opcode = 0;  // 0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong
  bool fin = true;
  std::string payload;
};

// "GET /x HTTP/1.1\r\nHost: test\r\n" + extra header lines + Content-Length when body is set.
std::string HttpRequestText(std::string_view method, std::string_view target, std::string_view extra_headers = "",
                            std::string_view body = "");

class TestConnection {
 public:
  // rcvbuf > 0 sets SO_RCVBUF before connecting (a small one makes a slow reader).
  static absl::StatusOr<TestConnection> Connect(int port, int rcvbuf = 0);
  TestConnection(TestConnection&& other) noexcept;
  TestConnection& operator=(TestConnection&& other) noexcept;
  ~TestConnection();

  absl::Status Send(std::string_view bytes);
  // One response with a Content-Length body (the server always sends one).
  absl::StatusOr<RawResponse> ReadResponse();
  // Status line and headers only (101, text/event-stream).
  absl::StatusOr<RawResponse> ReadHead();
  absl::StatusOr<std::string> ReadUntil(std::string_view delimiter);
  // True when the server closes the connection (EOF or reset) before more data comes.
  bool ReadsEof();
  // Whether bytes are waiting right now (no waiting).
  bool HasData();
  void Close();

  // RFC 6455 handshake with the RFC's sample key; checks 101 and the accept value.
  absl::Status UpgradeToWebSocket(std::string_view target, std::string_view extra_headers = "");
  absl::Status SendWsFrame(int opcode, std::string_view payload);  // masked, as a client must
  absl::StatusOr<WsFrame> ReadWsFrame();
  // A whole message: continuation frames joined; pings answered on the way.
  absl::StatusOr<WsFrame> ReadWsMessage();

 private:
  explicit TestConnection(int fd) : fd_(fd) {}
  absl::Status Fill();  // reads more into buffer_
  absl::StatusOr<std::string> Take(size_t n);

  int fd_ = -1;
  std::string buffer_;
};

}  // namespace lingcast::testing_util
