#include "graph/bus.h"

#include <utility>

namespace lingcast {

const char* QueuePolicyName(QueuePolicy policy) {
  switch (policy) {
    case QueuePolicy::kBlock: return "block";
    case QueuePolicy::kDropOldest: return "drop_oldest";
    case QueuePolicy::kDropNewest: return "drop_newest";
    case QueuePolicy::kLatest: return "latest";
  }
  return "?";
}

Bus::Bus(size_t capacity) : queue_(QueueOptions{capacity, QueuePolicy::kDropOldest}) {}

void Bus::Post(BusMessage message) { queue_.Push(std::move(message)); }

void Bus::PostError(const std::string& source, absl::Status status, MediaTime time) {
  Post(BusMessage{BusMessage::Kind::kError, source, std::move(status), "", time});
}

void Bus::PostWarning(const std::string& source, absl::Status status, MediaTime time) {
  Post(BusMessage{BusMessage::Kind::kWarning, source, std::move(status), "", time});
}

void Bus::PostEvent(const std::string& source, std::string text, MediaTime time) {
  Post(BusMessage{BusMessage::Kind::kEvent, source, absl::OkStatus(), std::move(text), time});
}

std::optional<BusMessage> Bus::TryPop() { return queue_.TryPop(); }
std::optional<BusMessage> Bus::WaitPop() { return queue_.Pop(); }

std::vector<BusMessage> Bus::Drain() {
  std::vector<BusMessage> out;
  while (auto m = queue_.TryPop()) out.push_back(std::move(*m));
  return out;
}

void Bus::Close() { queue_.Close(); }
int64_t Bus::lost() const { return queue_.counters().dropped; }

}  // namespace lingcast
