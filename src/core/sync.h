// Mutex, MutexLock, SharedMutex and Notification: the part of absl's synchronization that
// lingcast uses, on the standard library's mutex and condition variable.
//
// Why not absl::Mutex: Debian's libabsl is built without ThreadSanitizer, and
// absl::Mutex synchronizes inside it (its own atomics and futex calls), so a
// TSan build of lingcast sees none of the ordering it gives and reports every
// access it guards as a race (docs/reliability.md, "Sanitizer builds").
// std::mutex and std::condition_variable go through pthread, which TSan
// intercepts. The names and the thread-safety annotations are absl's, so the
// guarded state reads as before and clang still checks it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace lingcast {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  // Wakes every Await, which then checks its condition again: as with absl,
  // a condition may change only under the mutex.
  void Unlock() ABSL_UNLOCK_FUNCTION() {
    mu_.unlock();
    changed_.notify_all();
  }

  // With the mutex held: returns once `condition()` is true, the mutex released
  // while it waits and held again on return. Waiting releases the mutex, as
  // Unlock does, so it wakes the other waiters too: this thread may have made
  // their condition true before it waits.
  template <typename Condition>
  void Await(const Condition& condition) ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    AwaitWithTimeout(condition, absl::InfiniteDuration());
  }
  // As Await, for at most `timeout` (absl::InfiniteDuration(): no limit);
  // whether `condition()` was true in the end.
  template <typename Condition>
  bool AwaitWithTimeout(const Condition& condition, absl::Duration timeout) ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    if (condition()) return true;
    changed_.notify_all();
    std::unique_lock<std::mutex> held(mu_, std::adopt_lock);
    bool met = true;
    if (timeout == absl::InfiniteDuration()) {
      changed_.wait(held, condition);
    } else {
      met = changed_.wait_for(held, absl::ToChronoNanoseconds(timeout), condition);
    }
    held.release();
    return met;
  }
  // absl::InfiniteFuture() - now is absl::InfiniteDuration(): no limit.
  template <typename Condition>
  bool AwaitWithDeadline(const Condition& condition, absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(this) {
    return AwaitWithTimeout(condition, deadline - absl::Now());
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
};

class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// Many readers or one writer (no Await).
class ABSL_LOCKABLE SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

class ABSL_SCOPED_LOCKABLE WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) { mu_->ReaderLock(); }
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// Happens once; any number of threads may wait for it.
class Notification {
 public:
  void Notify() {
    MutexLock lock(&mu_);
    notified_ = true;
  }
  bool HasBeenNotified() const {
    MutexLock lock(&mu_);
    return notified_;
  }
  void WaitForNotification() const { WaitForNotificationWithTimeout(absl::InfiniteDuration()); }
  bool WaitForNotificationWithTimeout(absl::Duration timeout) const {
    MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return notified_; }, timeout);
  }

 private:
  mutable Mutex mu_;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace lingcast
