// Stage: one step of a pipeline, run on its own thread by the Pipeline (or
// step by step by a StageHarness in tests).
//
// A stage declares typed ports as members:
//
//   class Upper : public Stage {
//    public:
//     Upper() : Stage("upper") {}
//     In<std::string> in{this, "in"};
//     Out<std::string> out{this, "out"};
//     absl::StatusOr<Flow> Process() override {
//       auto p = in.Pop();
//       if (!p) return Flow::kFinished;          // end of stream
//       LC_RETURN_IF_ERROR(out.Push(p->Derive(ToUpper(p->value))));
//       return Flow::kContinue;
//     }
//   };
//
// In<T>::Pop() hides control messages: a Flush updates the stage's generation,
// calls OnFlush() and is forwarded to every output before any newer data;
// packets of older generations are dropped (and counted). Out<T>::Push() stamps
// the generation and records latency (clock.Now() - origin) per boundary.
// A stage holds no locks across a push.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/clock.h"
#include "core/latency_tracker.h"
#include "graph/bus.h"
#include "graph/channel.h"
#include "graph/packet.h"

namespace lingcast {

class Stage;

// What Process() tells its runner.
enum class Flow { kContinue, kFinished };

// Where a stage runs: shared services handed in by the Pipeline or harness.
struct StageContext {
  Clock* clock = nullptr;
  Bus* bus = nullptr;
  LatencyTracker* latency = nullptr;  // optional
};

class InputPort {
 public:
  InputPort(Stage* owner, std::string name);
  virtual ~InputPort() = default;
  const std::string& name() const { return name_; }
  std::string qualified_name() const;  // "stage.port"
  virtual bool connected() const = 0;
  virtual QueueCounters counters() const = 0;
  virtual void Cancel() = 0;

 protected:
  Stage* const owner_;  // not owned: ports are members of their stage
  const std::string name_;
};

class OutputPort {
 public:
  OutputPort(Stage* owner, std::string name);
  virtual ~OutputPort() = default;
  const std::string& name() const { return name_; }
  std::string qualified_name() const;  // "stage.port"
  virtual void ForwardFlush(uint64_t generation) = 0;
  virtual void Finish() = 0;  // end of stream for every connected channel
  virtual void Cancel() = 0;

 protected:
  Stage* const owner_;
  const std::string name_;
};

class Stage {
 public:
  explicit Stage(std::string name) : name_(std::move(name)) {}
  virtual ~Stage() = default;
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  const std::string& name() const { return name_; }

  virtual absl::Status Open() { return absl::OkStatus(); }
  // Does one unit of work; returns kFinished at end of stream.
  virtual absl::StatusOr<Flow> Process() = 0;
  virtual absl::Status Close() { return absl::OkStatus(); }
  // Called when a Flush of a newer generation arrives, before it is forwarded
  // downstream: drop partial state here. Runs on the stage's own thread, except
  // for source stages (no inputs), where it runs on the thread calling
  // Pipeline::Flush(); sources should only note the new generation.
  virtual void OnFlush(uint64_t /*generation*/) {}

  // Pipeline::Drain(): the job is winding down gracefully. A source stops
  // taking input and ends its stream; a stage may drop work it has not begun.
  // Data already in flight is still processed. Read from the stage's own thread.
  bool draining() const { return draining_.load(); }
  void RequestDrain() { draining_.store(true); }

  uint64_t generation() const { return generation_.load(); }
  int64_t stale_dropped() const { return stale_dropped_.load(); }
  const std::vector<InputPort*>& inputs() const { return inputs_; }
  const std::vector<OutputPort*>& outputs() const { return outputs_; }

  // Plumbing for Pipeline, StageHarness and ports.
  void Attach(const StageContext& context) { context_ = context; }
  const StageContext& context() const { return context_; }
  void HandleFlush(uint64_t generation);
  void CountStale() { stale_dropped_.fetch_add(1); }
  void FinishOutputs();
  void CancelPorts();

 protected:
  Clock& clock() const { return *context_.clock; }
  Bus& bus() const { return *context_.bus; }
  // A recoverable failure (something dropped or skipped; the stage goes on),
  // on the bus for the job to count and log. Before Attach(): nowhere.
  void Warn(absl::Status status) const {
    if (context_.bus != nullptr) context_.bus->PostWarning(name_, std::move(status), clock().Now());
  }

