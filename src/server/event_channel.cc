#include "server/event_channel.h"

#include <utility>

namespace lingcast {

EventClient::~EventClient() = default;

EventChannel::EventChannel(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

bool EventChannel::Send(std::string text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gone_ || closing_) return false;
  if (queue_.size() >= capacity_) {
    // The client reads slower than we produce: dropping it keeps memory bounded
    // and tells it (by the disconnect) to reconnect and resynchronise.
    overflowed_ = true;
    gone_ = true;
    queue_.clear();
    Wake();
    return false;
  }
  queue_.push_back(std::move(text));
  // Only the first message needs a wake-up: a writer that is busy takes the
  // next one itself when its write completes.
  if (queue_.size() == 1) Wake();
  return true;
}

bool EventChannel::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !gone_ && !closing_;
}

void EventChannel::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (gone_ || closing_) return;
  closing_ = true;
  Wake();
}

void EventChannel::SetWaker(std::function<void()> waker) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gone_) return;
  waker_ = std::move(waker);
  // What was sent before the connection was ready is waiting.
  if (!queue_.empty() || closing_) Wake();
}

EventChannel::Next EventChannel::TakeNext(std::string* message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gone_) return Next::kAbort;
  if (!queue_.empty()) {
    *message = std::move(queue_.front());
    queue_.pop_front();
    return Next::kMessage;
  }
  return closing_ ? Next::kClose : Next::kIdle;
}

void EventChannel::Detach() {
  std::lock_guard<std::mutex> lock(mu_);
  gone_ = true;
  queue_.clear();
  waker_ = nullptr;
}

bool EventChannel::overflowed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return overflowed_;
}

void EventChannel::Wake() {
  if (waker_) waker_();
}

}  // namespace lingcast
