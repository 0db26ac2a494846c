// GpuYuvConverter: the CUDA renderer's last step. Its RGBA frame, still on the
// GPU, becomes yuv420p (BT.709 limited range, bit-identical to the encoder's
// own CPU conversion, output/rgba_to_yuv.h) and comes down into page-locked
// host memory as a Yuv420Picture the encoder copies instead of converting
// (VideoFrame::yuv420). The download is asynchronous on the caller's stream:
// 1.5 bytes a pixel cross the bus instead of RGBA's 4.
//
// Built only with the CUDA renderer (LINGCAST_HAVE_CUDA_RENDERER).
#pragma once

#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "avatar/cuda_support.h"
#include "avatar/gpu_canvas.h"
#include "core/sync.h"
#include "media/video_frame.h"

namespace lingcast {

class GpuYuvConverter {
 public:
  // Even width and height.
  static absl::StatusOr<std::unique_ptr<GpuYuvConverter>> Create(int width, int height);

  // Enqueues the conversion of `frame` and the download of its planes on
  // `stream`. The picture may be read once the stream is synchronized; its
  // pinned buffer goes back to the converter's pool when the last reference
  // goes (from any thread), so pictures in flight never share memory.
  absl::StatusOr<std::shared_ptr<const Yuv420Picture>> Enqueue(const DeviceFrame& frame, cudaStream_t stream);

  // Pinned buffers made so far: as many as pictures were ever alive at once.
  int buffers_allocated() const;

 private:
  // Page-locked buffers of one picture's bytes, shared with the pictures' owners.
  class BufferPool {
   public:
    explicit BufferPool(size_t bytes) : bytes_(bytes) {}
    absl::StatusOr<PinnedBuffer> Take();
    void Give(PinnedBuffer buffer);
    int allocated() const;

   private:
    const size_t bytes_;
    mutable Mutex mu_;
    std::vector<PinnedBuffer> free_ ABSL_GUARDED_BY(mu_);
    int allocated_ ABSL_GUARDED_BY(mu_) = 0;
  };

  GpuYuvConverter(int width, int height, DeviceBuffer planes);

  const int width_, height_;
  DeviceBuffer planes_;  // Y, then Cb, then Cr, rows packed
  std::shared_ptr<BufferPool> pool_;
};

}  // namespace lingcast
