// VideoFrame: an RGBA8 image with premultiplied alpha, and a pool that recycles
// frame memory so a long render or live session allocates a bounded number of
// frames (a 4K frame is 33 MB).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/base/thread_annotations.h"

namespace lingcast {

// A picture already converted to yuv420p, BT.709 limited range (the CUDA
// renderer converts on the GPU), in memory that `owner` keeps alive.
struct Yuv420Picture {
  int width = 0, height = 0;
  const uint8_t* y = nullptr;
  int y_stride = 0;
  const uint8_t* u = nullptr;  // Cb, (width / 2) x (height / 2)
  int u_stride = 0;
  const uint8_t* v = nullptr;  // Cr
  int v_stride = 0;
  std::shared_ptr<const void> owner;
};

struct VideoFrame {
  int width = 0;
  int height = 0;
  int stride = 0;              // bytes per row (>= width * 4)
  std::vector<uint8_t> rgba;   // premultiplied R, G, B, A per pixel
  // When set, the same picture as yuv420p: the encoder copies these planes
  // instead of converting `rgba` (which may then be left unfilled).
  std::shared_ptr<const Yuv420Picture> yuv420;

  uint8_t* Row(int y) { return rgba.data() + static_cast<size_t>(y) * stride; }
  const uint8_t* Row(int y) const { return rgba.data() + static_cast<size_t>(y) * stride; }
  void Allocate(int w, int h);  // resizes and zeroes (transparent black)
};

// Hands out frames of one size; a frame returns to the pool when its last
// shared_ptr is released. At most `max_frames` exist at once: Acquire() blocks
// the caller when all are in use (back-pressure instead of unbounded memory).
class VideoFramePool : public std::enable_shared_from_this<VideoFramePool> {
 public:
  static std::shared_ptr<VideoFramePool> Create(int width, int height, int max_frames);
  std::shared_ptr<VideoFrame> Acquire();
  int allocated() const;

 private:
  VideoFramePool(int width, int height, int max_frames);
  void Release(VideoFrame* frame);

  const int width_, height_, max_frames_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<VideoFrame>> free_ ABSL_GUARDED_BY(mu_);
  int allocated_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace lingcast
