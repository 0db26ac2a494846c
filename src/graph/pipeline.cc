#include "graph/pipeline.h"

#include <pthread.h>

#include <exception>
#include <string>

#include "absl/strings/str_cat.h"

namespace lingcast {

Pipeline::Pipeline(Clock& clock, Bus& bus, LatencyTracker* latency)
    : clock_(clock), bus_(bus), latency_(latency) {}

Pipeline::~Pipeline() {
  if (!threads_.empty()) {
    Stop();
    Wait().IgnoreError();
  }
}


absl::Status Pipeline::Start() {
  for (size_t i = 0; i < stages_.size(); ++i) {
    Stage& stage = *stages_[i];
    absl::Status status = GuardedOpen(stage);
    if (!status.ok()) {
      for (size_t j = 0; j < i; ++j) stages_[j]->Close().IgnoreError();
      return status;
    }
  }
  threads_.reserve(stages_.size());
  for (auto& stage : stages_) {
    threads_.emplace_back([this, s = stage.get()] { RunStage(*s); });
  }
  return absl::OkStatus();
}

void Pipeline::RunStage(Stage& stage) {
  // Named after the stage, so top -H, perf and gdb show which stage is busy
  // (Linux keeps at most 15 characters).
  pthread_setname_np(pthread_self(), std::string(stage.name()).substr(0, 15).c_str());
  while (!stopping_.load()) {
    absl::StatusOr<Flow> flow = GuardedProcess(stage);
    if (!flow.ok()) {
      // A Cancelled push while stopping is the shutdown itself, not a failure.
      if (!(stopping_.load() && absl::IsCancelled(flow.status()))) Fail(stage, flow.status());
      break;
    }
    if (*flow == Flow::kFinished) break;
  }
  absl::Status closed = GuardedClose(stage);
  if (!closed.ok()) Fail(stage, closed);
  stage.FinishOutputs();
}

void Pipeline::Fail(const Stage& stage, absl::Status status) {
  {
    std::lock_guard lock(mu_);
    if (first_error_.ok()) first_error_ = status;
  }
  bus_.PostError(stage.name(), status, clock_.Now());
  Stop();
}

absl::Status Pipeline::Wait() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  std::lock_guard lock(mu_);
  return first_error_;
}

void Pipeline::Stop() {
  if (stopping_.exchange(true)) return;
  for (auto& stage : stages_) stage->CancelPorts();
}

uint64_t Pipeline::Flush() {
  const uint64_t generation = next_generation_.fetch_add(1);
  for (auto& stage : stages_) {
    if (stage->inputs().empty()) stage->HandleFlush(generation);
  }
  return generation;
}

void Pipeline::Drain() {
  for (auto& stage : stages_) stage->RequestDrain();
}

std::vector<ChannelStats> Pipeline::Stats() const {
  std::vector<ChannelStats> out;
  for (const auto& s : stats_sources_) out.push_back(ChannelStats{s.name, s.options, s.read()});
  return out;
}

}  // namespace lingcast
