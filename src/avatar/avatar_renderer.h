// The built-in avatar: a friendly 2D presenter bust (head, hair, eyes that blink,
// brows, nose, mouth with teeth and tongue, neck, jacket) drawn from vector
// shapes in code, in a normalized space one unit wide and kAspect units tall,
// scaled to the target rectangle: it is as sharp at 4K as at 360p.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/base/thread_annotations.h"

#include "avatar/avatar_state.h"
#include "avatar/canvas.h"
#include "avatar/geometry.h"
#include "media/video_frame.h"

namespace lingcast {

// Render() may be called from several threads at once (tiles of one frame): each
// call borrows a Canvas (scratch memory) from a small free list.
class AvatarRenderer {
 public:
  // Height over width of the avatar's drawing space.
  static constexpr float kAspect = 1.3f;

  // Draws the avatar into `area` of `target`, source-over on what is there.
  // The bust is scaled to fit, centred horizontally, standing on the area's
  // bottom edge. Nothing outside `area` is touched.
  void Render(const AvatarState& state, VideoFrame& target, const Rect& area) {
    Render(state, target, area, area);
  }
  // The same picture, but only the pixels inside `clip` (of `area`) are drawn:
  // tiles rendered separately, in any order or on several threads (each with its
  // own renderer), give exactly the bytes of one whole render.
  void Render(const AvatarState& state, VideoFrame& target, const Rect& area, const Rect& clip);

  // The mouth and eye regions in target pixels for a given area (the neutral
  // pose), for tests and for tools that crop.
  static Rect MouthRegion(const Rect& area);
  static Rect EyesRegion(const Rect& area);

  // Pixels blended by the last Render call (one tile when tiled): bounding-box culling at work.
  int64_t last_pixels_shaded() const { return last_pixels_shaded_.load(std::memory_order_relaxed); }

 private:
  static Affine Placement(const Rect& area);
  static Rect RegionOf(const Rect& area, Vec2 top_left, Vec2 bottom_right);
  void DrawBody(Canvas& c, const AvatarState& s, const Affine& m);
  void DrawHead(Canvas& c, const AvatarState& s, const Affine& m);
  void DrawEye(Canvas& c, const AvatarState& s, const Affine& m, float cx, bool left);
  void DrawMouth(Canvas& c, const AvatarState& s, const Affine& m);

  std::unique_ptr<Canvas> BorrowCanvas();
  void ReturnCanvas(std::unique_ptr<Canvas> canvas);

  std::mutex canvases_mu_;
  // Idle canvases, retargeted by each Render and kept for their scratch memory:
  // as many exist as Render calls have ever run at once.
  std::vector<std::unique_ptr<Canvas>> idle_canvases_ ABSL_GUARDED_BY(canvases_mu_);
  std::atomic<int64_t> last_pixels_shaded_{0};
};

}  // namespace lingcast
