// The avatar renderer the compositor calls: the built-in presenter (a JSON rig,
// src/avatar/rigs/presenter.json, compiled in) or any rig a user brings
// (docs/avatar-format.md), drawn by RigRenderer. Vector rigs are as sharp at 4K
// as at 360p.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "avatar/avatar_state.h"
#include "avatar/geometry.h"
#include "avatar/rig.h"
#include "avatar/rig_renderer.h"
#include "media/video_frame.h"

namespace lingcast {

// Render() may be called from several threads at once (tiles of one frame).
class AvatarRenderer {
 public:
  // Height over width of the built-in presenter's drawing space.
  static constexpr float kAspect = 1.3f;

  // The built-in presenter.
  AvatarRenderer();
  explicit AvatarRenderer(std::shared_ptr<const rig::Rig> rig);

  // Draws the avatar into `area` of `target`, source-over on what is there.
  // The rig is scaled to fit, centred horizontally, standing on the area's
  // bottom edge (or centred, as the rig says). Nothing outside `area` is touched.
  void Render(const AvatarState& state, VideoFrame& target, const Rect& area) { Render(state, target, area, area); }
  // The same picture, but only the pixels inside `clip` (of `area`) are drawn:
  // tiles rendered separately, in any order or on several threads, give exactly
  // the bytes of one whole render.
  void Render(const AvatarState& state, VideoFrame& target, const Rect& area, const Rect& clip) {
    renderer_.Render(state, target, area, clip);
  }

  // The same drawing on any surface: the CUDA renderer records it as a display list.
  void Draw(const AvatarState& state, const Rect& area, VectorSurface& surface) const {
    renderer_.Draw(state, area, surface);
  }

  // The built-in presenter's mouth and eye regions in target pixels for a given
  // area (the neutral pose), for tests and for tools that crop.
  static Rect MouthRegion(const Rect& area);
  static Rect EyesRegion(const Rect& area);

  // A region the rig names ("mouth", "eyes") in target pixels; empty if it has none.
  Rect RegionOf(const Rect& area, const std::string& name) const { return renderer_.RegionOf(area, name); }
  const rig::Rig& rig() const { return renderer_.rig(); }
  // Pixels blended by the last Render call (one tile when tiled): bounding-box culling at work.
  int64_t last_pixels_shaded() const { return renderer_.last_pixels_shaded(); }

 private:
  RigRenderer renderer_;
};

}  // namespace lingcast
