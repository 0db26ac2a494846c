// RigRenderer: draws any Rig (rig.h) for an AvatarState into a rectangle of a
// frame with the Canvas rasterizer: antialiased, premultiplied, deterministic.
//
// The rig's canvas is scaled to fit the area (aspect kept), centred
// horizontally, standing on the area's bottom edge ("anchor": "bottom") or
// centred. Render() may be called from several threads at once for different
// clips (tiles) of one frame: each call evaluates the pose itself and borrows
// its own Canvas, so tiles in any order give exactly the bytes of one render.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "avatar/avatar_state.h"
#include "avatar/canvas.h"
#include "avatar/rig.h"
#include "media/video_frame.h"

namespace lingcast {

class RigRenderer {
 public:
  explicit RigRenderer(std::shared_ptr<const rig::Rig> rig);

  void Render(const AvatarState& state, VideoFrame& target, const Rect& area, const Rect& clip);
  void Render(const AvatarState& state, VideoFrame& target, const Rect& area) { Render(state, target, area, area); }
  // The same drawing calls on any surface (the CUDA renderer's display list);
  // the surface's own clip limits what is drawn.
  void Draw(const AvatarState& state, const Rect& area, VectorSurface& surface) const;

  // Rig units -> target pixels for `area`.
  Affine Placement(const Rect& area) const;
  // A named region of the rig ("mouth", "eyes") in target pixels; empty when the
  // rig has no such region.
  Rect RegionOf(const Rect& area, const std::string& name) const;

  const rig::Rig& rig() const { return *rig_; }
  // Pixels blended by the last Render call (one tile when tiled).
  int64_t last_pixels_shaded() const { return last_pixels_shaded_.load(std::memory_order_relaxed); }

 private:
  std::unique_ptr<Canvas> BorrowCanvas();
  void ReturnCanvas(std::unique_ptr<Canvas> canvas);

  std::shared_ptr<const rig::Rig> rig_;
  std::mutex canvases_mu_;
  // Idle canvases kept for their scratch memory: as many as calls ever ran at once.
  std::vector<std::unique_ptr<Canvas>> idle_canvases_ ABSL_GUARDED_BY(canvases_mu_);
  std::atomic<int64_t> last_pixels_shaded_{0};
};

}  // namespace lingcast
