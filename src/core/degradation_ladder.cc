#include "core/degradation_ladder.h"

#include <utility>

#include "absl/strings/str_format.h"

namespace lingcast {

std::string_view DegradationRungName(int level) {
  switch (level) {
    case 1:
      return "drop_provisional_captions";
    case 2:
      return "lower_video";
    case 3:
      return "lighter_voice";
    case 4:
      return "refuse_new_sessions";
    default:
      return "none";
  }
}

absl::Status CheckPressureLimits(const PressureLimits& limits) {
  auto check_marks = [](std::string_view name, double high, double low) -> absl::Status {
    if (high < 0 || low < 0) return absl::InvalidArgumentError(absl::StrFormat("%s: a mark cannot be negative", name));
    if (high > 0 && low >= high) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: the low mark (%g) must be below the high mark (%g)", name, low, high));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_marks("memory (MB)", limits.rss_high_mb, limits.rss_low_mb); !s.ok()) return s;
  if (absl::Status s = check_marks("GPU memory (MB)", limits.gpu_high_mb, limits.gpu_low_mb); !s.ok()) return s;
  if (absl::Status s = check_marks("lag (s)", limits.lag_high.seconds(), limits.lag_low.seconds()); !s.ok()) {
    return s;
  }
  if (limits.step_interval <= MediaTime::Zero() || limits.recover_after <= MediaTime::Zero()) {
    return absl::InvalidArgumentError("the step interval and the recovery time must be positive");
  }
  if (limits.max_level < 1 || limits.max_level > kDegradationRungs) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the deepest rung must be 1 to %d, not %d", kDegradationRungs, limits.max_level));
  }
  return absl::OkStatus();
}

absl::StatusOr<DegradationLadder> DegradationLadder::Create(const PressureLimits& limits) {
  if (absl::Status s = CheckPressureLimits(limits); !s.ok()) return s;
  return DegradationLadder(limits);
}

std::string DegradationLadder::HighReason(const PressureReading& reading) const {
  if (limits_.rss_high_mb > 0 && reading.rss_mb && *reading.rss_mb >= limits_.rss_high_mb) {
    return absl::StrFormat("memory %.0f MB above %.0f MB", *reading.rss_mb, limits_.rss_high_mb);
  }
  if (limits_.gpu_high_mb > 0 && reading.gpu_mb && *reading.gpu_mb >= limits_.gpu_high_mb) {
    return absl::StrFormat("GPU memory %.0f MB above %.0f MB", *reading.gpu_mb, limits_.gpu_high_mb);
  }
  if (limits_.lag_high > MediaTime::Zero() && reading.lag && *reading.lag >= limits_.lag_high) {
    return absl::StrFormat("lag %.2f s above %.2f s", reading.lag->seconds(), limits_.lag_high.seconds());
  }
  return "";
}

bool DegradationLadder::AllLow(const PressureReading& reading) const {
  if (limits_.rss_high_mb > 0 && reading.rss_mb && *reading.rss_mb > limits_.rss_low_mb) return false;
  if (limits_.gpu_high_mb > 0 && reading.gpu_mb && *reading.gpu_mb > limits_.gpu_low_mb) return false;
  if (limits_.lag_high > MediaTime::Zero() && reading.lag && *reading.lag > limits_.lag_low) return false;
  return true;
}

DegradationChange DegradationLadder::Move(MediaTime now, int to, std::string reason) {
  DegradationChange change{now, level_, to, std::move(reason)};
  if (to > level_) {
    ++taken_[to - 1];
  } else {
    ++given_back_[level_ - 1];
  }
  level_ = to;
  last_change_ = now;
  changes_.push_back(change);
  if (changes_.size() > kKeptChanges) changes_.pop_front();
  return change;
}

std::optional<DegradationChange> DegradationLadder::Observe(MediaTime now, const PressureReading& reading) {
  const std::string high = HighReason(reading);
  if (!high.empty()) {
    low_since_.reset();
    const bool rested = !last_change_ || now - *last_change_ >= limits_.step_interval;
    if (level_ < limits_.max_level && rested) return Move(now, level_ + 1, high);
    return std::nullopt;
  }
  if (!AllLow(reading)) {  // between the marks: hold where it is
    low_since_.reset();
    return std::nullopt;
  }
  if (!low_since_) low_since_ = now;
  if (level_ == 0) return std::nullopt;
  // A rung given back needs the readings low for the whole wait after the last change.
  const MediaTime calm_from = last_change_ && *last_change_ > *low_since_ ? *last_change_ : *low_since_;
  if (now - calm_from < limits_.recover_after) return std::nullopt;
  low_since_ = now;
  return Move(now, level_ - 1,
              absl::StrFormat("every reading low for %.1f s", (now - calm_from).seconds()));
}

}  // namespace lingcast
