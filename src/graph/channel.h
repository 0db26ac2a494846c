// Channel<T>: one connection between stages: a BoundedQueue of messages,
// where a message is a data Packet<T> or a control message on the priority lane.
//
// Control semantics:
//  - Flush(generation) overtakes queued data and purges queued packets of older
//    generations, so an interruption takes effect at once downstream.
//  - EOS travels in order, after the data (the queue is closed once every
//    writer has finished), so nothing queued before it is lost.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "graph/packet.h"
#include "graph/queue.h"

namespace lingcast {

struct FlushControl {
  uint64_t generation = 0;
};

template <typename T>
using ChannelMessage = std::variant<Packet<T>, FlushControl>;

template <typename T>
class Channel {
 public:
  Channel(std::string name, QueueOptions options) : name_(std::move(name)), queue_(options) {}

  const std::string& name() const { return name_; }
  BoundedQueue<ChannelMessage<T>>& queue() { return queue_; }

  PushResult PushPacket(Packet<T> packet) { return queue_.Push(ChannelMessage<T>(std::move(packet))); }

  bool PushFlush(uint64_t generation) {
    return queue_.PushPriority(ChannelMessage<T>(FlushControl{generation}),
                               [generation](const ChannelMessage<T>& m) {
                                 const auto* p = std::get_if<Packet<T>>(&m);
                                 return p != nullptr && p->generation < generation;
                               });
  }

  void AddWriter() { writers_.fetch_add(1); }
  // The stream ends (in order, after queued data) when its last writer finishes.
  void WriterDone() {
    if (writers_.fetch_sub(1) == 1) queue_.Close();
  }

 private:
  const std::string name_;
  BoundedQueue<ChannelMessage<T>> queue_;
  std::atomic<int> writers_{0};
};

}  // namespace lingcast
