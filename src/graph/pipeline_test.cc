#include "graph/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/sync.h"
#include "core/status.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

// Emits 0, 1, 2, ... count-1 with 10 ms pts steps.
class CounterSource : public Stage {
 public:
  explicit CounterSource(int count) : Stage("source"), count_(count) {}
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    if (next_ == count_) return Flow::kFinished;
    const MediaTime pts = MediaTime::Millis(10 * next_);
    LC_RETURN_IF_ERROR(out.Push(Packet<int>{next_++, pts, MediaTime::Millis(10), clock().Now()}));
    return Flow::kContinue;
  }

 private:
  const int count_;
  int next_ = 0;
};

// Doubles values; fails when it sees `fail_on`.
class Doubler : public Stage {
 public:
  explicit Doubler(int fail_on = -1) : Stage("doubler"), fail_on_(fail_on) {}
  In<int> in{this, "in"};
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    if (p->value == fail_on_) return absl::DataLossError("doubler cannot take " + std::to_string(fail_on_));
    LC_RETURN_IF_ERROR(out.Push(p->Derive(p->value * 2)));
    return Flow::kContinue;
  }

 private:
  const int fail_on_;
};

class Collector : public Stage {
 public:
  Collector() : Stage("sink") {}
  In<int> in{this, "in"};
  absl::StatusOr<Flow> Process() override {
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    values.push_back(p->value);
    return Flow::kContinue;
  }
  std::vector<int> values;  // read after Wait()
};

