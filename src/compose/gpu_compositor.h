// GpuCompositor: the frames a Compositor draws, drawn on a CUDA GPU and handed
// over as yuv420p (VideoFrame::yuv420), so the encoder neither converts nor
// competes with the renderer for CPU cores (docs/gpu.md).
//
// It draws the very layers the Compositor decides (Compositor::LayersAt:
// background, avatar, lower third, subtitle, with their fades), with the same
// arithmetic: the background as the CPU made it (a still one uploaded once, a
// video's frame uploaded each frame), the avatar through GpuCanvas, subtitle
// and title sprites (made on the CPU, copied to the GPU when they change)
// blended as BlitOver blends them, a picture-in-picture over them (its border
// and picture as PictureInPicture makes them), then the colour conversion of
// the encoder.
//
// One thread calls it, as a Compositor. Built in every build; where the CUDA
// renderer is not compiled in, CreateGpuCompositor says so.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "avatar/canvas.h"
#include "compose/compositor.h"
#include "compose/picture_in_picture.h"
#include "media/text_segment.h"
#include "media/video_frame.h"

namespace lingcast::compose {

// Draws the avatar placed in `area` on `surface` (whose clip is the area).
using GpuAvatarDrawFn = std::function<void(VectorSurface& surface, const Rect& area)>;

struct GpuCompositorOptions {
  // Also bring the RGBA frame down (for a preview or a test); the encoder needs
  // only the yuv420p planes.
  bool download_rgba = false;
};

class GpuCompositor {
 public:
  // Frames drawn at once: the CPU records frame N+1 while the GPU draws,
  // converts and downloads frame N (each with its own device buffers and stream).
  static constexpr int kFramesInFlight = 2;

  virtual ~GpuCompositor() = default;

  virtual void SetAvatarRenderer(GpuAvatarDrawFn draw) = 0;
  // Draws `picture` over every frame, as PictureInPicture::DrawOver over a
  // Compositor's frame (null: none). Not owned: it must outlive this
  // compositor, and only this compositor may call it from now on.
  virtual void SetPictureInPicture(PictureInPicture* picture) = 0;
  // Draws the frame at `t` as Compositor::Compose would and sets out.yuv420 to
  // it; out's RGBA is written too when download_rgba is on. `out` is
  // allocated to the output size when empty; InvalidArgument for another size.
  // Complete on return; FailedPrecondition while started frames are unfinished.
  virtual absl::Status Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out) = 0;

  // The same, pipelined. Start() returns once the frame's work is queued on
  // the GPU (the avatar's drawing calls and the layers are taken at once, so
  // the caller may change the avatar's state); Finish() waits for the oldest
  // started frame and returns it, complete. FailedPrecondition for a Start
  // with kFramesInFlight unfinished, or a Finish with none.
  virtual absl::Status Start(MediaTime t, const SubtitleCue* cue, std::shared_ptr<VideoFrame> out) = 0;
  virtual absl::StatusOr<std::shared_ptr<VideoFrame>> Finish() = 0;
  virtual int in_flight() const = 0;
};

// What draws the frames: `--renderer auto|cpu|cuda`.
enum class RendererKind { kCpu, kCuda };
const char* RendererName(RendererKind kind);  // "cpu", "cuda"

// The renderer for a --renderer value: "cpu"; "cuda", or the reason it cannot
// run here (FailedPrecondition: a build without it; Unavailable: no GPU);
// "auto" (the default): cuda when this build has it and a GPU is found, else
// cpu. InvalidArgument for any other value.
absl::StatusOr<RendererKind> ChooseRenderer(const std::string& requested);

// One line on what --renderer auto would pick here and why (for `lingcast doctor`).
std::string DescribeRendererChoice();

// A GPU compositor over `compositor`'s layers (which must outlive it).
// FailedPrecondition in a build without the CUDA renderer, Unavailable without
// a usable GPU (CudaDeviceUsable), Internal naming a failed CUDA call.
absl::StatusOr<std::unique_ptr<GpuCompositor>> CreateGpuCompositor(Compositor& compositor,
                                                                   GpuCompositorOptions options = {});

}  // namespace lingcast::compose
