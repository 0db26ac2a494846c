// The degradation ladder: what lingcast gives up, in a fixed order, when memory
// or lag runs high, and takes back when the pressure has passed (issue 23's
// watchdog; docs/reliability.md, "Under pressure").
//
// A show that runs out of memory dies and one that falls ever further behind
// the host is useless, so under pressure it is better to lose polish than the
// show. The rungs are taken one at a time, cheapest loss first:
//
//   1. provisional captions off (the draft subtitles of ad-libs);
//   2. a lower output size and frame rate;
//   3. the neural voice replaced by its lighter fallback (espeak-ng);
//   4. no new sessions (the server's process ladder only).
//
// The ladder is pure logic on the caller's clock: it is fed readings and says
// when the level changes. Stepping down waits `step_interval` between rungs so
// one rung can take effect before the next is taken; stepping back up needs
// every reading below its low mark for `recover_after`, one rung at a time, so
// a show does not flap between two levels. Not thread-safe: one owner feeds it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/media_time.h"

namespace lingcast {

enum class DegradationRung : int {
  kNone = 0,
  kDropProvisionalCaptions = 1,
  kLowerVideo = 2,
  kLighterVoice = 3,
  kRefuseNewSessions = 4,
};
inline constexpr int kDegradationRungs = 4;

// "drop_provisional_captions", "lower_video", "lighter_voice", "refuse_new_sessions"; "none".
std::string_view DegradationRungName(int level);

// One look at the process or session; a reading left empty is not watched this time.
struct PressureReading {
  std::optional<double> rss_mb;   // resident memory of the process
  std::optional<double> gpu_mb;   // GPU memory the process holds (none without a GPU)
  std::optional<MediaTime> lag;   // how far the avatar is behind the host
};

// A mark of 0 (or Zero) leaves that reading unwatched.
struct PressureLimits {
  double rss_high_mb = 0;
  double rss_low_mb = 0;
  double gpu_high_mb = 0;
  double gpu_low_mb = 0;
  MediaTime lag_high = MediaTime::Seconds(3);
  MediaTime lag_low = MediaTime::Seconds(1);
  MediaTime step_interval = MediaTime::Seconds(5);   // between two rungs down while pressure lasts
  MediaTime recover_after = MediaTime::Seconds(30);  // all readings low this long: one rung back up
  int max_level = 3;  // a session's ladder stops at the voice; the server's goes to 4
};

// InvalidArgument naming the field when a low mark is not below its high mark,
// a mark is negative, an interval is not positive or max_level is outside 1..4.
absl::Status CheckPressureLimits(const PressureLimits& limits);

struct DegradationChange {
  MediaTime at;
  int from = 0;
  int to = 0;
  std::string reason;  // "lag 4.20 s above 3.00 s", "every reading low for 30.0 s"
};

class DegradationLadder {
 public:
  static absl::StatusOr<DegradationLadder> Create(const PressureLimits& limits);

  // Feeds one reading taken at `now` (never earlier than the previous one);
  // the change when the level moved, else nullopt.
  std::optional<DegradationChange> Observe(MediaTime now, const PressureReading& reading);

  int level() const { return level_; }
  bool at_least(DegradationRung rung) const { return level_ >= static_cast<int>(rung); }
  // How often each rung was taken (index rung - 1) and given back.
  const std::array<int64_t, kDegradationRungs>& taken() const { return taken_; }
  const std::array<int64_t, kDegradationRungs>& given_back() const { return given_back_; }
  // The latest changes, oldest first (at most kKeptChanges; a day-long show keeps its last ones).
  static constexpr size_t kKeptChanges = 64;
  const std::deque<DegradationChange>& recent_changes() const { return changes_; }

 private:
  explicit DegradationLadder(const PressureLimits& limits) : limits_(limits) {}
  // Why the reading is high ("" when it is not), and whether every watched part is low.
  std::string HighReason(const PressureReading& reading) const;
  bool AllLow(const PressureReading& reading) const;
  DegradationChange Move(MediaTime now, int to, std::string reason);

  PressureLimits limits_;
  int level_ = 0;
  std::optional<MediaTime> last_change_;
  std::optional<MediaTime> low_since_;
  std::array<int64_t, kDegradationRungs> taken_{};
  std::array<int64_t, kDegradationRungs> given_back_{};
  std::deque<DegradationChange> changes_;
};

}  // namespace lingcast
