#include "compose/gpu_compositor.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>
#include <utility>

#include "absl/strings/str_cat.h"
#include "avatar/cuda_support.h"
#include "core/status.h"

#if LINGCAST_HAVE_CUDA_RENDERER
#include "avatar/gpu_canvas.h"
#include "compose/gpu_compose_kernels.h"
#include "compose/gpu_yuv.h"
#endif

namespace lingcast::compose {

#if LINGCAST_HAVE_CUDA_RENDERER

namespace {

// A sprite's pixels on the device, copied again only when another sprite, or
// the same one changed (Layers::subtitle_version, title_version), is shown.
// When only words' highlights changed since this copy's version, and every
// change since has its patch (Layers::subtitle_patches), only the patched
// area goes up: a word's box, not the whole 4K sprite.
class SpriteTexture {
 public:
  absl::Status Update(const VideoFrame& image, int64_t version, cudaStream_t stream,
                      absl::Span<const Compositor::Layers::SpritePatch> patches = {}) {
    if (&image == source_ && version == version_) return absl::OkStatus();
    if (&image == source_ && version > version_ && frame_.width() == image.width &&
        frame_.height() == image.height) {
      if (std::optional<Rect> changed = PatchedSince(version_, version, patches)) {
        LC_RETURN_IF_ERROR(frame_.UploadArea(image, *changed, stream, staging_));
        version_ = version;
        return absl::OkStatus();
      }
    }
    if (frame_.width() != image.width || frame_.height() != image.height) {
      LC_ASSIGN_OR_RETURN(frame_, DeviceFrame::Allocate(image.width, image.height));
    }
    LC_RETURN_IF_ERROR(frame_.Upload(image, stream, staging_));
    source_ = &image;
    version_ = version;
    return absl::OkStatus();
  }
  gpu::ImageView view() const { return frame_.view(); }

 private:
  // The union of the patches of versions (from, to], or nullopt when one of
  // those versions has none (a new sprite, or a change not kept).
  static std::optional<Rect> PatchedSince(int64_t from, int64_t to,
                                          absl::Span<const Compositor::Layers::SpritePatch> patches) {
    int64_t next = from + 1;
    Rect changed;
    for (const Compositor::Layers::SpritePatch& patch : patches) {
      if (patch.version < next) continue;
      if (patch.version > next) return std::nullopt;
      changed = changed.Union(patch.area);
      ++next;
    }
    if (next != to + 1) return std::nullopt;
    return changed;
  }

  const VideoFrame* source_ = nullptr;  // compared, never read
  int64_t version_ = -1;
  DeviceFrame frame_;
  HostStaging staging_;
};

bool Empty(const VideoFrame& image) { return image.width <= 0 || image.height <= 0; }

// What one frame in flight draws with: nothing here is touched by another
// frame's work while this one's may still run.
struct FrameSlot {
  CudaStream stream;
  DeviceFrame frame;
  GpuCanvas canvas;
  SpriteTexture title, subtitle;
  HostStaging background_staging;  // a video background's frame on its way up
  SpriteTexture inset_border, inset_picture;  // picture-in-picture
  std::unique_ptr<GpuYuvConverter> yuv;
  std::shared_ptr<VideoFrame> out;  // set while in flight
  std::shared_ptr<const Yuv420Picture> picture;
};

class CudaCompositor final : public GpuCompositor {
 public:
  CudaCompositor(Compositor& compositor, GpuCompositorOptions options, DeviceFrame background,
                 std::array<FrameSlot, kFramesInFlight> slots)
      : compositor_(compositor), options_(options), background_(std::move(background)), slots_(std::move(slots)) {}

  // Frames still in flight (a stopped render) finish before their memory goes.
  ~CudaCompositor() override { WaitForAll().IgnoreError(); }

  void SetAvatarRenderer(GpuAvatarDrawFn draw) override { draw_avatar_ = std::move(draw); }
  void SetPictureInPicture(PictureInPicture* picture) override {
    inset_ = picture;
    ++inset_source_;  // another source: every slot uploads its layers again
    ++inset_picture_version_;
  }

  absl::Status Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out) override {
    if (in_flight() > 0) return absl::FailedPreconditionError("GpuCompositor::Compose with started frames unfinished");
    // A non-owning pointer: `out` is the caller's.
    LC_RETURN_IF_ERROR(Start(t, cue, std::shared_ptr<VideoFrame>(std::shared_ptr<VideoFrame>(), &out)));
    return Finish().status();
  }

