// Shared by the server's loopback tests.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <mutex>
#include "server/http_server.h"
#include "server/test_client.h"

namespace lingcast::testing_util {

inline constexpr char kToken[] = "s3cret-t0ken";
inline constexpr char kAuthHeader[] = "Authorization: Bearer s3cret-t0ken\r\n";

inline HttpServerOptions TestServerOptions() {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.token = kToken;
  options.auth_failure_delay = absl::Milliseconds(1);
  return options;
}

// Polls `done` up to ~10 s (a cap on a loop, not a timing assertion).
template <typename F>
bool Eventually(F done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

// Connects, sends `request`, reads one response.
inline absl::StatusOr<RawResponse> RoundTrip(int port, const std::string& request) {
  absl::StatusOr<TestConnection> connection = TestConnection::Connect(port);
  if (!connection.ok()) return connection.status();
  if (absl::Status sent = connection->Send(request); !sent.ok()) return sent;
  return connection->ReadResponse();
}

// The EventClients a stream handler was given, for the test thread.
class ClientBox {
 public:
  void Add(std::shared_ptr<EventClient> client) {
    std::lock_guard<std::mutex> lock(mu_);
    clients_.push_back(std::move(client));
  }
  std::shared_ptr<EventClient> Get(size_t i) const {
    std::lock_guard<std::mutex> lock(mu_);
    return i < clients_.size() ? clients_[i] : nullptr;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return clients_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<EventClient>> clients_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast::testing_util
