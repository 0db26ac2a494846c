#include "app/live_watchdog.h"

#include "avatar/cuda_support.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "app/degradation_report.h"

namespace lingcast {

std::optional<double> GpuMemoryInUseMb() {
  const absl::StatusOr<CudaMemory> memory = CudaDeviceMemory();
  if (!memory.ok()) return std::nullopt;
  return memory->used_mb;
}

namespace {

constexpr MediaTime kLookEvery = MediaTime::Seconds(1);

const LiveWatchdog::RungAction& ActionOf(const LiveWatchdog::Rungs& rungs, int rung) {
  static const LiveWatchdog::RungAction kNothing;
  switch (rung) {
    case 1:
      return rungs.drop_provisional_captions;
    case 2:
      return rungs.lower_video;
    case 3:
      return rungs.lighter_voice;
    default:
      return kNothing;  // the 4th (new sessions) is the server's own
  }
}

}  // namespace

LiveWatchdog::LiveWatchdog(DegradationLadder ladder, Rungs rungs, ReadingSource source, Logger& logger,
                           LiveMonitor& monitor)
    : rungs_(std::move(rungs)),
      logger_(logger),
      monitor_(monitor),
      ladder_(std::move(ladder)),
      source_(std::move(source)) {}

void LiveWatchdog::SetReadingSource(ReadingSource source) {
  MutexLock lock(&mu_);
  source_ = std::move(source);
}

void LiveWatchdog::Watch() {
  monitor_.SetTickObserver([this](const LiveCounters& counters) { OnOutputTick(counters); });
}

void LiveWatchdog::OnOutputTick(const LiveCounters& counters) {
  const MediaTime now = counters.output_time;
  // Every frame comes here, a look is due once a second: no lock until then.
  if (now.micros() < next_look_us_.load(std::memory_order_relaxed)) return;
  MutexLock lock(&mu_);
  if (now.micros() < next_look_us_.load(std::memory_order_relaxed)) return;  // another tick looked
  next_look_us_.store((now + kLookEvery).micros(), std::memory_order_relaxed);
  const std::optional<DegradationChange> change = ladder_.Observe(now, source_(counters));
  const int level = std::max(ladder_.level(), floor_);
  if (level == applied_) return;
  const int from = applied_;
  Apply(from, level, counters);
  const std::string reason =
      change ? change->reason : absl::StrCat("the server's level is ", floor_);
  logger_.Warn("watchdog", level > from ? "degraded" : "recovered",
               {{"from", std::string(DegradationRungName(from))},
                {"to", std::string(DegradationRungName(level))},
                {"reason", reason},
                {"at_s", absl::StrCat(now.seconds())}});
  if (monitor_.observed()) {
    monitor_.Publish({{"type", "degradation"},
               {"level", level},
               {"rung", DegradationRungName(std::max(level, from))},
               {"taken", level > from},
               {"reason", reason},
               {"at_ms", now.micros() / 1000}});
  }
}

void LiveWatchdog::Apply(int from, int to, const LiveCounters& now) {
  // One rung at a time in order, so the rungs are given back in reverse.
  for (int rung = from + 1; rung <= to; ++rung) {
    if (const RungAction& action = ActionOf(rungs_, rung)) action(true, now);
  }
  for (int rung = from; rung > to; --rung) {
    if (const RungAction& action = ActionOf(rungs_, rung)) action(false, now);
  }
  applied_ = to;
  deepest_ = std::max(deepest_, to);
}

void LiveWatchdog::SetFloor(int level) {
  MutexLock lock(&mu_);
  floor_ = std::clamp(level, 0, kDegradationRungs - 1);
}

int LiveWatchdog::level() const {
  MutexLock lock(&mu_);
  return applied_;
}

nlohmann::json LiveWatchdog::Report() const {
  MutexLock lock(&mu_);
  // A session's rungs end at the voice; the fourth is the server's.
  nlohmann::json report = RungCounts(ladder_, static_cast<int>(DegradationRung::kLighterVoice));
  nlohmann::json changes = nlohmann::json::array();
  for (const DegradationChange& c : ladder_.recent_changes()) {
    changes.push_back({{"at_ms", c.at.micros() / 1000},
                       {"from", DegradationRungName(c.from)},
                       {"to", DegradationRungName(c.to)},
                       {"reason", c.reason}});
  }
  report["level"] = applied_;
  report["rung"] = DegradationRungName(applied_);
  report["deepest"] = DegradationRungName(deepest_);
  report["floor"] = floor_;
  report["changes"] = std::move(changes);
  return report;
}

VideoFormat LowerVideoRung::Lowered(const VideoFormat& now) {
  VideoFormat lowered = now;
  const int width = now.width / 2 / 2 * 2, height = now.height / 2 / 2 * 2;
  if (CheckFrameSize(width, height).ok()) {
    lowered.width = width;
    lowered.height = height;
  }
  if (now.fps > 15) lowered.fps = std::max(15, now.fps / 2);
  return lowered;
}

void LowerVideoRung::Act(bool taken, const LiveCounters& now) {
  MutexLock lock(&mu_);
  if (taken) {
    before_ = now.video;
    const VideoFormat lowered = Lowered(now.video);
    if (lowered != now.video) pending_.push_back({lowered.width, lowered.height, lowered.fps});
  } else if (before_) {
    pending_.push_back({before_->width, before_->height, before_->fps});
    before_.reset();
  }
}

std::vector<VideoChange> LowerVideoRung::TakeChanges() {
  MutexLock lock(&mu_);
  return std::exchange(pending_, {});
}

}  // namespace lingcast
