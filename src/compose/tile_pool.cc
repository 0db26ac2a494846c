#include "compose/tile_pool.h"

#include <algorithm>

namespace lingcast::compose {

TilePool::TilePool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workers_.reserve(static_cast<size_t>(threads - 1));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

TilePool::~TilePool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void TilePool::Drain(const std::function<void(int)>& fn, int tiles, uint64_t generation) {
  // Tiles are claimed one at a time under the lock: a frame has a few dozen
  // tiles of ~0.1-1 ms each, so the lock is not contended enough to matter.
  for (;;) {
    int tile;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // A worker that woke late must not take tiles of a later job with this job's fn.
      if (generation_ != generation || next_tile_ >= tiles) return;
      tile = next_tile_++;
    }
    fn(tile);
    std::lock_guard<std::mutex> lock(mu_);
    if (--unfinished_ == 0) done_.notify_all();
  }
}

void TilePool::Run(int tiles, const std::function<void(int)>& fn) {
  if (tiles <= 0) return;
  if (workers_.empty()) {
    for (int i = 0; i < tiles; ++i) fn(i);
    return;
  }
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_tiles_ = tiles;
    next_tile_ = 0;
    unfinished_ = tiles;
    generation = ++generation_;
  }
  wake_.notify_all();
  Drain(fn, tiles, generation);
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return unfinished_ == 0; });
  job_ = nullptr;  // workers that wake late find no job and go back to sleep
}

void TilePool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    int tiles;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
      tiles = job_tiles_;
    }
    if (job != nullptr) Drain(*job, tiles, seen);
  }
}

}  // namespace lingcast::compose
