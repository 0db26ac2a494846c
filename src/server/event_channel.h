// EventChannel: the EventClient the server hands to stream handlers. A bounded
// queue between the application's threads (Send) and the connection's writer
// (Next), kept free of Boost so its rules are tested without sockets.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include <mutex>
#include "server/http_types.h"

namespace lingcast {

class EventChannel final : public EventClient {
 public:
  // What the writer does next.
  enum class Next {
    kMessage,  // write the message Next() gave
    kIdle,     // nothing queued; the waker calls when there is
    kClose,    // Close() was called and the queue is drained: close politely
    kAbort,    // gone (overflow, Detach): drop the connection now
  };

  explicit EventChannel(size_t capacity);

  bool Send(std::string text) override;
  bool open() const override;
  void Close() override;

  // The connection's side. `waker` is called when the writer has something to
  // do (a first message, a close, an overflow); it is called with the
  // channel's lock held, so it must only schedule work (post to the strand),
  // never call back into the channel.
  void SetWaker(std::function<void()> waker);
  Next TakeNext(std::string* message);
  // The connection is gone (or the server stops): open() turns false, the queue
  // is dropped and the waker is never called again.
  void Detach();
  bool overflowed() const;

 private:
  void Wake() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  std::function<void()> waker_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;   // Close(): drain, then close
  bool gone_ ABSL_GUARDED_BY(mu_) = false;      // overflowed or detached
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace lingcast
