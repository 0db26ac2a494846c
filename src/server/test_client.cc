#include "server/test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"

namespace lingcast::testing_util {
namespace {

constexpr int kPollMs = 20000;

absl::Status Errno(std::string_view what) { return absl::UnavailableError(absl::StrCat(std::string(what), ": ", std::strerror(errno))); }

}  // namespace

std::string HttpRequestText(std::string_view method, std::string_view target, std::string_view extra_headers,
                            std::string_view body) {
  std::string text = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  text.append(extra_headers);
  if (!body.empty()) absl::StrAppend(&text, "Content-Length: ", body.size(), "\r\n");
  text.append("\r\n").append(body);
  return text;
}

absl::StatusOr<TestConnection> TestConnection::Connect(int port, int rcvbuf) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Errno("socket");
  TestConnection connection(fd);
  if (rcvbuf > 0 && ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) != 0) return Errno("SO_RCVBUF");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) return Errno("connect");
  return connection;
}

TestConnection::TestConnection(TestConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffer_(std::move(other.buffer_)) {}

TestConnection& TestConnection::operator=(TestConnection&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

TestConnection::~TestConnection() { Close(); }

void TestConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

absl::Status TestConnection::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("send");
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

absl::Status TestConnection::Fill() {
  pollfd p{fd_, POLLIN, 0};
  const int ready = ::poll(&p, 1, kPollMs);
  if (ready == 0) return absl::DeadlineExceededError("no data from the server");
  if (ready < 0) return Errno("poll");
  char chunk[16384];
  const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
  if (n < 0) return Errno("recv");
  if (n == 0) return absl::OutOfRangeError("the server closed the connection");
  buffer_.append(chunk, static_cast<size_t>(n));
  return absl::OkStatus();
}

absl::StatusOr<std::string> TestConnection::Take(size_t n) {
  while (buffer_.size() < n) LC_RETURN_IF_ERROR(Fill());
  std::string out = buffer_.substr(0, n);
  buffer_.erase(0, n);
  return out;
}

absl::StatusOr<std::string> TestConnection::ReadUntil(std::string_view delimiter) {
  size_t found;
  while ((found = buffer_.find(delimiter)) == std::string::npos) LC_RETURN_IF_ERROR(Fill());
  return Take(found + delimiter.size());
}

absl::StatusOr<RawResponse> TestConnection::ReadHead() {
  LC_ASSIGN_OR_RETURN(const std::string head, ReadUntil("\r\n\r\n"));
  RawResponse response;
  std::vector<std::string> lines = absl::StrSplit(head, "\r\n", absl::SkipEmpty());
  if (lines.empty()) return absl::DataLossError("empty response head");
  std::vector<std::string> status_line = absl::StrSplit(lines[0], absl::MaxSplits(' ', 2));
  if (status_line.size() < 2 || !absl::SimpleAtoi(status_line[1], &response.status)) {
    return absl::DataLossError(absl::StrCat("bad status line: ", lines[0]));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (colon == std::string::npos) continue;
    response.headers[absl::AsciiStrToLower(lines[i].substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
  }
  return response;
}

absl::StatusOr<RawResponse> TestConnection::ReadResponse() {
  LC_ASSIGN_OR_RETURN(RawResponse response, ReadHead());
  size_t length = 0;
  if (auto it = response.headers.find("content-length"); it != response.headers.end()) {
    if (!absl::SimpleAtoi(it->second, &length)) return absl::DataLossError("bad Content-Length");
  }
  LC_ASSIGN_OR_RETURN(response.body, Take(length));
  return response;
}

bool TestConnection::ReadsEof() {
  for (;;) {
    buffer_.clear();
    const absl::Status status = Fill();
    if (status.ok()) continue;  // data before the end: skip it
    return absl::IsOutOfRange(status) || absl::IsUnavailable(status);  // EOF, or a reset
  }
}

bool TestConnection::HasData() {
  if (!buffer_.empty()) return true;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

absl::Status TestConnection::UpgradeToWebSocket(std::string_view target, std::string_view extra_headers) {
  LC_RETURN_IF_ERROR(Send(HttpRequestText(
      "GET", target,
      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      "Sec-WebSocket-Version: 13\r\n" + std::string(extra_headers))));
  LC_ASSIGN_OR_RETURN(const RawResponse head, ReadHead());
  if (head.status != 101) return absl::FailedPreconditionError(absl::StrCat("upgrade answered ", head.status));
  // RFC 6455 section 1.3's worked example.
  const auto accept = head.headers.find("sec-websocket-accept");
  if (accept == head.headers.end() || accept->second != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") {
    return absl::DataLossError("wrong Sec-WebSocket-Accept");
  }
  return absl::OkStatus();
}

absl::Status TestConnection::SendWsFrame(int opcode, std::string_view payload) {
  std::string frame;
  frame.push_back(static_cast<char>(0x80 | opcode));
  if (payload.size() < 126) {
    frame.push_back(static_cast<char>(0x80 | payload.size()));
  } else {
    frame.push_back(static_cast<char>(0x80 | 126));
    frame.push_back(static_cast<char>(payload.size() >> 8));
    frame.push_back(static_cast<char>(payload.size() & 0xff));
  }
  const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
  frame.append(reinterpret_cast<const char*>(mask), 4);
  for (size_t i = 0; i < payload.size(); ++i) frame.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
  return Send(frame);
}

absl::StatusOr<WsFrame> TestConnection::ReadWsFrame() {
  LC_ASSIGN_OR_RETURN(const std::string head, Take(2));
  WsFrame frame;
  frame.opcode = static_cast<unsigned char>(head[0]) & 0x0f;
  frame.fin = (static_cast<unsigned char>(head[0]) & 0x80) != 0;
  if ((static_cast<unsigned char>(head[1]) & 0x80) != 0) return absl::DataLossError("a server frame must not be masked");
  uint64_t length = static_cast<unsigned char>(head[1]) & 0x7f;
  if (length >= 126) {
    LC_ASSIGN_OR_RETURN(const std::string extended, Take(length == 126 ? 2 : 8));
    length = 0;
    for (char c : extended) length = (length << 8) | static_cast<unsigned char>(c);
  }
  LC_ASSIGN_OR_RETURN(frame.payload, Take(static_cast<size_t>(length)));
  return frame;
}

absl::StatusOr<WsFrame> TestConnection::ReadWsMessage() {
  WsFrame message;
  for (;;) {
    LC_ASSIGN_OR_RETURN(WsFrame frame, ReadWsFrame());
    if (frame.opcode == 9) {
      LC_RETURN_IF_ERROR(SendWsFrame(10, frame.payload));
      continue;
    }
    if (frame.opcode != 0) message.opcode = frame.opcode;
    message.payload += frame.payload;
    if (frame.fin) return message;
  }
}

}  // namespace lingcast::testing_util
