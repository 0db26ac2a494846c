#include "avatar/gpu_canvas.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace lingcast {

absl::StatusOr<DeviceFrame> DeviceFrame::Allocate(int width, int height) {
  if (width <= 0 || height <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("a device frame needs a positive size, not ", width, "x", height));
  }
  DeviceFrame frame;
  frame.width_ = width;
  frame.height_ = height;
  frame.stride_ = width * 4;
  absl::StatusOr<DeviceBuffer> pixels = DeviceBuffer::Allocate(static_cast<size_t>(frame.stride_) * height);
  if (!pixels.ok()) return pixels.status();
  frame.pixels_ = *std::move(pixels);
  return frame;
}

absl::Status DeviceFrame::Upload(const VideoFrame& frame, cudaStream_t stream) {
  if (frame.width != width_ || frame.height != height_) {
    return absl::InvalidArgumentError(absl::StrCat("uploading a ", frame.width, "x", frame.height, " frame to a ",
                                                   width_, "x", height_, " device frame"));
  }
  return CudaStatus(cudaMemcpy2DAsync(data(), stride_, frame.rgba.data(), frame.stride, static_cast<size_t>(width_) * 4,
                                      height_, cudaMemcpyHostToDevice, stream),
                    "uploading a frame");
}

absl::Status DeviceFrame::Upload(const VideoFrame& frame, cudaStream_t stream, HostStaging& staging) {
  return UploadArea(frame, Rect{0, 0, width_, height_}, stream, staging);
}

absl::Status DeviceFrame::UploadArea(const VideoFrame& frame, const Rect& area, cudaStream_t stream,
                                     HostStaging& staging) {
  if (frame.width != width_ || frame.height != height_) {
    return absl::InvalidArgumentError(absl::StrCat("uploading a ", frame.width, "x", frame.height, " frame to a ",
                                                   width_, "x", height_, " device frame"));
  }
  const Rect clipped = area.Intersect(Rect{0, 0, width_, height_});
  if (clipped.empty()) return absl::OkStatus();
  const size_t row = static_cast<size_t>(clipped.width) * 4;
  absl::StatusOr<uint8_t*> pinned = staging.Acquire(row * clipped.height);
  if (!pinned.ok()) return pinned.status();
  const uint8_t* source = frame.rgba.data() + static_cast<size_t>(frame.stride) * clipped.y + clipped.x * 4;
  if (static_cast<size_t>(frame.stride) == row) {
    std::memcpy(*pinned, source, row * clipped.height);
  } else {
    for (int y = 0; y < clipped.height; ++y) {
      std::memcpy(*pinned + row * y, source + static_cast<size_t>(frame.stride) * y, row);
    }
  }
  uint8_t* destination = data() + static_cast<size_t>(stride_) * clipped.y + clipped.x * 4;
  if (absl::Status s = CudaStatus(cudaMemcpy2DAsync(destination, stride_, *pinned, row, row, clipped.height,
                                                    cudaMemcpyHostToDevice, stream),
                                  "uploading a frame");
      !s.ok()) {
    return s;
  }
  return staging.Enqueued(stream);
}

absl::Status DeviceFrame::Download(VideoFrame& frame, cudaStream_t stream) const {
  if (frame.width != width_ || frame.height != height_) {
    return absl::InvalidArgumentError(absl::StrCat("downloading a ", width_, "x", height_, " device frame into a ",
                                                   frame.width, "x", frame.height, " frame"));
  }
  return CudaStatus(cudaMemcpy2DAsync(frame.rgba.data(), frame.stride, data(), stride_, static_cast<size_t>(width_) * 4,
                                      height_, cudaMemcpyDeviceToHost, stream),
                    "downloading a frame");
}

void GpuCanvas::Begin(int width, int height, const Rect& clip) {
  width_ = width;
  height_ = height;
  clip_ = clip.Intersect(Rect{0, 0, width, height});
  masks_.clear();
  mask_bytes_ = 0;
  edges_.clear();
  tables_.clear();
  commands_.clear();
  images_.clear();
  cell_count_ = 0;
  first_row_ = height;
  end_row_ = 0;
}

Rect GpuCanvas::DrawableArea() const { return masks_.empty() ? clip_ : clip_.Intersect(masks_.back().rect); }

bool GpuCanvas::StartCommand(const std::vector<Polygon>& polygons, gpu::FillKind kind,
                             gpu::FillCommand* command) const {
  const Rect area = canvas_rules::PolygonBounds(polygons).Intersect(DrawableArea());
  if (area.empty()) return false;
  *command = gpu::FillCommand{};
  command->kind = kind;
  command->area_x = area.x;
  command->area_y = area.y;
  command->area_width = area.width;
  command->area_height = area.height;
  command->mask = -1;
  command->output_mask = -1;
  if (!masks_.empty()) {
    const ClipMask& mask = masks_.back();
    command->mask = mask.offset;
    command->mask_x = mask.rect.x;
    command->mask_y = mask.rect.y;
    command->mask_width = mask.rect.width;
  }
  return true;
}

