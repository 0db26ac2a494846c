// Wall time a stage spends computing (not waiting on its queues), summed over
// a run and readable from another thread while it runs: the render summary's
// per-stage seconds.
#pragma once

#include <atomic>
#include <chrono>

namespace lingcast {

class WorkTime {
 public:
  // Adds the wall time from its construction to its destruction.
  class Scope {
   public:
    explicit Scope(WorkTime& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
    ~Scope() { total_.Add(std::chrono::steady_clock::now() - start_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    WorkTime& total_;
    const std::chrono::steady_clock::time_point start_;
  };

  double seconds() const { return seconds_.load(); }

 private:
  void Add(std::chrono::duration<double> d) {
    double expected = seconds_.load();
    while (!seconds_.compare_exchange_weak(expected, expected + d.count())) {
    }
  }
  std::atomic<double> seconds_{0};
};

}  // namespace lingcast
