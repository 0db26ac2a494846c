#include "core/process_memory.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include "core/process_stats.h"

namespace lingcast {

void TuneMallocForLongRuns() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool malloc_tuned = tunables != nullptr && std::string(tunables).find("glibc.malloc") != std::string::npos;
  if (malloc_tuned) return;
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  if (std::getenv("MALLOC_TRIM_THRESHOLD_") == nullptr) mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

double ReleaseFreedMemory() {
  const double before = CurrentRssMb();
  malloc_trim(0);
  return before - CurrentRssMb();
}

namespace {

// Starts `body` on a thread that takes no process signal. A command waits for
// SIGINT/SIGTERM with sigwait on signals it blocks in its own threads
// (app/signals.h); a thread started before that, with them unblocked, would
// take the signal itself and die of it, output half-written. Blocked before the
// thread exists, so no signal can land in between.
std::thread StartWithoutSignals(std::function<void()> body) {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  std::thread thread(std::move(body));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

}  // namespace

FreedMemoryReleaser::FreedMemoryReleaser(absl::Duration period)
    : period_(period), thread_(StartWithoutSignals([this] { Run(); })) {}

FreedMemoryReleaser::~FreedMemoryReleaser() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

int FreedMemoryReleaser::releases() const {
  MutexLock lock(&mu_);
  return releases_;
}

double FreedMemoryReleaser::released_mb() const {
  MutexLock lock(&mu_);
  return released_mb_;
}

void FreedMemoryReleaser::Run() {
  while (true) {
    {
      MutexLock lock(&mu_);
      if (mu_.AwaitWithTimeout([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; }, period_)) return;
    }
    // Not under the lock: trimming takes every arena's lock in turn, and the
    // counters' readers need not wait for it.
    const double released = ReleaseFreedMemory();
    MutexLock lock(&mu_);
    ++releases_;
    released_mb_ += released;
  }
}

}  // namespace lingcast
