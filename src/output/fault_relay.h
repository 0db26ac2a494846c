// Fault relays for the network fault tests and bench/network_faults: loopback
// proxies between a live output and its server that add what a bad network
// does, in user space, for kernels without `tc netem` (sch_netem).
//
//   TcpFaultRelay  RTMP: each chunk read from one side reaches the other after
//                  `delay` plus a uniform jitter in [-jitter, +jitter] (in
//                  order, as TCP would deliver it), the client's bytes at most
//                  `bytes_per_second`; Stall() stops forwarding until Resume().
//   UdpFaultRelay  SRT: each datagram, either way, is lost with probability
//                  `loss` or delivered after delay + jitter (reordered, as UDP may).
// Randomness is seeded, so a run's faults repeat. One connection (TCP) or one
// peer (UDP) at a time; the relay takes the next TCP connection when one ends.
// Header-only so the bench uses it without GoogleTest.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace lingcast::testing_util {

struct LinkFaults {
  std::chrono::microseconds delay{0};
  std::chrono::microseconds jitter{0};
  double loss = 0;                // UDP only: the chance each datagram is lost
  int64_t bytes_per_second = 0;   // TCP client -> server only; 0: no cap
  uint64_t seed = 1;
};

namespace fault_relay_internal {

using Clock = std::chrono::steady_clock;

inline sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

// Binds `fd` to a free loopback port; the port, or 0.
inline int BindLoopback(int fd) {
  sockaddr_in addr = Loopback(0);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return 0;
  }
  return ntohs(addr.sin_port);
}

// delay + uniform jitter, never negative.
inline Clock::duration Latency(const LinkFaults& faults, std::mt19937_64& random) {
  const int64_t jitter = faults.jitter.count();
  int64_t us = faults.delay.count();
  if (jitter > 0) us += std::uniform_int_distribution<int64_t>(-jitter, jitter)(random);
  return std::chrono::microseconds(std::max<int64_t>(0, us));
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void Reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

}  // namespace fault_relay_internal

