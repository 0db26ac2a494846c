#include "app/signals.h"

#include <pthread.h>

namespace lingcast {

SignalWatcher::SignalWatcher() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  // SIGUSR2 only wakes the watcher when it is destroyed.
  sigaddset(&signals_, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_mask_);
  watcher_ = std::thread([this] {
    for (;;) {
      int sig = 0;
      if (sigwait(&signals_, &sig) != 0) continue;
      if (stopping_.load()) return;
      if (sig == SIGUSR2) continue;
      received_.store(sig);
      std::lock_guard lock(mu_);
      if (handler_) handler_(sig);
    }
  });
}

SignalWatcher::~SignalWatcher() {
  stopping_.store(true);
  pthread_kill(watcher_.native_handle(), SIGUSR2);
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void SignalWatcher::SetHandler(std::function<void(int)> handler) {
  std::lock_guard lock(mu_);
  handler_ = std::move(handler);
  if (handler_ && received_.load() != 0) handler_(received_.load());
}

}  // namespace lingcast
