// A real HTTP/1.1 server on 127.0.0.1, for tests of HTTP clients (the LLM
// translator): it accepts connections on a free port, reads each request, and
// answers as the test scripts it: a response sent in chunks (a server-sent event
// stream), an error status, a connection dropped without an answer, or an answer
// that never completes (until the client gives up or the server stops).
//
// Test-only; header-only so no library carries it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace lingcast {

class LoopbackHttpServer {
 public:
  struct Request {
    int index = 0;  // 0 for the first request this server got
    std::string method, path, headers, body;
  };
  struct Reply {
    enum class Kind { kRespond, kDrop, kHang };
    Kind kind = Kind::kRespond;
    int status = 200;
    std::string content_type = "application/json";
    std::vector<std::string> chunks;  // body, written piece by piece
    bool hang_after_chunks = false;   // send the chunks, then never finish
  };
  using Handler = std::function<Reply(const Request&)>;

  static absl::StatusOr<std::unique_ptr<LoopbackHttpServer>> Start(Handler handler) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return absl::InternalError("socket() failed");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ::close(fd);
      return absl::InternalError("cannot listen on a loopback port");
    }
    int wake[2];
    if (::pipe(wake) != 0) {
      ::close(fd);
      return absl::InternalError("pipe() failed");
    }
    return std::unique_ptr<LoopbackHttpServer>(
        new LoopbackHttpServer(fd, wake[0], wake[1], ntohs(address.sin_port), std::move(handler)));
  }

  ~LoopbackHttpServer() {
    stopping_ = true;
    char byte = 1;
    (void)!::write(wake_write_, &byte, 1);  // wakes the acceptor and every hanging connection
    acceptor_.join();
    std::vector<std::thread> workers;
    {
      std::lock_guard<std::mutex> lock(mu_);
      workers.swap(workers_);
    }
    for (std::thread& worker : workers) worker.join();
    ::close(listen_fd_);
    ::close(wake_read_);
    ::close(wake_write_);
  }

  int port() const { return port_; }
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_); }
  int requests() const { return next_index_.load(); }
  std::vector<Request> received() const {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

 private:
  LoopbackHttpServer(int listen_fd, int wake_read, int wake_write, int port, Handler handler)
      : listen_fd_(listen_fd), wake_read_(wake_read), wake_write_(wake_write), port_(port),
        handler_(std::move(handler)) {
    acceptor_ = std::thread([this] { Accept(); });
  }

  // Waits until `fd` is readable or the server stops; false when stopping.
  bool WaitReadable(int fd) const {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    while (true) {
      if (::poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents != 0 || stopping_) return false;
      if (fds[0].revents != 0) return true;
    }
  }

  void Accept() {
    while (WaitReadable(listen_fd_)) {
      int client = ::accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      std::lock_guard<std::mutex> lock(mu_);
      workers_.emplace_back([this, client] { Serve(client); });
    }
  }

  void Serve(int client) {
    Request request;
    std::string data;
    char buffer[4096];
    size_t header_end = std::string::npos;
    size_t content_length = 0;
    while (true) {
      if (header_end != std::string::npos && data.size() >= header_end + 4 + content_length) break;
      if (!WaitReadable(client)) return Close(client);
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) return Close(client);
      data.append(buffer, static_cast<size_t>(n));
      if (header_end == std::string::npos && (header_end = data.find("\r\n\r\n")) != std::string::npos) {
        request.headers = data.substr(0, header_end);
        std::string lower = request.headers;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (size_t at = lower.find("content-length:"); at != std::string::npos) {
          content_length = std::stoul(lower.substr(at + 15));
        }
      }
    }
    const size_t first_space = request.headers.find(' ');
    const size_t second_space = request.headers.find(' ', first_space + 1);
    request.method = request.headers.substr(0, first_space);
    request.path = request.headers.substr(first_space + 1, second_space - first_space - 1);
    request.body = data.substr(header_end + 4, content_length);
    request.index = next_index_++;
    {
      std::lock_guard<std::mutex> lock(mu_);
      received_.push_back(request);
    }
    const Reply reply = handler_(request);
    if (reply.kind == Reply::Kind::kDrop) return Close(client);
    if (reply.kind == Reply::Kind::kRespond) {
      Send(client, absl::StrCat("HTTP/1.1 ", reply.status, " Scripted\r\nContent-Type: ", reply.content_type,
                                "\r\nConnection: close\r\n\r\n"));
      for (const std::string& chunk : reply.chunks) Send(client, chunk);
      if (!reply.hang_after_chunks) return Close(client);
    }
    // Hang: hold the connection open until the client gives up or the server stops.
    while (WaitReadable(client)) {
      if (::recv(client, buffer, sizeof(buffer), 0) <= 0) break;
    }
    Close(client);
  }

  static void Send(int client, const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(client, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }
  static void Close(int client) { ::close(client); }

  const int listen_fd_, wake_read_, wake_write_, port_;
  const Handler handler_;
  std::atomic<bool> stopping_ = false;
  std::atomic<int> next_index_ = 0;
  mutable std::mutex mu_;
  std::vector<std::thread> workers_;  // guarded by mu_
  std::vector<Request> received_;     // guarded by mu_
  std::thread acceptor_;
};

}  // namespace lingcast
