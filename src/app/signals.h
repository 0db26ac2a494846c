// Turns SIGINT/SIGTERM into a callback on an ordinary thread, so a job can stop
// its pipeline cleanly (no partial output) instead of dying mid-write.
//
// The signals are blocked in the constructing thread, and so in every thread
// started after it (encoder threads included); a watcher thread receives them
// with sigwait(). Create the watcher first thing in main(), before any other
// thread exists, then point it at whatever must stop with SetHandler().
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"

namespace lingcast {

class SignalWatcher {
 public:
  SignalWatcher();
  ~SignalWatcher();  // stops the watcher and restores the signal mask
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // Called (on the watcher thread) for every SIGINT/SIGTERM from now on; if one
  // already arrived, at once. Pass nullptr to clear.
  void SetHandler(std::function<void(int signal)> handler);
  int received() const { return received_.load(); }  // last signal, 0 if none

 private:
  sigset_t signals_{};
  sigset_t previous_mask_{};
  std::mutex mu_;
  std::function<void(int)> handler_ ABSL_GUARDED_BY(mu_);
  std::atomic<int> received_{0};
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace lingcast
