// Pipeline: stages wired in code, one thread per stage.
//
//   Pipeline pipeline(clock, bus, &latency);
//   auto& tts = pipeline.Add(std::make_unique<TtsStage>(...));
//   auto& enc = pipeline.Add(std::make_unique<EncodeStage>(...));
//   pipeline.Connect(tts.audio, enc.audio, {64, QueuePolicy::kBlock});
//   LC_RETURN_IF_ERROR(pipeline.Start());
//   absl::Status result = pipeline.Wait();
//
// A stage that fails posts its Status on the bus and stops the whole pipeline;
// Wait() returns that first error. Stop() cancels every queue, so threads
// blocked on a full or empty queue wake at once and the joins finish in
// bounded time. Flush() starts a new generation at every source stage.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "graph/bus.h"
#include "graph/channel.h"
#include "graph/stage.h"

namespace lingcast {

struct ChannelStats {
  std::string name;  // "producer.port->consumer.port"
  QueueOptions options;
  QueueCounters counters;
};

class Pipeline {
 public:
  Pipeline(Clock& clock, Bus& bus, LatencyTracker* latency = nullptr);
  ~Pipeline();  // stops and joins if still running
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  template <typename S>
  S& Add(std::unique_ptr<S> stage) {
    S& ref = *stage;
    stage->Attach(StageContext{&clock_, &bus_, latency_});
    stages_.push_back(std::move(stage));
    return ref;
  }

  // Connects an output to an input. Several outputs may feed one input (fan-in):
  // they share its queue (the first connection's options apply), and its stream
  // ends when the last of them finishes.
  template <typename T>
  void Connect(Out<T>& from, In<T>& to, QueueOptions options = {}) {
    if (to.channel()) {
      from.Connect(to.channel());
      return;
    }
    auto channel = std::make_shared<Channel<T>>(from.qualified_name() + "->" + to.qualified_name(), options);
    from.Connect(channel);
    to.Connect(channel);
    stats_sources_.push_back(StatsSource{channel->name(), [channel] { return channel->queue().counters(); },
                                         options});
  }

  // Opens every stage in the order added, then starts one thread per stage.
  // If an Open() fails, the stages already opened are closed again.
  absl::Status Start();
  // Blocks until every stage thread has ended; the first error, or OK.
  absl::Status Wait();
  // Asks every stage to stop now (queues cancelled, data in flight discarded).
  void Stop();
  // Starts a new generation: older packets are dropped everywhere downstream.
  uint64_t Flush();
  // Asks every stage to wind down gracefully (Stage::draining()): sources end
  // their streams, so the graph finishes what it holds and Wait() returns.
  // Unlike Stop(), nothing in flight is discarded. Thread-safe; any thread.
  void Drain();
  // Where the stages post errors, warnings and events.
  Bus& bus() { return bus_; }

  bool stopping() const { return stopping_.load(); }
  std::vector<ChannelStats> Stats() const;
  const std::vector<std::unique_ptr<Stage>>& stages() const { return stages_; }

 private:
  struct StatsSource {
    std::string name;
    std::function<QueueCounters()> read;
    QueueOptions options;
  };
  void RunStage(Stage& stage);
  void Fail(const Stage& stage, absl::Status status);

  Clock& clock_;
  Bus& bus_;
  LatencyTracker* const latency_;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<StatsSource> stats_sources_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> next_generation_{1};
  std::mutex mu_;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