void GpuCanvas::AppendCommand(const std::vector<Polygon>& polygons, gpu::FillCommand& command) {
  const int32_t index = static_cast<int32_t>(commands_.size());
  command.cells = cell_count_;
  cell_count_ += static_cast<int64_t>(command.area_width + 2) * command.area_height;
  for (const Polygon& poly : polygons) {
    const size_t n = poly.size();
    if (n < 2) continue;
    for (size_t i = 0; i < n; ++i) {
      const Vec2& a = poly[i];
      const Vec2& b = poly[(i + 1) % n];
      // Snapped values lie within +-2^28: they fit int32.
      edges_.push_back({static_cast<int32_t>(canvas_rules::SnapToSubpixel(a.x)),
                        static_cast<int32_t>(canvas_rules::SnapToSubpixel(a.y)),
                        static_cast<int32_t>(canvas_rules::SnapToSubpixel(b.x)),
                        static_cast<int32_t>(canvas_rules::SnapToSubpixel(b.y)), index});
    }
  }
  first_row_ = std::min(first_row_, command.area_y);
  end_row_ = std::max(end_row_, command.area_y + command.area_height);
  commands_.push_back(command);
}

void GpuCanvas::Fill(const Path& path, const Paint& paint, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, 0)) return;
  RecordFill(path.Flatten(transform, Canvas::kTolerance), paint, transform);
}

void GpuCanvas::Stroke(const Path& path, float width, const Paint& paint, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, canvas_rules::StrokeMargin(width, transform))) return;
  RecordFill(canvas_rules::StrokePolygons(path, width, transform), paint, transform);
}

void GpuCanvas::RecordFill(const std::vector<Polygon>& polygons, const Paint& paint, const Affine& transform) {
  gpu::FillCommand command;
  switch (paint.kind) {
    case Paint::Kind::kSolid: {
      if (!StartCommand(polygons, gpu::FillKind::kSolid, &command)) return;
      command.solid = canvas_rules::SolidColor(paint);
      if (command.solid.a == 0) return;
      break;
    }
    case Paint::Kind::kLinear:
    case Paint::Kind::kRadial: {
      if (!StartCommand(polygons, paint.kind == Paint::Kind::kLinear ? gpu::FillKind::kLinear : gpu::FillKind::kRadial,
                        &command)) {
        return;
      }
      const std::array<Rgba8, 256> table = canvas_rules::GradientTable(paint);
      command.table = static_cast<int32_t>(tables_.size() / 256);
      tables_.insert(tables_.end(), table.begin(), table.end());
      command.map = canvas_rules::GradientMapOf(paint, transform);
      break;
    }
    case Paint::Kind::kImage: {
      if (!StartCommand(polygons, gpu::FillKind::kImage, &command)) return;
      Affine to_image;
      if (!canvas_rules::ImageSampling(paint, transform, &to_image)) return;
      const float m[6] = {to_image.a, to_image.b, to_image.c, to_image.d, to_image.e, to_image.f};
      std::copy(m, m + 6, command.to_image);
      command.opacity = canvas_rules::UnitToByte(paint.opacity);
      images_.emplace_back(commands_.size(), paint.image);
      break;
    }
  }
  AppendCommand(polygons, command);
}

void GpuCanvas::PushClip(const Path& path, const Affine& transform) {
  if (canvas_rules::OutsideArea(DrawableArea(), path, transform, 0)) {
    masks_.push_back(ClipMask{});  // an empty clip: nothing is drawn until PopClip()
    return;
  }
  const std::vector<Polygon> polygons = path.Flatten(transform, Canvas::kTolerance);
  gpu::FillCommand command;
  if (!StartCommand(polygons, gpu::FillKind::kClipMask, &command)) {
    masks_.push_back(ClipMask{});
    return;
  }
  ClipMask mask;
  mask.rect = Rect{command.area_x, command.area_y, command.area_width, command.area_height};
  mask.offset = mask_bytes_;
  mask_bytes_ += static_cast<int64_t>(mask.rect.width) * mask.rect.height;
  command.output_mask = mask.offset;
  AppendCommand(polygons, command);
  masks_.push_back(mask);
}

void GpuCanvas::PopClip() {
  if (!masks_.empty()) masks_.pop_back();
}

absl::Status GpuCanvas::Reserve(DeviceBuffer& buffer, size_t bytes) {
  if (buffer.size() >= bytes) return absl::OkStatus();
  // Grow by half again so a list that grows a little each frame does not reallocate each frame.
  absl::StatusOr<DeviceBuffer> bigger = DeviceBuffer::Allocate(std::max(bytes, buffer.size() + buffer.size() / 2));
  if (!bigger.ok()) return bigger.status();
  buffer = *std::move(bigger);
  return absl::OkStatus();
}

