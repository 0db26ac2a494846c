// TilePool: a small pool of worker threads that runs the tiles of one frame.
// Run(n, fn) calls fn(0) .. fn(n - 1), each exactly once, spread over the
// workers and the calling thread, and returns when all are done. Which thread
// runs a tile is not fixed, so fn must give the same result for a tile whatever
// thread runs it and in whatever order tiles run (tiles write disjoint pixels).
//
// One frame at a time: Run() is called by one thread (the compositor's owner).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"

namespace lingcast::compose {

class TilePool {
 public:
  // `threads` in total, the caller included (0: std::thread::hardware_concurrency();
  // 1: no worker threads, Run() works inline).
  explicit TilePool(int threads);
  ~TilePool();
  TilePool(const TilePool&) = delete;
  TilePool& operator=(const TilePool&) = delete;

  void Run(int tiles, const std::function<void(int tile)>& fn);
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

 private:
  void WorkerLoop();
  // Claims and runs tiles of job `generation` until none is left.
  void Drain(const std::function<void(int)>& fn, int tiles, uint64_t generation);

  std::mutex mu_;
  std::condition_variable wake_;  // a new job, or stopping
  std::condition_variable done_;  // every tile of the job has finished
  const std::function<void(int)>* job_ ABSL_GUARDED_BY(mu_) = nullptr;
  int job_tiles_ ABSL_GUARDED_BY(mu_) = 0;
  int next_tile_ ABSL_GUARDED_BY(mu_) = 0;
  int unfinished_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace lingcast::compose
