// Bus: stages post errors and events; the app thread reads them and decides
// what to do (drop and count, or stop). Bounded: if nobody reads, the oldest
// messages go first, so a chatty stage cannot grow memory.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/media_time.h"
#include "graph/queue.h"

namespace lingcast {

struct BusMessage {
  enum class Kind { kError, kWarning, kEvent };
  Kind kind = Kind::kEvent;
  std::string source;    // stage name
  absl::Status status;   // for errors and warnings
  std::string text;      // event name or detail
  MediaTime time;        // clock time when posted
};

class Bus {
 public:
  explicit Bus(size_t capacity = 1024);

  void Post(BusMessage message);
  void PostError(const std::string& source, absl::Status status, MediaTime time = {});
  // A recoverable failure: the stage dropped or skipped something and goes on.
  void PostWarning(const std::string& source, absl::Status status, MediaTime time = {});
  void PostEvent(const std::string& source, std::string text, MediaTime time = {});

  std::optional<BusMessage> TryPop();
  std::optional<BusMessage> WaitPop();  // nullopt after Close()
  std::vector<BusMessage> Drain();
  void Close();
  int64_t lost() const;  // messages dropped because nobody read them

 private:
  BoundedQueue<BusMessage> queue_;
};

}  // namespace lingcast
