#include "app/job_runner.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/process_stats.h"
#include "core/sync.h"

namespace lingcast {

JobRunner::JobRunner(Pipeline& pipeline, SignalWatcher* signals, Logger& logger, JobRunnerOptions options)
    : pipeline_(pipeline), signals_(signals), logger_(logger), options_(std::move(options)) {}

JobRunner::~JobRunner() {
  if (signals_ != nullptr) signals_->SetHandler(nullptr);
}

absl::Status JobRunner::Start() {
  if (signals_ != nullptr) signals_->SetHandler([this](int) { RequestStop(); });
  started_at_ = std::chrono::steady_clock::now();
  cpu_at_start_ = ProcessCpuSeconds();
  rss_start_mb_ = CurrentRssMb();
  return pipeline_.Start();
}

void JobRunner::RequestStop() {
  int64_t none = 0;
  signalled_at_.compare_exchange_strong(none, std::chrono::steady_clock::now().time_since_epoch().count());
  if (options_.on_signal == OnStopSignal::kStop) {
    pipeline_.Stop();
  } else {
    pipeline_.Drain();
  }
}

bool JobRunner::DrainOverdue(std::chrono::steady_clock::time_point now) const {
  const int64_t signalled = signalled_at_.load();
  if (options_.on_signal != OnStopSignal::kDrain || signalled == 0) return false;
  const auto deadline = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(options_.drain_deadline));
  return now.time_since_epoch().count() - signalled > deadline.count();
}

absl::Status JobRunner::Wait(const std::function<void(const JobTick&)>& on_tick) {
  Notification done;
  absl::Status result;
  std::thread waiter([&] {
    result = pipeline_.Wait();
    done.Notify();
  });
  double last_cpu = cpu_at_start_;
  auto last_tick = started_at_;
  bool cancelled = false;
  while (!done.WaitForNotificationWithTimeout(options_.tick)) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = ProcessCpuSeconds();
    const double since_last = std::chrono::duration<double>(now - last_tick).count();
    JobTick tick;
    tick.cpu_percent = since_last > 0 ? 100.0 * (cpu - last_cpu) / since_last : 0;
    tick.wall_seconds = std::chrono::duration<double>(now - started_at_).count();
    last_cpu = cpu;
    last_tick = now;
    TakeWarnings();
    if (on_tick) on_tick(tick);
    if (!cancelled && DrainOverdue(now)) {
      logger_.Warn(options_.job, "the pipeline did not wind down in time after the stop signal; cancelling it");
      pipeline_.Stop();
      cancelled = true;
    }
  }
  waiter.join();
  TakeWarnings();
  if (cancelled) {
    return absl::DeadlineExceededError(absl::StrCat(options_.job, " did not stop within the deadline after the signal"));
  }
  return result;
}

void JobRunner::TakeWarnings() {
  // A stage that fails the same way on every line must not flood the log: the
  // first few of each stage are logged, the rest only counted.
  constexpr int64_t kLoggedPerStage = 3;
  for (const BusMessage& message : pipeline_.bus().Drain()) {
    if (message.kind != BusMessage::Kind::kWarning) continue;  // errors come back from Wait()
    int64_t seen = 0;
    {
      std::lock_guard<std::mutex> lock(warnings_mu_);
      seen = ++warnings_[message.source];
    }
    if (seen <= kLoggedPerStage) {
      logger_.Warn(message.source, std::string(message.status.message()),
                   {{"job", options_.job}, {"code", absl::StatusCodeToString(message.status.code())}});
    }
    if (seen == kLoggedPerStage) {
      logger_.Warn(message.source, "more warnings from this stage are counted in the report, not logged",
                   {{"job", options_.job}});
    }
  }
}

std::map<std::string, int64_t> JobRunner::warnings() const {
  std::lock_guard<std::mutex> lock(warnings_mu_);
  return warnings_;
}

double JobRunner::wall_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_at_).count();
}

double JobRunner::cpu_percent() const {
  const double wall = wall_seconds();
  return wall > 0 ? 100.0 * (ProcessCpuSeconds() - cpu_at_start_) / wall : 0;
}

}  // namespace lingcast
