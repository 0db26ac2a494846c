#include "server/server_state.h"

#include <algorithm>
#include <utility>

namespace lingcast::server_internal {

Admission& Admission::operator=(Admission&& other) noexcept {
  if (this != &other) {
    Release();
    state_ = std::move(other.state_);
    kind_ = other.kind_;
  }
  return *this;
}

Admission::~Admission() { Release(); }

void Admission::Release() {
  if (state_ == nullptr) return;
  state_->Release(kind_);
  state_ = nullptr;
}

void ServerState::AddRoute(std::string method, std::string_view pattern, HttpServer::Handler handler,
                           RouteAccess access) {
  std::lock_guard<std::mutex> lock(mu_);
  router_.Add(std::move(method), pattern, std::move(handler), std::move(access));
}

void ServerState::AddStreamRoute(std::string_view pattern, HttpServer::StreamHandler handler, RouteAccess access) {
  std::lock_guard<std::mutex> lock(mu_);
  router_.AddStream(pattern, std::move(handler), std::move(access));
}

RouteMatch ServerState::Match(std::string_view method, const std::vector<std::string>& segments) const {
  std::lock_guard<std::mutex> lock(mu_);
  return router_.Match(method, segments);
}

bool ServerState::IsPublic(std::string_view path) const {
  return std::find(options_.public_paths.begin(), options_.public_paths.end(), path) != options_.public_paths.end();
}

void ServerState::CountRequest() {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.requests;
}

void ServerState::CountResponse(int status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (status < 300) {
    ++stats_.responses_2xx;
  } else if (status >= 400 && status < 500) {
    ++stats_.responses_4xx;
  } else if (status >= 500) {
    ++stats_.responses_5xx;
  }
}

void ServerState::CountAuthFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.auth_failures;
}

void ServerState::CountLimitRejection() {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.limit_rejections;
}

Admission ServerState::AdmitConnection() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stats_.open_connections >= options_.max_connections) return {};
  ++stats_.open_connections;
  return Admission(shared_from_this(), Admission::Kind::kConnection);
}

Admission ServerState::AdmitEventClient(const std::shared_ptr<EventChannel>& channel) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || stats_.event_clients >= options_.max_event_clients) return {};
  ++stats_.event_clients;
  std::erase_if(channels_, [](const std::weak_ptr<EventChannel>& c) { return c.expired(); });
  channels_.push_back(channel);
  return Admission(shared_from_this(), Admission::Kind::kEventClient);
}

void ServerState::Release(Admission::Kind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  if (kind == Admission::Kind::kConnection) {
    --stats_.open_connections;
  } else {
    --stats_.event_clients;
  }
}

void ServerState::BeginStop() {
  std::vector<std::weak_ptr<EventChannel>> channels;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    channels.swap(channels_);
  }
  // Outside our lock: Detach takes the channel's, and Send holds the channel's
  // lock while it wakes the connection, which never takes ours.
  for (const auto& weak : channels) {
    if (auto channel = weak.lock()) channel->Detach();
  }
}

HttpServer::Stats ServerState::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace lingcast::server_internal
