// GpuCanvas: the CUDA twin of Canvas (canvas.h). It records what a rig draws
// as a display list on the CPU (flattened, snapped polygon edges and a command
// per shape: cheap) and runs it with two CUDA kernels (gpu_canvas_kernels.cu)
// on a frame in device memory, giving the bytes Canvas gives: the same integer
// coverage, and the same shading.h functions compiled with --fmad=false. Each
// shape has its own cell grid on the device (about 4 bytes a pixel of its box).
//
// Images of image paints are uploaded once and stay on the device while the
// frames keep using them. One GpuCanvas per thread; built only with the CUDA
// renderer (LINGCAST_HAVE_CUDA_RENDERER).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "avatar/canvas.h"
#include "avatar/cuda_support.h"
#include "avatar/gpu_canvas_kernels.h"
#include "media/video_frame.h"

namespace lingcast {

// A premultiplied RGBA8 frame in device memory.
class DeviceFrame {
 public:
  DeviceFrame() = default;
  static absl::StatusOr<DeviceFrame> Allocate(int width, int height);

  int width() const { return width_; }
  int height() const { return height_; }
  int stride() const { return stride_; }
  uint8_t* data() const { return pixels_.as<uint8_t>(); }
  gpu::ImageView view() const { return {data(), width_, height_, stride_}; }

  // Copies a host frame of the same size in / out, in `stream`'s order (the
  // download is complete once the stream is synchronized).
  absl::Status Upload(const VideoFrame& frame, cudaStream_t stream);
  // The same, through `staging`: the call returns once the pixels are copied
  // into it, without waiting for the device (what a frame in flight uploads).
  absl::Status Upload(const VideoFrame& frame, cudaStream_t stream, HostStaging& staging);
  // Only `area` of it (clipped to the frame), through `staging`.
  absl::Status UploadArea(const VideoFrame& frame, const Rect& area, cudaStream_t stream, HostStaging& staging);
  absl::Status Download(VideoFrame& frame, cudaStream_t stream) const;

 private:
  int width_ = 0, height_ = 0, stride_ = 0;
  DeviceBuffer pixels_;
};

class GpuCanvas final : public VectorSurface {
 public:
  GpuCanvas() = default;

  // Starts a display list for a width x height target, drawing inside `clip`.
  void Begin(int width, int height, const Rect& clip);

  void Fill(const Path& path, const Paint& paint, const Affine& transform = {}) override;
  void Stroke(const Path& path, float width, const Paint& paint, const Affine& transform = {}) override;
  void PushClip(const Path& path, const Affine& transform = {}) override;
  void PopClip() override;

  // Enqueues the recorded list on `stream`, drawing onto `target` (of the size
  // Begin named). The caller synchronizes the stream before it reads the
  // frame or executes another list. An error names the CUDA call that failed.
  absl::Status Execute(DeviceFrame& target, cudaStream_t stream);

  // Shapes recorded since Begin (clip masks included).
  size_t command_count() const { return commands_.size(); }

 private:
  struct ClipMask {
    Rect rect;
    int64_t offset = -1;  // in the mask arena; -1 for an empty clip
  };
  struct CachedImage {
    std::shared_ptr<const VideoFrame> host;  // keeps the key's address from being reused
    DeviceBuffer pixels;
  };

  Rect DrawableArea() const;
  // A command over `polygons`' box within the drawable area, limited by the
  // active clip mask; false when that box is empty.
  bool StartCommand(const std::vector<Polygon>& polygons, gpu::FillKind kind, gpu::FillCommand* command) const;
  // Appends the command with its polygons' snapped edges and its cell grid.
  void AppendCommand(const std::vector<Polygon>& polygons, gpu::FillCommand& command);
  void RecordFill(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform);
  absl::Status UploadImages(cudaStream_t stream);
  static absl::Status Reserve(DeviceBuffer& buffer, size_t bytes);

  int width_ = 0, height_ = 0;
  Rect clip_;
  std::vector<ClipMask> masks_;
  int64_t mask_bytes_ = 0;
  std::vector<gpu::SnappedEdge> edges_;
  std::vector<Rgba8> tables_;
  std::vector<gpu::FillCommand> commands_;
  int64_t cell_count_ = 0;           // the cell arena this list needs, in int32s
  int first_row_ = 0, end_row_ = 0;  // the target rows the commands cover
  // (command index, image) for every image paint of the list.
  std::vector<std::pair<size_t, std::shared_ptr<const VideoFrame>>> images_;

  std::map<const VideoFrame*, CachedImage> image_cache_;
  DeviceBuffer device_edges_, device_commands_, device_tables_, device_masks_;
  HostStaging staging_;  // the list's edges, commands and tables on their way up
  DeviceBuffer device_cells_;  // all zero between lists
};

}  // namespace lingcast
