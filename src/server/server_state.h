// What the server's connections share: options, routes, counters, the live
// event channels. Held by shared_ptr from every connection, so it outlives the
// last of them however the server is torn down. No Boost here.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include <mutex>
#include "server/event_channel.h"
#include "server/http_server.h"
#include "server/router.h"

namespace lingcast::server_internal {

class ServerState;

// One admitted connection or event client, given back when destroyed (RAII,
// so every way a connection can end releases its place). Empty: nothing held.
class Admission {
 public:
  enum class Kind { kConnection, kEventClient };
  Admission() = default;
  Admission(std::shared_ptr<ServerState> state, Kind kind) : state_(std::move(state)), kind_(kind) {}
  Admission(Admission&& other) noexcept = default;
  Admission& operator=(Admission&& other) noexcept;
  ~Admission();
  explicit operator bool() const { return state_ != nullptr; }

 private:
  void Release();
  std::shared_ptr<ServerState> state_;
  Kind kind_ = Kind::kConnection;
};

class ServerState : public std::enable_shared_from_this<ServerState> {
 public:
  explicit ServerState(HttpServerOptions options) : options_(std::move(options)) {}

  const HttpServerOptions& options() const { return options_; }
  Logger* logger() const { return options_.logger; }

  void AddRoute(std::string method, std::string_view pattern, HttpServer::Handler handler, RouteAccess access);
  void AddStreamRoute(std::string_view pattern, HttpServer::StreamHandler handler, RouteAccess access);
  RouteMatch Match(std::string_view method, const std::vector<std::string>& segments) const;
  bool IsPublic(std::string_view path) const;

  void CountRequest();
  void CountResponse(int status);
  void CountAuthFailure();
  void CountLimitRejection();

  // Empty when max_connections are open.
  Admission AdmitConnection();
  // Empty when max_event_clients are connected or the server is stopping.
  Admission AdmitEventClient(const std::shared_ptr<EventChannel>& channel);

  // From now on no event client is admitted, and every channel is detached, so
  // an application thread's Send() no longer reaches the (stopping) I/O.
  void BeginStop();

  HttpServer::Stats stats() const;

 private:
  friend class Admission;
  void Release(Admission::Kind kind);

  const HttpServerOptions options_;
  mutable std::mutex mu_;
  Router router_ ABSL_GUARDED_BY(mu_);
  HttpServer::Stats stats_ ABSL_GUARDED_BY(mu_);
  std::vector<std::weak_ptr<EventChannel>> channels_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace lingcast::server_internal
