#include "compose/gpu_yuv.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "compose/gpu_yuv_kernels.h"

namespace lingcast {

absl::StatusOr<PinnedBuffer> GpuYuvConverter::BufferPool::Take() {
  {
    MutexLock lock(&mu_);
    if (!free_.empty()) {
      PinnedBuffer buffer = std::move(free_.back());
      free_.pop_back();
      return buffer;
    }
  }
  absl::StatusOr<PinnedBuffer> buffer = PinnedBuffer::Allocate(bytes_);
  if (buffer.ok()) {
    MutexLock lock(&mu_);
    ++allocated_;
  }
  return buffer;
}

void GpuYuvConverter::BufferPool::Give(PinnedBuffer buffer) {
  MutexLock lock(&mu_);
  free_.push_back(std::move(buffer));
}

int GpuYuvConverter::BufferPool::allocated() const {
  MutexLock lock(&mu_);
  return allocated_;
}

absl::StatusOr<std::unique_ptr<GpuYuvConverter>> GpuYuvConverter::Create(int width, int height) {
  if (width <= 0 || height <= 0 || width % 2 != 0 || height % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("yuv420p needs an even, positive frame size, not ", width, "x", height));
  }
  absl::StatusOr<DeviceBuffer> planes = DeviceBuffer::Allocate(static_cast<size_t>(width) * height * 3 / 2);
  if (!planes.ok()) return planes.status();
  return std::unique_ptr<GpuYuvConverter>(new GpuYuvConverter(width, height, *std::move(planes)));
}

GpuYuvConverter::GpuYuvConverter(int width, int height, DeviceBuffer planes)
    : width_(width),
      height_(height),
      planes_(std::move(planes)),
      pool_(std::make_shared<BufferPool>(planes_.size())) {}

int GpuYuvConverter::buffers_allocated() const { return pool_->allocated(); }

absl::StatusOr<std::shared_ptr<const Yuv420Picture>> GpuYuvConverter::Enqueue(const DeviceFrame& frame,
                                                                               cudaStream_t stream) {
  if (frame.width() != width_ || frame.height() != height_) {
    return absl::InvalidArgumentError(absl::StrCat("converting a ", frame.width(), "x", frame.height(),
                                                   " frame with a converter made for ", width_, "x", height_));
  }
  const size_t luma = static_cast<size_t>(width_) * height_, chroma = luma / 4;
  uint8_t* const device = planes_.as<uint8_t>();
  const gpu::Yuv420View view{device, width_, device + luma, width_ / 2, device + luma + chroma, width_ / 2};
  if (absl::Status s = CudaStatus(gpu::LaunchRgbaToYuv420(frame.data(), frame.stride(), width_, height_, view, stream),
                                  "launching the yuv420p conversion");
      !s.ok()) {
    return s;
  }
  absl::StatusOr<PinnedBuffer> host = pool_->Take();
  if (!host.ok()) return host.status();
  if (absl::Status s = CudaStatus(cudaMemcpyAsync(host->data(), device, planes_.size(), cudaMemcpyDeviceToHost, stream),
                                  "downloading the yuv420p planes");
      !s.ok()) {
    pool_->Give(*std::move(host));
    return s;
  }
  // The picture owns its buffer; when the encoder lets go, it goes back to the
  // pool (or is freed, if the converter went first).
  std::weak_ptr<BufferPool> weak_pool = pool_;
  auto owner = std::shared_ptr<PinnedBuffer>(new PinnedBuffer(*std::move(host)), [weak_pool](PinnedBuffer* b) {
    std::unique_ptr<PinnedBuffer> owned(b);
    if (auto pool = weak_pool.lock()) pool->Give(std::move(*owned));
  });
  auto picture = std::make_shared<Yuv420Picture>();
  picture->width = width_;
  picture->height = height_;
  picture->y = owner->data();
  picture->y_stride = width_;
  picture->u = owner->data() + luma;
  picture->u_stride = width_ / 2;
  picture->v = owner->data() + luma + chroma;
  picture->v_stride = width_ / 2;
  picture->owner = std::move(owner);
  return std::shared_ptr<const Yuv420Picture>(std::move(picture));
}

}  // namespace lingcast
