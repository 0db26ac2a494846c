// glibc's allocator, set up for a process that runs for hours (a show, the
// server) and kept from holding on to memory the process has freed.
#pragma once

#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "core/sync.h"

namespace lingcast {

// Large blocks (the neural engines' activations, tens of MB a line) come from
// mmap and go back to the system when freed, and the heap's top is given back
// past 128 KB free. By default glibc raises its mmap threshold after each such
// free, up to 32 MB, so later blocks come from the heap, which keeps what was
// freed: the process grows by every activation size a show ever needed.
// Measured on 2 cores, live zh->en on AISHELL with Whisper base (simulated
// clock): peak RSS 463 -> 394 MB with espeak-ng, 902 -> 532 MB with the Piper
// voice, same wall time. Each threshold the user set (MALLOC_*_THRESHOLD_, or
// any glibc.malloc tunable in GLIBC_TUNABLES) wins. Call once, at start.
void TuneMallocForLongRuns();

// Gives the whole free pages inside every malloc arena back to the system
// (malloc_trim(0)): memory freed in the middle of a heap, which glibc keeps
// resident for reuse until a block at the heap's top is freed. Returns the
// resident set's change in MiB (positive: that much was given back).
double ReleaseFreedMemory();

// Calls ReleaseFreedMemory every `period` on a thread of its own until it is
// destroyed (which does not wait out the period). Over hours, the gaps freed
// memory leaves in the arenas of a show's many threads grow the resident set
// by several MB an hour although the heap in use stays flat (docs/reliability.md,
// "Soak"); a look every minute keeps it flat. One per process: the arenas are.
// Its thread blocks every signal, so a command that waits for SIGINT/SIGTERM
// (app/signals.h) still gets them when the releaser was started first.
class FreedMemoryReleaser {
 public:
  explicit FreedMemoryReleaser(absl::Duration period);
  ~FreedMemoryReleaser();
  FreedMemoryReleaser(const FreedMemoryReleaser&) = delete;
  FreedMemoryReleaser& operator=(const FreedMemoryReleaser&) = delete;

  // How many times it has released so far, and the MiB given back in all.
  int releases() const;
  double released_mb() const;

 private:
  void Run();

  const absl::Duration period_;
  mutable Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int releases_ ABSL_GUARDED_BY(mu_) = 0;
  double released_mb_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;  // last: starts once the state above exists
};

}  // namespace lingcast
