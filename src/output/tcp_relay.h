// TcpRelay: a loopback TCP relay for tests that passes the client's bytes to
// the server at a limited rate (the server's replies go back unthrottled),
// like a congested uplink. Small socket buffers make the congestion show
// within a second instead of after megabytes of kernel buffering.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace lingcast::testing_util {

class TcpRelay {
 public:
  TcpRelay(int target_port, int64_t bytes_per_second) : target_port_(target_port), rate_(bytes_per_second) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    const int small = 16 * 1024;
    setsockopt(listen_fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    sockaddr_in addr = Loopback(0);
    socklen_t len = sizeof(addr);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(listen_fd_, 4) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~TcpRelay() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    return addr;
  }

  static bool WriteAll(int fd, const char* data, ssize_t size) {
    while (size > 0) {
      const ssize_t n = send(fd, data, static_cast<size_t>(size), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data += n;
      size -= n;
    }
    return true;
  }

  void Run() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int client = accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      const int upstream = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr = Loopback(target_port_);
      if (connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) Relay(client, upstream);
      close(upstream);
      close(client);
    }
  }

  // Forwards until either side closes; client -> upstream within the rate.
  void Relay(int client, int upstream) {
    char buffer[4096];
    double tokens = 0;
    auto last = std::chrono::steady_clock::now();
    while (!stop_) {
      const auto now = std::chrono::steady_clock::now();
      tokens = std::min<double>(static_cast<double>(rate_) / 20,
                                tokens + static_cast<double>(rate_) * std::chrono::duration<double>(now - last).count());
      last = now;
      const bool may_read_client = tokens >= 1;
      pollfd fds[2] = {{client, static_cast<short>(may_read_client ? POLLIN : 0), 0}, {upstream, POLLIN, 0}};
      if (poll(fds, 2, 5) < 0) return;
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        const size_t want = std::min<size_t>(sizeof(buffer), static_cast<size_t>(tokens));
        const ssize_t n = recv(client, buffer, std::max<size_t>(want, 1), 0);
        if (n <= 0 || !WriteAll(upstream, buffer, n)) return;
        tokens -= static_cast<double>(n);
      }
      if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = recv(upstream, buffer, sizeof(buffer), 0);
        if (n <= 0 || !WriteAll(client, buffer, n)) return;
      }
    }
  }

  const int target_port_;
  const int64_t rate_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace lingcast::testing_util