absl::Status GpuCanvas::UploadImages(cudaStream_t stream) {
  std::map<const VideoFrame*, CachedImage> in_use;
  for (auto& [index, image] : images_) {
    auto cached = in_use.find(image.get());
    if (cached == in_use.end()) {
      auto old = image_cache_.find(image.get());
      if (old != image_cache_.end()) {
        cached = in_use.emplace(image.get(), std::move(old->second)).first;
        image_cache_.erase(old);
      } else {
        CachedImage entry;
        entry.host = image;
        absl::StatusOr<DeviceBuffer> pixels = DeviceBuffer::Allocate(static_cast<size_t>(image->width) * 4 * image->height);
        if (!pixels.ok()) return pixels.status();
        entry.pixels = *std::move(pixels);
        if (absl::Status s = CudaStatus(
                cudaMemcpy2DAsync(entry.pixels.data(), static_cast<size_t>(image->width) * 4, image->rgba.data(),
                                  image->stride, static_cast<size_t>(image->width) * 4, image->height,
                                  cudaMemcpyHostToDevice, stream),
                "uploading an image paint");
            !s.ok()) {
          return s;
        }
        cached = in_use.emplace(image.get(), std::move(entry)).first;
      }
    }
    gpu::FillCommand& command = commands_[index];
    command.image = cached->second.pixels.as<uint8_t>();
    command.image_width = image->width;
    command.image_height = image->height;
    command.image_stride = image->width * 4;
  }
  // Images no frame draws any more leave the device.
  image_cache_ = std::move(in_use);
  return absl::OkStatus();
}

absl::Status GpuCanvas::Execute(DeviceFrame& target, cudaStream_t stream) {
  if (target.width() != width_ || target.height() != height_) {
    return absl::InvalidArgumentError(absl::StrCat("the display list was recorded for ", width_, "x", height_,
                                                   ", not a ", target.width(), "x", target.height(), " frame"));
  }
  if (commands_.empty()) return absl::OkStatus();
  if (absl::Status s = UploadImages(stream); !s.ok()) return s;
  const size_t cell_bytes = static_cast<size_t>(cell_count_) * sizeof(int32_t);
  if (device_cells_.size() < cell_bytes) {
    if (absl::Status s = Reserve(device_cells_, cell_bytes); !s.ok()) return s;
    // The kernels leave every cell they use at zero: a new arena is cleared once.
    if (absl::Status s = device_cells_.Clear(stream); !s.ok()) return s;
  }
  if (absl::Status s = Reserve(device_edges_, edges_.size() * sizeof(gpu::SnappedEdge)); !s.ok()) return s;
  if (absl::Status s = Reserve(device_commands_, commands_.size() * sizeof(gpu::FillCommand)); !s.ok()) return s;
  if (absl::Status s = Reserve(device_tables_, tables_.size() * sizeof(Rgba8)); !s.ok()) return s;
  if (absl::Status s = Reserve(device_masks_, static_cast<size_t>(mask_bytes_)); !s.ok()) return s;
  // Through pinned memory, so the copies do not wait on the stream's earlier
  // work; the vectors are free for the next Begin once copied.
  const size_t edge_bytes = edges_.size() * sizeof(gpu::SnappedEdge);
  const size_t command_bytes = commands_.size() * sizeof(gpu::FillCommand);
  const size_t table_bytes = tables_.size() * sizeof(Rgba8);
  absl::StatusOr<uint8_t*> pinned = staging_.Acquire(edge_bytes + command_bytes + table_bytes);
  if (!pinned.ok()) return pinned.status();
  uint8_t* next = *pinned;
  auto upload = [&](void* device, const void* host, size_t bytes, const char* what) {
    if (bytes == 0) return absl::OkStatus();
    std::memcpy(next, host, bytes);
    const absl::Status s = CudaStatus(cudaMemcpyAsync(device, next, bytes, cudaMemcpyHostToDevice, stream), what);
    next += bytes;
    return s;
  };
  if (absl::Status s = upload(device_edges_.data(), edges_.data(), edge_bytes, "uploading the display list's edges");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = upload(device_commands_.data(), commands_.data(), command_bytes, "uploading the display list");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = upload(device_tables_.data(), tables_.data(), table_bytes, "uploading the gradient tables");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = staging_.Enqueued(stream); !s.ok()) return s;
  gpu::FillResources resources{};
  resources.edges = device_edges_.as<gpu::SnappedEdge>();
  resources.edge_count = static_cast<int32_t>(edges_.size());
  resources.commands = device_commands_.as<gpu::FillCommand>();
  resources.command_count = static_cast<int32_t>(commands_.size());
  resources.tables = device_tables_.as<Rgba8>();
  resources.masks = device_masks_.as<uint8_t>();
  resources.cells = device_cells_.as<int32_t>();
  return CudaStatus(gpu::LaunchFills(resources, first_row_, end_row_ - first_row_, target.view(), stream),
                    "launching the canvas kernels");
}

}  // namespace lingcast
