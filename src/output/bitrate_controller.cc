#include "output/bitrate_controller.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace lingcast {

absl::Status ValidateAdaptiveBitrate(const AdaptiveBitrateOptions& o) {
  auto bad = [](const char* field, auto value, const char* why) {
    return absl::InvalidArgumentError(absl::StrCat("adaptive bitrate: ", field, " ", value, " ", why));
  };
  if (!(o.floor_fraction > 0 && o.floor_fraction <= 1)) return bad("floor_fraction", o.floor_fraction, "is outside (0, 1]");
  if (o.min_bitrate < 1000) return bad("min_bitrate", o.min_bitrate, "is below 1000 bit/s");
  if (!(o.down_factor > 0 && o.down_factor < 1)) return bad("down_factor", o.down_factor, "is outside (0, 1)");
  if (!(o.up_factor > 1 && o.up_factor <= 4)) return bad("up_factor", o.up_factor, "is outside (1, 4]");
  if (o.clean_queue < MediaTime::Zero()) return bad("clean_queue", o.clean_queue.ToString(), "is negative");
  if (o.congested_queue <= o.clean_queue) {
    return bad("congested_queue", o.congested_queue.ToString(), "must be above clean_queue");
  }
  if (o.down_after <= MediaTime::Zero()) return bad("down_after", o.down_after.ToString(), "must be positive");
  if (o.up_after <= MediaTime::Zero()) return bad("up_after", o.up_after.ToString(), "must be positive");
  return absl::OkStatus();
}

BitrateController::BitrateController(int64_t ceiling, const AdaptiveBitrateOptions& options)
    : options_(options),
      ceiling_(ceiling),
      floor_(std::min(ceiling, std::max(options.min_bitrate,
                                        static_cast<int64_t>(std::llround(ceiling * options.floor_fraction))))),
      bitrate_(ceiling) {}

std::optional<BitrateStep> BitrateController::Update(MediaTime now, const CongestionSample& sample) {
  const bool new_drops = sample.dropped_video > last_dropped_;
  last_dropped_ = std::max(last_dropped_, sample.dropped_video);
  const bool congested = new_drops || sample.queued > options_.congested_queue;
  const bool clean = !new_drops && sample.queued <= options_.clean_queue;
  if (!congested) congested_since_.reset();
  if (!clean) clean_since_.reset();
  if (congested) {
    if (!congested_since_) congested_since_ = now;
    if (now - *congested_since_ < options_.down_after || bitrate_ <= floor_) return std::nullopt;
    // Count the next step's congestion from this one: the queue needs time to
    // drain at the new rate before it says anything about it.
    congested_since_ = now;
    const int64_t to = std::max(floor_, static_cast<int64_t>(std::llround(bitrate_ * options_.down_factor)));
    const BitrateStep step{now, bitrate_, to};
    bitrate_ = to;
    ++steps_down_;
    return step;
  }
  if (clean) {
    if (!clean_since_) clean_since_ = now;
    if (now - *clean_since_ < options_.up_after || bitrate_ >= ceiling_) return std::nullopt;
    clean_since_ = now;
    const int64_t to = std::min(ceiling_, static_cast<int64_t>(std::llround(bitrate_ * options_.up_factor)));
    const BitrateStep step{now, bitrate_, to};
    bitrate_ = to;
    ++steps_up_;
    return step;
  }
  return std::nullopt;
}

}  // namespace lingcast
