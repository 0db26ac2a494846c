#include "media/video_frame.h"

#include <algorithm>

namespace lingcast {

void VideoFrame::Allocate(int w, int h) {
  width = w;
  height = h;
  stride = w * 4;
  rgba.assign(static_cast<size_t>(stride) * h, 0);
  yuv420.reset();
}

std::shared_ptr<VideoFramePool> VideoFramePool::Create(int width, int height, int max_frames) {
  return std::shared_ptr<VideoFramePool>(new VideoFramePool(width, height, std::max(1, max_frames)));
}

VideoFramePool::VideoFramePool(int width, int height, int max_frames)
    : width_(width), height_(height), max_frames_(max_frames) {}

std::shared_ptr<VideoFrame> VideoFramePool::Acquire() {
  std::unique_ptr<VideoFrame> frame;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty() || allocated_ < max_frames_; });
    if (!free_.empty()) {
      frame = std::move(free_.back());
      free_.pop_back();
    } else {
      ++allocated_;
    }
  }
  if (!frame) {
    frame = std::make_unique<VideoFrame>();
    frame->Allocate(width_, height_);
  }
  // The deleter hands the frame back to the pool while the pool lives.
  std::weak_ptr<VideoFramePool> weak_pool = weak_from_this();
  return std::shared_ptr<VideoFrame>(frame.release(), [weak_pool](VideoFrame* f) {
    std::unique_ptr<VideoFrame> owned(f);
    if (auto pool = weak_pool.lock()) pool->Release(owned.release());
  });
}

void VideoFramePool::Release(VideoFrame* frame) {
  frame->yuv420.reset();  // a recycled frame carries no stale picture (and holds no GPU download buffer)
  std::lock_guard lock(mu_);
  free_.emplace_back(frame);
  cv_.notify_one();
}

int VideoFramePool::allocated() const {
  std::lock_guard lock(mu_);
  return allocated_;
}

}  // namespace lingcast
