// BoundedQueue<T>: the queue between two stages. Memory is bounded by the
// capacity; what happens when it is full is the connection's policy:
//
//   kBlock       the producer waits for space (audio, text: never lose data)
//   kDropOldest  the oldest queued item is discarded to make room
//   kDropNewest  the incoming item is discarded
//   kLatest      only the newest item is kept (rendered video -> encoder in live)
//
// A priority lane (PushPriority) carries control messages that overtake queued
// data and are never dropped; pushing one may purge queued items (a Flush purges
// the packets of older generations). Close() ends the stream after the queued
// items drain; Cancel() wakes every waiter at once and discards what is queued,
// so shutdown never deadlocks on a full or empty queue.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"

namespace lingcast {

enum class QueuePolicy { kBlock, kDropOldest, kDropNewest, kLatest };

const char* QueuePolicyName(QueuePolicy policy);

struct QueueOptions {
  size_t capacity = 8;
  QueuePolicy policy = QueuePolicy::kBlock;
};

struct QueueCounters {
  int64_t pushed = 0;      // items accepted into the queue
  int64_t popped = 0;
  int64_t dropped = 0;     // items lost to the policy (DropOldest/DropNewest/Latest)
  int64_t purged = 0;      // items discarded by a priority push (e.g. old generation)
  size_t high_water = 0;   // most data items ever queued at once
  size_t size = 0;         // data items queued now
};

enum class PushResult { kPushed, kDroppedOldest, kDroppedNewest, kClosed };

// GCC 12 at -O3 reports moves of std::variant holding a std::vector out of the
// deque as "used uninitialized" (a known false positive of its variant
// analysis); the suppression is limited to this class.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(QueueOptions options = {})
      : options_(options) {
    if (options_.capacity == 0) options_.capacity = 1;
    if (options_.policy == QueuePolicy::kLatest) options_.capacity = 1;
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // Adds a data item according to the policy. kBlock waits for space; the wait
  // ends early (kClosed) when the queue is closed or cancelled.
  PushResult Push(T item) {
    std::unique_lock lock(mu_);
    if (options_.policy == QueuePolicy::kBlock) {
      not_full_.wait(lock, [&] { return closed_ || data_.size() < options_.capacity; });
    }
    if (closed_) return PushResult::kClosed;
    PushResult result = PushResult::kPushed;
    if (data_.size() >= options_.capacity) {
      if (options_.policy == QueuePolicy::kDropNewest) {
        ++counters_.dropped;
        return PushResult::kDroppedNewest;
      }
      // kDropOldest and kLatest make room by discarding from the front.
      while (data_.size() >= options_.capacity) {
        data_.pop_front();
        ++counters_.dropped;
      }
      result = PushResult::kDroppedOldest;
    }
    data_.push_back(std::move(item));
    ++counters_.pushed;
    counters_.high_water = std::max(counters_.high_water, data_.size());
    not_empty_.notify_one();
    return result;
  }

  // Adds an item to the priority lane, ahead of all queued data. Never blocks,
  // never drops. Queued data items for which `purge_if` is true are discarded.
  bool PushPriority(T item, const std::function<bool(const T&)>& purge_if = nullptr) {
    std::lock_guard lock(mu_);
    if (cancelled_) return false;
    if (purge_if) {
      const size_t before = data_.size();
      data_.erase(std::remove_if(data_.begin(), data_.end(), purge_if), data_.end());
      counters_.purged += static_cast<int64_t>(before - data_.size());
      not_full_.notify_all();
    }
    priority_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  // Waits for the next item (priority lane first). nullopt once the queue is
  // closed and drained, or cancelled.
  std::optional<T> Pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return cancelled_ || closed_ || !priority_.empty() || !data_.empty(); });
    return TakeLocked();
  }

  // Like Pop() but returns nullopt at once when nothing is queued.
  std::optional<T> TryPop() {
    std::lock_guard lock(mu_);
    return TakeLocked();
  }

  // No more pushes; consumers drain what is queued, then Pop() returns nullopt.
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  // Stops everything now: waiters wake, queued items are discarded (releasing
  // any resources they hold, such as pooled frames).
  void Cancel() {
    std::deque<T> discarded_data, discarded_priority;
    {
      std::lock_guard lock(mu_);
      closed_ = cancelled_ = true;
      discarded_data.swap(data_);
      discarded_priority.swap(priority_);
      not_full_.notify_all();
      not_empty_.notify_all();
    }
  }

  bool closed() const { std::lock_guard lock(mu_); return closed_; }
  // Closed with nothing left to take, or cancelled: Pop() would return nullopt at once.
  bool drained() const {
    std::lock_guard lock(mu_);
    return cancelled_ || (closed_ && data_.empty() && priority_.empty());
  }
  const QueueOptions& options() const { return options_; }
  QueueCounters counters() const {
    std::lock_guard lock(mu_);
    QueueCounters c = counters_;
    c.size = data_.size();
    return c;
  }

 private:
  std::optional<T> TakeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (cancelled_) return std::nullopt;
    std::deque<T>* lane = !priority_.empty() ? &priority_ : (!data_.empty() ? &data_ : nullptr);
    if (lane == nullptr) return std::nullopt;
    T item = std::move(lane->front());
    lane->pop_front();
    if (lane == &data_) {
      ++counters_.popped;
      not_full_.notify_one();
    }
    return std::optional<T>(std::move(item));
  }

  QueueOptions options_;
  mutable std::mutex mu_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> data_ ABSL_GUARDED_BY(mu_);
  std::deque<T> priority_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  QueueCounters counters_ ABSL_GUARDED_BY(mu_);
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace lingcast