 private:
  friend class InputPort;
  friend class OutputPort;

  const std::string name_;
  StageContext context_;
  std::vector<InputPort*> inputs_;
  std::vector<OutputPort*> outputs_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> stale_dropped_{0};
  std::atomic<bool> draining_{false};
};

// Stage calls as the Pipeline (and StageHarness) make them: exceptions thrown
// by libraries inside a stage do not cross the stage boundary; they become an
// Internal Status naming the stage.
absl::Status GuardedOpen(Stage& stage);
absl::StatusOr<Flow> GuardedProcess(Stage& stage);
absl::Status GuardedClose(Stage& stage);

template <typename T>
class In final : public InputPort {
 public:
  In(Stage* owner, std::string name) : InputPort(owner, std::move(name)) {}

  // The next packet of the current generation; nullopt at end of stream (or
  // when the pipeline is stopping, or when nothing is connected).
  std::optional<Packet<T>> Pop() { return Next(/*wait=*/true); }

  // Like Pop() but never waits: nullopt when nothing is queued now. ended()
  // tells that apart from the end of the stream.
  std::optional<Packet<T>> TryPop() { return Next(/*wait=*/false); }

  // True once every writer finished and everything queued was taken (or the
  // pipeline is stopping, or nothing is connected).
  bool ended() const { return !channel_ || channel_->queue().drained(); }

  void Connect(std::shared_ptr<Channel<T>> channel) { channel_ = std::move(channel); }
  // The channel this input reads (shared by every output connected to it).
  const std::shared_ptr<Channel<T>>& channel() const { return channel_; }
  bool connected() const override { return channel_ != nullptr; }
  QueueCounters counters() const override { return channel_ ? channel_->queue().counters() : QueueCounters{}; }
  void Cancel() override {
    if (channel_) channel_->queue().Cancel();
  }

 private:
  // Control messages are handled here, on the way: a Flush moves the stage to
  // its generation; packets of older generations are dropped and counted.
  std::optional<Packet<T>> Next(bool wait) {
    if (!channel_) return std::nullopt;
    while (auto message = wait ? channel_->queue().Pop() : channel_->queue().TryPop()) {
      if (auto* flush = std::get_if<FlushControl>(&*message)) {
        if (flush->generation > owner_->generation()) owner_->HandleFlush(flush->generation);
        continue;
      }
      auto& packet = std::get<Packet<T>>(*message);
      if (packet.generation < owner_->generation()) {
        owner_->CountStale();
        continue;
      }
      return std::move(packet);
    }
    return std::nullopt;
  }

  std::shared_ptr<Channel<T>> channel_;
};

template <typename T>
class Out final : public OutputPort {
 public:
  Out(Stage* owner, std::string name)
      : OutputPort(owner, std::move(name)), boundary_(owner->name() + "." + name_) {}

  // Sends a packet to every connected input. OK also when a lossy policy
  // dropped it (the queue counts drops); Cancelled when the pipeline is stopping.
  absl::Status Push(Packet<T> packet) {
    packet.generation = owner_->generation();
    const StageContext& ctx = owner_->context();
    if (ctx.latency != nullptr && ctx.clock != nullptr) {
      ctx.latency->Record(boundary_, ctx.clock->Now() - packet.origin);
    }
    for (size_t i = 0; i < channels_.size(); ++i) {
      const bool last = i + 1 == channels_.size();
      const PushResult r = channels_[i]->PushPacket(last ? std::move(packet) : packet);
      if (r == PushResult::kClosed) return absl::CancelledError("pipeline is stopping");
    }
    return absl::OkStatus();
  }

  void Connect(std::shared_ptr<Channel<T>> channel) {
    channel->AddWriter();
    channels_.push_back(std::move(channel));
  }
  bool connected() const { return !channels_.empty(); }
  void ForwardFlush(uint64_t generation) override {
    for (auto& c : channels_) c->PushFlush(generation);
  }
  void Finish() override {
    if (finished_) return;
    finished_ = true;
    for (auto& c : channels_) c->WriterDone();
  }
  void Cancel() override {
    for (auto& c : channels_) c->queue().Cancel();
  }

 private:
  const std::string boundary_;
  // Wired before the pipeline starts and never changed while it runs.
  std::vector<std::shared_ptr<Channel<T>>> channels_;
  bool finished_ = false;  // touched only by the stage's own thread
};

}  // namespace lingcast