  absl::Status Start(MediaTime t, const SubtitleCue* cue, std::shared_ptr<VideoFrame> out) override {
    if (in_flight() == kFramesInFlight) {
      return absl::FailedPreconditionError("GpuCompositor::Start with every frame slot in flight: Finish one first");
    }
    const int width = background_.width(), height = background_.height();
    if (out->width == 0 && out->height == 0) out->Allocate(width, height);
    if (out->width != width || out->height != height || out->stride < out->width * 4) {
      return absl::InvalidArgumentError(absl::StrCat("output frame is ", out->width, "x", out->height,
                                                     ", the compositor draws ", width, "x", height));
    }
    // Round robin over the slots, oldest first: the one taken has finished.
    FrameSlot& slot = slots_[(first_ + in_flight_) % kFramesInFlight];
    LC_ASSIGN_OR_RETURN(const Compositor::Layers layers, compositor_.LayersAt(t, cue));
    cudaStream_t stream = slot.stream.get();

    // Background: a video's frame comes up each frame, a still one once (and
    // is complete before any frame reads it).
    if (layers.background_is_video) {
      LC_RETURN_IF_ERROR(slot.frame.Upload(*layers.background, stream, slot.background_staging));
    } else {
      if (uploaded_background_ != layers.background) {
        LC_RETURN_IF_ERROR(WaitForAll());  // frames in flight may be reading the old one
        LC_RETURN_IF_ERROR(background_.Upload(*layers.background, stream));
        LC_RETURN_IF_ERROR(slot.stream.Synchronize());
        uploaded_background_ = layers.background;
      }
      LC_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(slot.frame.data(), background_.data(),
                                                    static_cast<size_t>(slot.frame.stride()) * height,
                                                    cudaMemcpyDeviceToDevice, stream),
                                    "copying the background"));
    }
    // The avatar, as one display list over its whole area.
    const Rect area = compositor_.avatar_area();
    if (draw_avatar_ && !area.empty()) {
      slot.canvas.Begin(width, height, area);
      draw_avatar_(slot.canvas, area);
      LC_RETURN_IF_ERROR(slot.canvas.Execute(slot.frame, stream));
    }
    // (An empty sprite draws nothing, as BlitOver of it does.)
    if (layers.title != nullptr && !Empty(layers.title->image)) {
      LC_RETURN_IF_ERROR(slot.title.Update(layers.title->image, layers.title_version, stream));
      LC_RETURN_IF_ERROR(CudaStatus(gpu::LaunchBlitOver(slot.frame.view(), slot.title.view(),
                                                        layers.title->area.x + layers.title_pose.dx,
                                                        layers.title->area.y, layers.title_pose.opacity, stream),
                                    "blending the lower third"));
    }
    if (layers.subtitle != nullptr && !Empty(layers.subtitle->image)) {
      LC_RETURN_IF_ERROR(
          slot.subtitle.Update(layers.subtitle->image, layers.subtitle_version, stream, layers.subtitle_patches));
      LC_RETURN_IF_ERROR(CudaStatus(gpu::LaunchBlitOver(slot.frame.view(), slot.subtitle.view(),
                                                        layers.subtitle->area.x, layers.subtitle->area.y,
                                                        layers.subtitle_opacity, stream),
                                    "blending the subtitle"));
    }
    if (inset_ != nullptr) LC_RETURN_IF_ERROR(DrawInset(t, slot));
    LC_ASSIGN_OR_RETURN(slot.picture, slot.yuv->Enqueue(slot.frame, stream));
    // Into pageable memory this copy is synchronous: only for previews and tests.
    if (options_.download_rgba) LC_RETURN_IF_ERROR(slot.frame.Download(*out, stream));
    slot.out = std::move(out);
    ++in_flight_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::shared_ptr<VideoFrame>> Finish() override {
    if (in_flight_ == 0) return absl::FailedPreconditionError("GpuCompositor::Finish with no frame started");
    FrameSlot& slot = slots_[first_];
    first_ = (first_ + 1) % kFramesInFlight;
    --in_flight_;
    std::shared_ptr<VideoFrame> out = std::move(slot.out);
    std::shared_ptr<const Yuv420Picture> picture = std::move(slot.picture);
    LC_RETURN_IF_ERROR(slot.stream.Synchronize());
    out->yuv420 = std::move(picture);
    return out;
  }

  int in_flight() const override { return in_flight_; }

