// BitrateController: adaptive bitrate for a live encode that feeds network
// outputs. When the network cannot carry the stream, the send queue grows and
// the queue drops video frames (live_queue.h); stepping the encoder's bitrate
// down makes the link carry every frame again at lower quality, and stepping
// back up after a clean period restores the quality once the link recovers.
//
// Fed one sample per video frame with the worst send queue among the connected
// network outputs, on the media timeline (which is the wall clock in a live
// run, and a test's own stepping elsewhere):
// - congested: more than `congested_queue` of video queued, or a congestion
//   drop since the previous sample. Held for `down_after`, the bitrate steps
//   down by `down_factor` (never below the floor), and again after each
//   further `down_after` the congestion lasts.
// - clean: at most `clean_queue` queued and no new drop. Held for `up_after`,
//   the bitrate steps up by `up_factor` (never above the configured bitrate,
//   the ceiling), and again after each further `up_after`.
// Anything between the two marks restarts both counts. Not thread-safe: the
// OutputSet's writing thread owns it.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "core/media_time.h"

namespace lingcast {

struct AdaptiveBitrateOptions {
  // On by default for an encode with a target bitrate and a network output.
  bool enabled = true;
  // Floor: this fraction of the configured bitrate, and never below min_bitrate.
  double floor_fraction = 0.25;
  int64_t min_bitrate = 150'000;
  double down_factor = 0.7;
  double up_factor = 1.15;
  MediaTime congested_queue = MediaTime::Millis(350);
  MediaTime clean_queue = MediaTime::Millis(100);
  MediaTime down_after = MediaTime::Seconds(1);
  MediaTime up_after = MediaTime::Seconds(10);
};

// InvalidArgument naming the field and value.
absl::Status ValidateAdaptiveBitrate(const AdaptiveBitrateOptions& options);

struct CongestionSample {
  MediaTime queued;           // the largest send queue (of video) among connected outputs
  int64_t dropped_video = 0;  // congestion drops so far, summed over the outputs
};

struct BitrateStep {
  MediaTime at;  // media time of the frame it applies from
  int64_t from = 0;
  int64_t to = 0;
  bool down() const { return to < from; }
};

class BitrateController {
 public:
  // `ceiling`: the configured bitrate, where the encode starts. Options validated.
  BitrateController(int64_t ceiling, const AdaptiveBitrateOptions& options);

  // The step to apply from the frame at `now`, if any.
  std::optional<BitrateStep> Update(MediaTime now, const CongestionSample& sample);

  int64_t bitrate() const { return bitrate_; }
  int64_t floor() const { return floor_; }
  int64_t ceiling() const { return ceiling_; }
  int64_t steps_down() const { return steps_down_; }
  int64_t steps_up() const { return steps_up_; }

 private:
  const AdaptiveBitrateOptions options_;
  const int64_t ceiling_;
  const int64_t floor_;
  int64_t bitrate_;
  int64_t last_dropped_ = 0;
  std::optional<MediaTime> congested_since_;
  std::optional<MediaTime> clean_since_;
  int64_t steps_down_ = 0;
  int64_t steps_up_ = 0;
};

}  // namespace lingcast