class TcpFaultRelay {
 public:
  TcpFaultRelay(int target_port, const LinkFaults& faults)
      : target_port_(target_port), faults_(faults), random_(faults.seed) {
    listen_.Reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    // Small socket buffers make congestion show within a second, not megabytes later.
    const int small = 16 * 1024;
    setsockopt(listen_.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    port_ = fault_relay_internal::BindLoopback(listen_.get());
    if (port_ == 0 || listen(listen_.get(), 8) != 0) {
      port_ = 0;
      return;
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~TcpFaultRelay() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  TcpFaultRelay(const TcpFaultRelay&) = delete;
  TcpFaultRelay& operator=(const TcpFaultRelay&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  void Stall() { stalled_ = true; }
  void Resume() { stalled_ = false; }
  int64_t connections() const { return connections_; }

 private:
  using Clock = fault_relay_internal::Clock;
  struct Chunk {
    Clock::time_point due;
    std::string bytes;
    size_t sent = 0;
  };
  // One direction of a connection.
  struct Pipe {
    int from = -1, to = -1;
    std::deque<Chunk> chunks;
    Clock::time_point last_due{};
    bool closed = false;  // `from` ended: close once the chunks are out
  };

  void Run() {
    while (!stop_) {
      pollfd p{listen_.get(), POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      fault_relay_internal::Fd client(accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (client.get() < 0) continue;
      ++connections_;
      fault_relay_internal::Fd upstream(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      sockaddr_in addr = fault_relay_internal::Loopback(target_port_);
      if (connect(upstream.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) continue;
      const int small = 16 * 1024;
      setsockopt(client.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
      setsockopt(upstream.get(), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
      Relay(client.get(), upstream.get());
    }
  }

  // Reads what `pipe.from` has (within `budget` bytes) into timed chunks.
  bool ReadInto(Pipe& pipe, size_t budget) {
    char buffer[8192];
    const ssize_t n = recv(pipe.from, buffer, std::min(sizeof(buffer), std::max<size_t>(budget, 1)), MSG_DONTWAIT);
    if (n == 0) {
      pipe.closed = true;
      return true;
    }
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    const Clock::time_point due = std::max(pipe.last_due, Clock::now() + fault_relay_internal::Latency(faults_, random_));
    pipe.last_due = due;
    pipe.chunks.push_back(Chunk{due, std::string(buffer, static_cast<size_t>(n))});
    return true;
  }

  // Writes the chunks that are due; false when `pipe.to` is gone.
  static bool WriteDue(Pipe& pipe) {
    while (!pipe.chunks.empty() && pipe.chunks.front().due <= Clock::now()) {
      Chunk& chunk = pipe.chunks.front();
      const ssize_t n = send(pipe.to, chunk.bytes.data() + chunk.sent, chunk.bytes.size() - chunk.sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      chunk.sent += static_cast<size_t>(n);
      if (chunk.sent < chunk.bytes.size()) return true;
      pipe.chunks.pop_front();
    }
    return true;
  }

  void Relay(int client, int upstream) {
    Pipe up{client, upstream}, down{upstream, client};
    const double rate = static_cast<double>(faults_.bytes_per_second);
    double tokens = 0;
    auto last = Clock::now();
    while (!stop_) {
      const auto now = Clock::now();
      if (rate > 0) {
        tokens = std::min(rate / 20, tokens + rate * std::chrono::duration<double>(now - last).count());
      }
      last = now;
      const bool forward = !stalled_;
      const bool may_read_up = forward && !up.closed && (rate <= 0 || tokens >= 1) && up.chunks.size() < 256;
      const bool may_read_down = forward && !down.closed && down.chunks.size() < 256;
      pollfd fds[2] = {{client, static_cast<short>(may_read_up ? POLLIN : 0), 0},
                       {upstream, static_cast<short>(may_read_down ? POLLIN : 0), 0}};
      if (poll(fds, 2, 2) < 0 && errno != EINTR) return;
      if (may_read_up && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        const size_t count = up.chunks.size();
        if (!ReadInto(up, rate > 0 ? static_cast<size_t>(tokens) : 8192)) return;
        if (rate > 0 && up.chunks.size() > count) tokens -= static_cast<double>(up.chunks.back().bytes.size());
      }
      if (may_read_down && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        if (!ReadInto(down, 8192)) return;
      }
      if (forward && (!WriteDue(up) || !WriteDue(down))) return;
      // Either side gone and what it sent delivered: the connection ends.
      if ((up.closed && up.chunks.empty()) || (down.closed && down.chunks.empty())) return;
    }
  }

  const int target_port_;
  const LinkFaults faults_;
  std::mt19937_64 random_;  // relay thread only
  fault_relay_internal::Fd listen_;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> stalled_{false};
  std::atomic<int64_t> connections_{0};
  std::thread thread_;
};

class UdpFaultRelay {
 public:
  UdpFaultRelay(int target_port, const LinkFaults& faults)
      : target_port_(target_port), faults_(faults), random_(faults.seed) {
    front_.Reset(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    back_.Reset(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    port_ = fault_relay_internal::BindLoopback(front_.get());
    sockaddr_in target = fault_relay_internal::Loopback(target_port_);
    if (port_ == 0 || connect(back_.get(), reinterpret_cast<sockaddr*>(&target), sizeof(target)) != 0) {
      port_ = 0;
      return;
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~UdpFaultRelay() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  UdpFaultRelay(const UdpFaultRelay&) = delete;
  UdpFaultRelay& operator=(const UdpFaultRelay&) = delete;

  bool ok() const { return port_ > 0; }
  int port() const { return port_; }
  int64_t forwarded() const { return forwarded_; }
  int64_t lost() const { return lost_; }
  // From now on no datagram is lost (delay and jitter stay). A stream's last
  // datagram lost has no later one to reveal the gap, so a retransmitting
  // protocol cannot recover it: a test of recovery stops losing before its end.
  void StopLosing() { losing_ = false; }

 private:
  using Clock = fault_relay_internal::Clock;
  struct Datagram {
    bool to_server = true;
    std::string bytes;
  };

  void Take(int fd, bool to_server) {
    char buffer[2048];
    sockaddr_in from{};
    socklen_t len = sizeof(from);
    const ssize_t n = recvfrom(fd, buffer, sizeof(buffer), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) return;
    if (to_server) {
      client_ = from;
      have_client_ = true;
    }
    if (losing_ && faults_.loss > 0 && std::uniform_real_distribution<double>(0, 1)(random_) < faults_.loss) {
      ++lost_;
      return;
    }
    pending_.emplace(Clock::now() + fault_relay_internal::Latency(faults_, random_),
                     Datagram{to_server, std::string(buffer, static_cast<size_t>(n))});
  }

  void Run() {
    while (!stop_) {
      pollfd fds[2] = {{front_.get(), POLLIN, 0}, {back_.get(), POLLIN, 0}};
      if (poll(fds, 2, 1) < 0 && errno != EINTR) return;
      if (fds[0].revents & POLLIN) Take(front_.get(), /*to_server=*/true);
      if (fds[1].revents & POLLIN) Take(back_.get(), /*to_server=*/false);
      while (!pending_.empty() && pending_.begin()->first <= Clock::now()) {
        const Datagram& d = pending_.begin()->second;
        if (d.to_server) {
          send(back_.get(), d.bytes.data(), d.bytes.size(), MSG_DONTWAIT);
        } else if (have_client_) {
          sendto(front_.get(), d.bytes.data(), d.bytes.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&client_),
                 sizeof(client_));
        }
        ++forwarded_;
        pending_.erase(pending_.begin());
      }
    }
  }

  const int target_port_;
  const LinkFaults faults_;
  std::mt19937_64 random_;  // relay thread only
  fault_relay_internal::Fd front_, back_;
  int port_ = 0;
  sockaddr_in client_{};
  bool have_client_ = false;
  std::multimap<Clock::time_point, Datagram> pending_;  // relay thread only
  std::atomic<int64_t> forwarded_{0};
  std::atomic<int64_t> lost_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> losing_{true};
  std::thread thread_;
};

}  // namespace lingcast::testing_util