 private:
  // Picture-in-picture over everything else: its border, then its picture (a
  // still's once per slot, a video's each frame: the source's frame buffer is
  // reused, so it is always taken as changed).
  absl::Status DrawInset(MediaTime t, FrameSlot& slot) {
    cudaStream_t stream = slot.stream.get();
    LC_ASSIGN_OR_RETURN(const VideoFrame* picture, inset_->PictureAt(t));
    const Rect border = inset_->border_area();
    LC_RETURN_IF_ERROR(slot.inset_border.Update(inset_->border_sprite(), inset_source_, stream));
    LC_RETURN_IF_ERROR(CudaStatus(
        gpu::LaunchBlitOver(slot.frame.view(), slot.inset_border.view(), border.x, border.y, 255, stream),
        "blending the picture-in-picture's border"));
    if (inset_->moving()) ++inset_picture_version_;
    LC_RETURN_IF_ERROR(slot.inset_picture.Update(*picture, inset_picture_version_, stream));
    const Rect& area = inset_->area();
    return CudaStatus(gpu::LaunchBlitOver(slot.frame.view(), slot.inset_picture.view(), area.x, area.y, 255, stream),
                      "blending the picture-in-picture");
  }

  absl::Status WaitForAll() {
    for (FrameSlot& slot : slots_) LC_RETURN_IF_ERROR(slot.stream.Synchronize());
    return absl::OkStatus();
  }

  Compositor& compositor_;
  const GpuCompositorOptions options_;
  DeviceFrame background_;  // the still background, uploaded once; read by every slot
  const VideoFrame* uploaded_background_ = nullptr;
  std::array<FrameSlot, kFramesInFlight> slots_;
  int first_ = 0;      // the oldest slot in flight
  int in_flight_ = 0;  // slots started and not finished
  GpuAvatarDrawFn draw_avatar_;
  PictureInPicture* inset_ = nullptr;  // not owned
  int64_t inset_source_ = 0;           // the border's version: one per source
  int64_t inset_picture_version_ = 0;  // the picture's: one per source, and per frame of a moving one
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuCompositor>> CreateGpuCompositor(Compositor& compositor,
                                                                   GpuCompositorOptions options) {
  LC_RETURN_IF_ERROR(CudaDeviceUsable());
  const int width = compositor.options().width, height = compositor.options().height;
  LC_ASSIGN_OR_RETURN(DeviceFrame background, DeviceFrame::Allocate(width, height));
  std::array<FrameSlot, GpuCompositor::kFramesInFlight> slots;
  for (FrameSlot& slot : slots) {
    LC_ASSIGN_OR_RETURN(slot.stream, CudaStream::Create());
    LC_ASSIGN_OR_RETURN(slot.frame, DeviceFrame::Allocate(width, height));
    LC_ASSIGN_OR_RETURN(slot.yuv, GpuYuvConverter::Create(width, height));
  }
  return std::unique_ptr<GpuCompositor>(
      new CudaCompositor(compositor, options, std::move(background), std::move(slots)));
}

#else  // !LINGCAST_HAVE_CUDA_RENDERER

absl::StatusOr<std::unique_ptr<GpuCompositor>> CreateGpuCompositor(Compositor&, GpuCompositorOptions) {
  LC_RETURN_IF_ERROR(CudaDeviceUsable());  // says this build has no CUDA renderer
  return absl::InternalError("unreachable: CudaDeviceUsable() is an error without the CUDA renderer");
}

#endif  // LINGCAST_HAVE_CUDA_RENDERER

const char* RendererName(RendererKind kind) { return kind == RendererKind::kCuda ? "cuda" : "cpu"; }

absl::StatusOr<RendererKind> ChooseRenderer(const std::string& requested) {
  if (requested == "cpu") return RendererKind::kCpu;
  if (requested == "auto") return CudaDeviceUsable().ok() ? RendererKind::kCuda : RendererKind::kCpu;
  if (requested == "cuda") {
    const absl::Status usable = CudaDeviceUsable();
    if (!usable.ok()) {
      return absl::Status(usable.code(), absl::StrCat("--renderer cuda: ", usable.message(),
                                                      " (--renderer cpu or auto draws on the CPU)"));
    }
    return RendererKind::kCuda;
  }
  return absl::InvalidArgumentError(absl::StrCat("--renderer ", requested, ": must be auto, cpu or cuda"));
}

std::string DescribeRendererChoice() {
  const absl::Status usable = CudaDeviceUsable();
  if (!usable.ok()) return absl::StrCat("auto: cpu (", usable.message(), ")");
  absl::StatusOr<std::string> device = CudaDeviceDescription();
  return absl::StrCat("auto: cuda on ", device.ok() ? *device : std::string(device.status().message()));
}

}  // namespace lingcast::compose
