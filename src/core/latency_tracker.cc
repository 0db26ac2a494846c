#include "core/latency_tracker.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace lingcast {

int LatencyHistogram::BucketIndex(uint64_t us) {
  if (us < kSubBuckets) return static_cast<int>(us);  // exact for tiny values
  const int msb = 63 - std::countl_zero(us);          // >= kSubBucketBits
  const int octave = msb - kSubBucketBits + 1;
  const int sub = static_cast<int>((us >> (msb - kSubBucketBits)) & (kSubBuckets - 1));
  return octave * kSubBuckets + sub;
}

uint64_t LatencyHistogram::BucketUpperEdge(int index) {
  if (index < kSubBuckets) return static_cast<uint64_t>(index);
  const int octave = index / kSubBuckets;
  const uint64_t sub = static_cast<uint64_t>(index % kSubBuckets);
  const int shift = octave - 1;
  // The bucket covers [(32+sub) << shift, (33+sub) << shift).
  return ((kSubBuckets + sub + 1) << shift) - 1;
}

void LatencyHistogram::Record(MediaTime latency) {
  const int64_t us = std::max<int64_t>(0, latency.micros());
  ++buckets_[BucketIndex(static_cast<uint64_t>(us))];
  if (count_ == 0 || us < min_us_) min_us_ = us;
  if (us > max_us_) max_us_ = us;
  ++count_;
  sum_us_ += us;
}

MediaTime LatencyHistogram::mean() const {
  return MediaTime::Micros(count_ ? sum_us_ / count_ : 0);
}

MediaTime LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return MediaTime::Zero();
  q = std::clamp(q, 0.0, 1.0);
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q * count_)));
  int64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const int64_t edge = static_cast<int64_t>(BucketUpperEdge(static_cast<int>(i)));
      return MediaTime::Micros(std::clamp(edge, min_us_, max_us_));
    }
  }
  return MediaTime::Micros(max_us_);
}

void LatencyTracker::Record(const std::string& boundary, MediaTime latency) {
  std::lock_guard lock(mu_);
  histograms_[boundary].Record(latency);
}

namespace {
LatencySummary Summarize(const std::string& name, const LatencyHistogram& h) {
  return LatencySummary{name, h.count(), h.Percentile(0.50), h.Percentile(0.95),
                        h.Percentile(0.99), h.max(), h.mean()};
}
}  // namespace

std::vector<LatencySummary> LatencyTracker::Summaries() const {
  std::lock_guard lock(mu_);
  std::vector<LatencySummary> out;
  for (const auto& [name, h] : histograms_) out.push_back(Summarize(name, h));
  return out;
}

LatencySummary LatencyTracker::Summary(const std::string& boundary) const {
  std::lock_guard lock(mu_);
  auto it = histograms_.find(boundary);
  if (it == histograms_.end()) return LatencySummary{boundary};
  return Summarize(boundary, it->second);
}

}  // namespace lingcast
