#include "app/serve_watchdog.h"

#include "avatar/cuda_support.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "app/degradation_report.h"

namespace lingcast {
namespace {

// The cgroup v2 limit of this process, in MB; nullopt for none ("max") or none readable.
std::optional<double> CgroupLimitMb() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  uint64_t bytes = 0;
  if (!(in >> text) || !absl::SimpleAtoi(text, &bytes) || bytes == 0) return std::nullopt;
  return static_cast<double>(bytes) / (1024 * 1024);
}

std::optional<double> MachineMemoryMb() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") return static_cast<double>(kib) / 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<double, double>> AutoMemoryMarksMb() {
  std::optional<double> limit = MachineMemoryMb();
  if (const std::optional<double> cgroup = CgroupLimitMb(); cgroup && (!limit || *cgroup < *limit)) limit = cgroup;
  if (!limit || *limit <= 0) return std::nullopt;
  return std::make_pair(0.85 * *limit, 0.75 * *limit);
}

std::optional<std::pair<double, double>> AutoGpuMemoryMarksMb() {
  const absl::StatusOr<CudaMemory> memory = CudaDeviceMemory();
  if (!memory.ok() || memory->total_mb <= 0) return std::nullopt;
  return std::make_pair(0.90 * memory->total_mb, 0.80 * memory->total_mb);
}

absl::StatusOr<std::unique_ptr<ServeWatchdog>> ServeWatchdog::Create(PressureLimits limits, SessionManager& sessions,
                                                                     Logger& logger, ReadingSource source) {
  limits.max_level = kDegradationRungs;
  absl::StatusOr<DegradationLadder> ladder = DegradationLadder::Create(limits);
  if (!ladder.ok()) return ladder.status();
  return std::unique_ptr<ServeWatchdog>(
      new ServeWatchdog(*std::move(ladder), sessions, logger, std::move(source)));
}

ServeWatchdog::ServeWatchdog(DegradationLadder ladder, SessionManager& sessions, Logger& logger, ReadingSource source)
    : sessions_(sessions), logger_(logger), source_(std::move(source)), ladder_(std::move(ladder)) {}

void ServeWatchdog::Look(MediaTime now) {
  const PressureReading reading = source_();
  MutexLock lock(&mu_);
  const std::optional<DegradationChange> change = ladder_.Observe(now, reading);
  if (!change) return;
  const int level = ladder_.level();
  const bool refuse = level >= static_cast<int>(DegradationRung::kRefuseNewSessions);
  sessions_.SetDegradation(std::min(level, kDegradationRungs - 1), refuse,
                           absl::StrCat("the server is under pressure (", change->reason,
                                        "): no new sessions until it passes"));
  logger_.Warn("watchdog", change->to > change->from ? "server degraded" : "server recovered",
               {{"from", std::string(DegradationRungName(change->from))},
                {"to", std::string(DegradationRungName(change->to))},
                {"reason", change->reason}});
}

int ServeWatchdog::level() const {
  MutexLock lock(&mu_);
  return ladder_.level();
}

nlohmann::json ServeWatchdog::Report() const {
  MutexLock lock(&mu_);
  nlohmann::json report = RungCounts(ladder_, kDegradationRungs);
  report["level"] = ladder_.level();
  return report;
}

}  // namespace lingcast
