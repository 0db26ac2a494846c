#include "compose/gpu_compositor.h"

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
// the same one changed (Layers::sprites_version), is shown.
class SpriteTexture {
 public:
  absl::Status Update(const VideoFrame& image, int64_t version, cudaStream_t stream) {
    if (&image == source_ && version == version_) return absl::OkStatus();
    if (frame_.width() != image.width || frame_.height() != image.height) {
      LC_ASSIGN_OR_RETURN(frame_, DeviceFrame::Allocate(image.width, image.height));
    }
    LC_RETURN_IF_ERROR(frame_.Upload(image, stream));
    source_ = &image;
    version_ = version;
    return absl::OkStatus();
  }
  gpu::ImageView view() const { return frame_.view(); }

 private:
  const VideoFrame* source_ = nullptr;  // compared, never read
  int64_t version_ = -1;
  DeviceFrame frame_;
};

class CudaCompositor final : public GpuCompositor {
 public:
  CudaCompositor(Compositor& compositor, GpuCompositorOptions options, CudaStream stream, DeviceFrame frame,
                 DeviceFrame background, std::unique_ptr<GpuYuvConverter> yuv)
      : compositor_(compositor),
        options_(options),
        stream_(std::move(stream)),
        frame_(std::move(frame)),
        background_(std::move(background)),
        yuv_(std::move(yuv)) {}

  void SetAvatarRenderer(GpuAvatarDrawFn draw) override { draw_avatar_ = std::move(draw); }

  absl::Status Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out) override {
    const int width = frame_.width(), height = frame_.height();
    if (out.width == 0 && out.height == 0) out.Allocate(width, height);
    if (out.width != width || out.height != height || out.stride < out.width * 4) {
      return absl::InvalidArgumentError(absl::StrCat("output frame is ", out.width, "x", out.height,
                                                     ", the compositor draws ", width, "x", height));
    }
    LC_ASSIGN_OR_RETURN(const Compositor::Layers layers, compositor_.LayersAt(t, cue));
    cudaStream_t stream = stream_.get();

    // Background: a video's frame comes up each frame, a still one once.
    if (layers.background_is_video) {
      LC_RETURN_IF_ERROR(frame_.Upload(*layers.background, stream));
    } else {
      if (uploaded_background_ != layers.background) {
        LC_RETURN_IF_ERROR(background_.Upload(*layers.background, stream));
        uploaded_background_ = layers.background;
      }
      LC_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(frame_.data(), background_.data(),
                                                    static_cast<size_t>(frame_.stride()) * height,
                                                    cudaMemcpyDeviceToDevice, stream),
                                    "copying the background"));
    }
    // The avatar, as one display list over its whole area.
    const Rect area = compositor_.avatar_area();
    if (draw_avatar_ && !area.empty()) {
      canvas_.Begin(width, height, area);
      draw_avatar_(canvas_, area);
      LC_RETURN_IF_ERROR(canvas_.Execute(frame_, stream));
    }
    if (layers.title != nullptr) {
      LC_RETURN_IF_ERROR(title_.Update(layers.title->image, layers.sprites_version, stream));
      LC_RETURN_IF_ERROR(CudaStatus(gpu::LaunchBlitOver(frame_.view(), title_.view(),
                                                        layers.title->area.x + layers.title_pose.dx,
                                                        layers.title->area.y, layers.title_pose.opacity, stream),
                                    "blending the lower third"));
    }
    if (layers.subtitle != nullptr) {
      LC_RETURN_IF_ERROR(subtitle_.Update(layers.subtitle->image, layers.sprites_version, stream));
      LC_RETURN_IF_ERROR(CudaStatus(gpu::LaunchBlitOver(frame_.view(), subtitle_.view(), layers.subtitle->area.x,
                                                        layers.subtitle->area.y, layers.subtitle_opacity, stream),
                                    "blending the subtitle"));
    }
    LC_ASSIGN_OR_RETURN(std::shared_ptr<const Yuv420Picture> picture, yuv_->Enqueue(frame_, stream));
    if (options_.download_rgba) LC_RETURN_IF_ERROR(frame_.Download(out, stream));
    LC_RETURN_IF_ERROR(stream_.Synchronize());
    out.yuv420 = std::move(picture);
    return absl::OkStatus();
  }

 private:
  Compositor& compositor_;
  const GpuCompositorOptions options_;
  CudaStream stream_;
  DeviceFrame frame_;       // the frame being drawn
  DeviceFrame background_;  // the still background, uploaded once
  const VideoFrame* uploaded_background_ = nullptr;
  std::unique_ptr<GpuYuvConverter> yuv_;
  GpuCanvas canvas_;
  SpriteTexture title_, subtitle_;
  GpuAvatarDrawFn draw_avatar_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuCompositor>> CreateGpuCompositor(Compositor& compositor,
                                                                   GpuCompositorOptions options) {
  LC_RETURN_IF_ERROR(CudaDeviceUsable());
  const int width = compositor.options().width, height = compositor.options().height;
  LC_ASSIGN_OR_RETURN(CudaStream stream, CudaStream::Create());
  LC_ASSIGN_OR_RETURN(DeviceFrame frame, DeviceFrame::Allocate(width, height));
  LC_ASSIGN_OR_RETURN(DeviceFrame background, DeviceFrame::Allocate(width, height));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<GpuYuvConverter> yuv, GpuYuvConverter::Create(width, height));
  return std::unique_ptr<GpuCompositor>(new CudaCompositor(compositor, options, std::move(stream), std::move(frame),
                                                           std::move(background), std::move(yuv)));
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
