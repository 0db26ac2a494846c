#include "app/job_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <map>
#include <cstdlib>
#include <cstdio>
#include <memory>

#include "core/sync.h"
#include "core/status.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

// Counts up until the pipeline drains.
class Counter : public Stage {
 public:
  Counter() : Stage("counter") {}
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    if (draining()) return Flow::kFinished;
    LC_RETURN_IF_ERROR(out.Push(Packet<int>{next_, MediaTime::Millis(next_), {}, clock().Now()}));
    ++next_;
    return Flow::kContinue;
  }

 private:
  int next_ = 0;
};

// Takes everything it is given.
class Sink : public Stage {
 public:
  Sink() : Stage("sink") {}
  In<int> in{this, "in"};
  absl::StatusOr<Flow> Process() override {
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    received.fetch_add(1);
    return Flow::kContinue;
  }
  std::atomic<int> received{0};
};

// A source that never ends on its own and does not drain.
class DrainIgnorer : public Stage {
 public:
  DrainIgnorer() : Stage("drain_ignorer") {}
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    // Ignores draining; only a Stop() (which cancels the push) ends it.
    LC_RETURN_IF_ERROR(out.Push(Packet<int>{0, MediaTime::Millis(n_), {}, clock().Now()}));
    ++n_;
    return Flow::kContinue;
  }

 private:
  int n_ = 0;
};

// A source of type S feeding a Sink, and a runner for them.
template <typename S>
struct Job {
  explicit Job(OnStopSignal on_signal, absl::Duration drain_deadline = absl::Seconds(600));
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline{clock, bus};
  Logger logger{LogLevel::kOff};
  SignalWatcher signals;
  Sink* sink = nullptr;
  std::unique_ptr<JobRunner> runner;
};

// `drain_deadline`: short only where a graph that never drains is tested; a
// graph that drains gets all the time a loaded machine may need.
JobRunnerOptions Fast(OnStopSignal on_signal, absl::Duration drain_deadline) {
  JobRunnerOptions options;
  options.job = "test";
  options.tick = absl::Milliseconds(1);
  options.on_signal = on_signal;
  options.drain_deadline = drain_deadline;
  return options;
}

template <typename S>
Job<S>::Job(OnStopSignal on_signal, absl::Duration drain_deadline) {
  auto& source = pipeline.Add(std::make_unique<S>());
  sink = &pipeline.Add(std::make_unique<Sink>());
  pipeline.Connect(source.out, sink->in, {4, QueuePolicy::kBlock});
  runner = std::make_unique<JobRunner>(pipeline, &signals, logger, Fast(on_signal, drain_deadline));
}

TEST(JobRunnerTest, AStopRequestDrainsTheGraphAndTheJobEndsWell) {
  Job<Counter> job(OnStopSignal::kDrain);
  JobRunner& runner = *job.runner;
  ASSERT_OK(runner.Start());
  int ticks = 0;
  const absl::Status result = runner.Wait([&](const JobTick&) {
    // Once data has flowed: on a loaded machine three ticks can pass before the first packet.
    if (++ticks >= 3 && job.sink->received.load() > 0 && !runner.stop_requested()) runner.RequestStop();
  });
  EXPECT_OK(result);
  EXPECT_GE(ticks, 3);
  EXPECT_TRUE(runner.stop_requested());
  EXPECT_GT(job.sink->received.load(), 0);
}

TEST(JobRunnerTest, AGraphThatDoesNotDrainIsCancelledAfterTheDeadline) {
  Job<DrainIgnorer> job(OnStopSignal::kDrain, absl::Milliseconds(5));
  JobRunner& runner = *job.runner;
  ASSERT_OK(runner.Start());
  runner.RequestStop();
  const absl::Status result = runner.Wait(nullptr);
  EXPECT_EQ(result.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(result.message(), "test did not stop within the deadline after the signal");
}

TEST(JobRunnerTest, StopModeEndsTheGraphAtOnce) {
  Job<DrainIgnorer> job(OnStopSignal::kStop);
  JobRunner& runner = *job.runner;
  ASSERT_OK(runner.Start());
  runner.RequestStop();
  EXPECT_TRUE(job.pipeline.stopping());
  EXPECT_OK(runner.Wait(nullptr));
}

TEST(JobRunnerTest, AFailingStageIsTheJobsResult) {
  class Failing : public Stage {
   public:
    Failing() : Stage("failing") {}
    Out<int> out{this, "out"};
    absl::StatusOr<Flow> Process() override { return absl::DataLossError("the source broke"); }
  };
  Job<Failing> job(OnStopSignal::kDrain);
  JobRunner& runner = *job.runner;
  ASSERT_OK(runner.Start());
  const absl::Status result = runner.Wait(nullptr);
  EXPECT_EQ(result.code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(runner.stop_requested());
}

TEST(JobRunnerTest, WarningsAreCountedByStageAndOnlyTheFirstFewLogged) {
  // Warns about every one of its ten packets, then ends.
  class Warner : public Stage {
   public:
    Warner() : Stage("warner") {}
    Out<int> out{this, "out"};
    absl::StatusOr<Flow> Process() override {
      if (n_ == 10) return Flow::kFinished;
      Warn(absl::UnavailableError("the engine is down; line skipped"));
      LC_RETURN_IF_ERROR(out.Push(Packet<int>{n_, MediaTime::Millis(n_), {}, clock().Now()}));
      ++n_;
      return Flow::kContinue;
    }

   private:
    int n_ = 0;
  };
  char* text = nullptr;
  size_t size = 0;
  std::FILE* log = open_memstream(&text, &size);
  ASSERT_NE(log, nullptr);
  {
    SimulatedClock clock;
    Bus bus;
    Pipeline pipeline{clock, bus};
    Logger logger{LogLevel::kWarning, log};
    auto& source = pipeline.Add(std::make_unique<Warner>());
    auto& sink = pipeline.Add(std::make_unique<Sink>());
    pipeline.Connect(source.out, sink.in, {4, QueuePolicy::kBlock});
    JobRunner runner(pipeline, nullptr, logger, Fast(OnStopSignal::kDrain, absl::Seconds(600)));
    ASSERT_OK(runner.Start());
    EXPECT_OK(runner.Wait(nullptr));
    EXPECT_EQ(runner.warnings(), (std::map<std::string, int64_t>{{"warner", 10}}));
  }
  std::fclose(log);
  const std::string logged(text, size);
  std::free(text);
  int lines = 0;
  for (size_t at = logged.find("line skipped"); at != std::string::npos; at = logged.find("line skipped", at + 1)) ++lines;
  EXPECT_EQ(lines, 3) << logged;
  EXPECT_NE(logged.find("counted in the report"), std::string::npos) << logged;
}

}  // namespace
}  // namespace lingcast