TEST(PipelineTest, RunsStagesToEndOfStream) {
  SimulatedClock clock;
  Bus bus;
  LatencyTracker latency;
  Pipeline pipeline(clock, bus, &latency);
  auto& source = pipeline.Add(std::make_unique<CounterSource>(1000));
  auto& doubler = pipeline.Add(std::make_unique<Doubler>());
  auto& sink = pipeline.Add(std::make_unique<Collector>());
  pipeline.Connect(source.out, doubler.in, {4, QueuePolicy::kBlock});
  pipeline.Connect(doubler.out, sink.in, {4, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  ASSERT_OK(pipeline.Wait());
  ASSERT_EQ(sink.values.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sink.values[i], 2 * i);
  EXPECT_EQ(latency.Summary("doubler.out").count, 1000);
  const auto stats = pipeline.Stats();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "source.out->doubler.in");
  EXPECT_EQ(stats[0].counters.pushed, 1000);
  EXPECT_EQ(stats[0].counters.dropped, 0);
}

TEST(PipelineTest, SeveralOutputsCanFeedOneInput) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& a = pipeline.Add(std::make_unique<CounterSource>(100));
  auto& b = pipeline.Add(std::make_unique<CounterSource>(50));
  auto& sink = pipeline.Add(std::make_unique<Collector>());
  pipeline.Connect(a.out, sink.in, {4, QueuePolicy::kBlock});
  pipeline.Connect(b.out, sink.in, {4, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  ASSERT_OK(pipeline.Wait());  // ends only after both sources finished
  EXPECT_EQ(sink.values.size(), 150u);
  ASSERT_EQ(pipeline.Stats().size(), 1u);
  EXPECT_EQ(pipeline.Stats()[0].counters.pushed, 150);
}

TEST(PipelineTest, AFailingStageStopsThePipelineWithItsStatusOnTheBus) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& source = pipeline.Add(std::make_unique<CounterSource>(1'000'000));
  auto& doubler = pipeline.Add(std::make_unique<Doubler>(/*fail_on=*/50));
  auto& sink = pipeline.Add(std::make_unique<Collector>());
  pipeline.Connect(source.out, doubler.in, {4, QueuePolicy::kBlock});
  pipeline.Connect(doubler.out, sink.in, {4, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  const absl::Status result = pipeline.Wait();
  EXPECT_EQ(result.code(), absl::StatusCode::kDataLoss);
  const auto messages = bus.Drain();
  ASSERT_EQ(messages.size(), 1u);  // the stopping stages do not add noise
  EXPECT_EQ(messages[0].kind, BusMessage::Kind::kError);
  EXPECT_EQ(messages[0].source, "doubler");
  EXPECT_EQ(messages[0].status.code(), absl::StatusCode::kDataLoss);
  // Everything before the failure reached the sink, nothing after it.
  ASSERT_LE(sink.values.size(), 50u);
  for (size_t i = 0; i < sink.values.size(); ++i) EXPECT_EQ(sink.values[i], static_cast<int>(2 * i));
}

// Blocks in Process() on a queue that never fills, like a stage stuck waiting.
class StuckConsumer : public Stage {
 public:
  StuckConsumer() : Stage("stuck") {}
  In<int> in{this, "in"};
  In<int> never{this, "never"};
  absl::StatusOr<Flow> Process() override {
    started.Notify();
    if (!never.Pop()) return Flow::kFinished;  // waits forever until cancelled
    return Flow::kContinue;
  }
  Notification started;
};

TEST(PipelineTest, ShutdownWithFullQueuesAndBlockedStagesJoins) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& source = pipeline.Add(std::make_unique<CounterSource>(1'000'000));
  auto& stuck = pipeline.Add(std::make_unique<StuckConsumer>());
  auto& idle = pipeline.Add(std::make_unique<CounterSource>(0));
  pipeline.Connect(source.out, stuck.in, {2, QueuePolicy::kBlock});
  pipeline.Connect(idle.out, stuck.never, {2, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  stuck.started.WaitForNotification();
  // Wait until the source is blocked on the full queue.
  while (pipeline.Stats()[0].counters.size < 2) std::this_thread::yield();
  pipeline.Stop();
  EXPECT_OK(pipeline.Wait());  // returns: no deadlock (ctest's timeout is the bound)
}

// A source that emits values forever until told the generation changed.
class GatedSource : public Stage {
 public:
  GatedSource() : Stage("gated") {}
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    const auto item = script.Pop();
    if (!item) return Flow::kFinished;
    LC_RETURN_IF_ERROR(out.Push(Packet<int>{*item, MediaTime::Millis(*item), {}, clock().Now()}));
    return Flow::kContinue;
  }
  BoundedQueue<int> script{{64, QueuePolicy::kBlock}};
};

class GateSink : public Stage {
 public:
  GateSink() : Stage("gate_sink") {}
  In<int> in{this, "in"};
  absl::StatusOr<Flow> Process() override {
    if (!gate_open.HasBeenNotified()) gate_open.WaitForNotification();
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    values.push_back(p->value);
    return Flow::kContinue;
  }
  void OnFlush(uint64_t generation) override { flushes.push_back(generation); }
  Notification gate_open;
  std::vector<int> values;
  std::vector<uint64_t> flushes;
};

TEST(PipelineTest, FlushDiscardsOldGenerationPacketsDownstream) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& source = pipeline.Add(std::make_unique<GatedSource>());
  auto& doubler = pipeline.Add(std::make_unique<Doubler>());
  auto& sink = pipeline.Add(std::make_unique<GateSink>());
  pipeline.Connect(source.out, doubler.in, {64, QueuePolicy::kBlock});
  pipeline.Connect(doubler.out, sink.in, {64, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  // Old-generation packets pile up behind the closed gate...
  for (int i = 0; i < 10; ++i) source.script.Push(i);
  while (pipeline.Stats()[1].counters.pushed < 10) std::this_thread::yield();
  // ...then a flush starts generation 1, and new packets follow it.
  const uint64_t generation = pipeline.Flush();
  EXPECT_EQ(generation, 1u);
  for (int i = 100; i < 103; ++i) source.script.Push(i);
  source.script.Close();
  // The flush travels stage by stage; once it reaches the sink's queue it has
  // purged the old packets there.
  while (pipeline.Stats()[1].counters.purged < 10) std::this_thread::yield();
  sink.gate_open.Notify();
  ASSERT_OK(pipeline.Wait());
  EXPECT_EQ(sink.values, (std::vector<int>{200, 202, 204}));
  EXPECT_EQ(sink.flushes, (std::vector<uint64_t>{1}));
  EXPECT_EQ(pipeline.Stats()[1].counters.purged, 10);
}

// Counts up until the pipeline drains, then ends its stream.
class EndlessSource : public Stage {
 public:
  EndlessSource() : Stage("endless") {}
  Out<int> out{this, "out"};
  absl::StatusOr<Flow> Process() override {
    if (draining()) return Flow::kFinished;
    LC_RETURN_IF_ERROR(out.Push(Packet<int>{next_, MediaTime::Millis(next_), {}, clock().Now()}));
    pushed.store(++next_);
    return Flow::kContinue;
  }
  std::atomic<int> pushed{0};

 private:
  int next_ = 0;
};

TEST(PipelineTest, DrainEndsTheSourcesAndDeliversEverythingInFlight) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& source = pipeline.Add(std::make_unique<EndlessSource>());
  auto& doubler = pipeline.Add(std::make_unique<Doubler>());
  auto& sink = pipeline.Add(std::make_unique<GateSink>());
  pipeline.Connect(source.out, doubler.in, {8, QueuePolicy::kBlock});
  pipeline.Connect(doubler.out, sink.in, {8, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  // Both queues fill behind the closed gate, so the source blocks on a push.
  // Waiting on the source's own count, not on two queue readings: the doubler
  // moves a packet between the readings, so both queues can read full while the
  // source has pushed 15 and sits between Process() calls, where a drain ends it.
  while (source.pushed.load() < 16) std::this_thread::yield();
  pipeline.Drain();
  sink.gate_open.Notify();
  ASSERT_OK(pipeline.Wait());
  // Every value the source pushed arrived, in order: a drain discards nothing.
  const int pushed = source.pushed.load();
  ASSERT_GE(pushed, 16);
  ASSERT_EQ(sink.values.size(), static_cast<size_t>(pushed));
  for (int i = 0; i < pushed; ++i) EXPECT_EQ(sink.values[i], 2 * i);
}

// Records each packet's generation as it arrives.
class GenerationSink : public Stage {
 public:
  GenerationSink() : Stage("generation_sink") {}
  In<int> in{this, "in"};
  absl::StatusOr<Flow> Process() override {
    auto p = in.Pop();
    if (!p) return Flow::kFinished;
    arrivals.push_back({p->value, p->generation, generation()});
    return Flow::kContinue;
  }
  void OnFlush(uint64_t generation) override { flushes.push_back(generation); }
  struct Arrival {
    int value;
    uint64_t packet_generation;
    uint64_t stage_generation;
  };
  std::vector<Arrival> arrivals;
  std::vector<uint64_t> flushes;
};

// Flushes racing with a stream of data: a flush is never overtaken by older
// data, no stale packet reaches the sink, and the order of what passes is kept.
TEST(PipelineTest, ManyFlushesAgainstAStreamOfDataKeepGenerationsInOrder) {
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  auto& source = pipeline.Add(std::make_unique<EndlessSource>());
  auto& doubler = pipeline.Add(std::make_unique<Doubler>());
  auto& sink = pipeline.Add(std::make_unique<GenerationSink>());
  pipeline.Connect(source.out, doubler.in, {4, QueuePolicy::kBlock});
  pipeline.Connect(doubler.out, sink.in, {4, QueuePolicy::kBlock});
  ASSERT_OK(pipeline.Start());
  constexpr int kFlushes = 300;
  uint64_t last = 0;
  for (int i = 0; i < kFlushes; ++i) {
    const int before = source.pushed.load();
    last = pipeline.Flush();
    while (source.pushed.load() < before + 2) std::this_thread::yield();  // some data between flushes
  }
  pipeline.Drain();
  ASSERT_OK(pipeline.Wait());
  EXPECT_EQ(last, static_cast<uint64_t>(kFlushes));
  // Every flush reached the sink, in order (none lost, none reordered).
  ASSERT_EQ(sink.flushes.size(), static_cast<size_t>(kFlushes));
  for (int i = 0; i < kFlushes; ++i) EXPECT_EQ(sink.flushes[i], static_cast<uint64_t>(i + 1));
  ASSERT_FALSE(sink.arrivals.empty());
  for (size_t i = 0; i < sink.arrivals.size(); ++i) {
    const auto& a = sink.arrivals[i];
    EXPECT_EQ(a.packet_generation, a.stage_generation) << "a stale packet passed at " << i;
    if (i > 0) {
      EXPECT_GT(a.value, sink.arrivals[i - 1].value) << "order lost at " << i;
      EXPECT_GE(a.packet_generation, sink.arrivals[i - 1].packet_generation);
    }
  }
  // Data of the newest generation passes once the flushes end.
  EXPECT_EQ(sink.arrivals.back().packet_generation, static_cast<uint64_t>(kFlushes));
}

TEST(PipelineTest, FailedOpenClosesWhatWasOpened) {
  class Opener : public Stage {
   public:
    Opener(std::string name, bool fail, int* closes) : Stage(std::move(name)), fail_(fail), closes_(closes) {}
    absl::Status Open() override { return fail_ ? absl::NotFoundError("no voice") : absl::OkStatus(); }
    absl::StatusOr<Flow> Process() override { return Flow::kFinished; }
    absl::Status Close() override { ++*closes_; return absl::OkStatus(); }
   private:
    bool fail_;
    int* closes_;
  };
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  int closes = 0;
  pipeline.Add(std::make_unique<Opener>("a", false, &closes));
  pipeline.Add(std::make_unique<Opener>("b", true, &closes));
  EXPECT_EQ(pipeline.Start().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(closes, 1);
}

TEST(PipelineTest, ExceptionsBecomeStatus) {
  class Thrower : public Stage {
   public:
    Thrower() : Stage("thrower") {}
    absl::StatusOr<Flow> Process() override { throw std::runtime_error("library blew up"); }
  };
  SimulatedClock clock;
  Bus bus;
  Pipeline pipeline(clock, bus);
  pipeline.Add(std::make_unique<Thrower>());
  ASSERT_OK(pipeline.Start());
  const absl::Status s = pipeline.Wait();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("library blew up"), absl::string_view::npos);
}

}  // namespace
}  // namespace lingcast
