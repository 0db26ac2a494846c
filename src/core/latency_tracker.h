// LatencyTracker: latency distributions per named boundary ("tts.out",
// "render.out", ...) with p50/p95/p99, in bounded memory.
//
// Each boundary keeps a log-linear histogram (like HdrHistogram): 32 linear
// sub-buckets per power of two, so any percentile is within ~3% of the true
// value, and memory stays constant however long a live session runs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/media_time.h"

namespace lingcast {

class LatencyHistogram {
 public:
  void Record(MediaTime latency);  // negative latencies are recorded as zero
  int64_t count() const { return count_; }
  MediaTime min() const { return MediaTime::Micros(count_ ? min_us_ : 0); }
  MediaTime max() const { return MediaTime::Micros(max_us_); }
  MediaTime mean() const;
  // q in [0, 1]; returns the upper edge of the bucket holding the q-quantile,
  // clamped to the observed maximum. Zero when empty.
  MediaTime Percentile(double q) const;

 private:
  static constexpr int kSubBucketBits = 5;  // 32 sub-buckets per octave
  static constexpr int kSubBuckets = 1 << kSubBucketBits;
  static constexpr int kOctaves = 64 - kSubBucketBits;
  static int BucketIndex(uint64_t us);
  static uint64_t BucketUpperEdge(int index);

  std::array<int64_t, kSubBuckets * (kOctaves + 1)> buckets_{};
  int64_t count_ = 0;
  int64_t sum_us_ = 0;
  int64_t min_us_ = 0;
  int64_t max_us_ = 0;
};

struct LatencySummary {
  std::string boundary;
  int64_t count = 0;
  MediaTime p50, p95, p99, max, mean;
};

// Thread-safe: stages on different threads record into one tracker.
class LatencyTracker {
 public:
  void Record(const std::string& boundary, MediaTime latency);
  std::vector<LatencySummary> Summaries() const;  // sorted by boundary name
  LatencySummary Summary(const std::string& boundary) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, LatencyHistogram> histograms_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
