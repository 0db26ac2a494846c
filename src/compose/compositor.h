// The compositor: draws one output frame from the cached studio background, the
// avatar (through a callback, so compose does not depend on the avatar module)
// and the burned-in bilingual subtitle of the current cue.
//
// Not thread-safe: one Compositor per render thread (it owns its fonts and caches).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compose/background.h"
#include "compose/geometry.h"
#include "compose/subtitle_renderer.h"
#include "core/media_time.h"
#include "media/text_segment.h"
#include "media/video_frame.h"

namespace lingcast::compose {

// Draws the avatar into `area` of `frame` (premultiplied source-over onto what is
// there). `area` lies inside the frame.
using AvatarDrawFn = std::function<void(VideoFrame& frame, const Rect& area)>;

struct AvatarPlacement {
  double height = 0.86;        // fraction of the frame height
  double aspect = 0.80;        // width / height of the avatar's area
  double center_x = 0.5;       // fraction of the frame width
  double bottom = 1.0;         // bottom edge, fraction of the frame height (1: the frame's bottom)
};

struct CompositorOptions {
  int width = 1280;
  int height = 720;
  BackgroundStyle background;
  AvatarPlacement avatar;
  SubtitleStyle subtitles;
  FontOptions fonts;
  MediaTime fade = MediaTime::Millis(150);  // subtitle fade in and out; Zero() for none
  size_t glyph_cache_capacity = 2048;      // glyphs; also bounded to 16 MB of bitmaps
  size_t subtitle_cache_size = 4;           // cues whose sprites are kept
};

class Compositor {
 public:
  static constexpr int kMinWidth = 160, kMinHeight = 90;
  static constexpr int kMaxWidth = 7680, kMaxHeight = 4320;

  // InvalidArgument for sizes out of range; NotFound when no CJK font is found.
  static absl::StatusOr<std::unique_ptr<Compositor>> Create(const CompositorOptions& options);

  void SetAvatarRenderer(AvatarDrawFn draw) { draw_avatar_ = std::move(draw); }
  // Where the avatar is drawn (inside the frame).
  const Rect& avatar_area() const { return avatar_area_; }

  // Draws the frame at time `t` into `out` (allocated to the output size when
  // empty; InvalidArgument when it has another size). `cue` may be null; it is
  // shown while cue->start <= t < cue->end.
  absl::Status Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out);

  // The subtitle sprite for `cue` (from the cache, or laid out now); null
  // when the cue has no text. For tests and tools.
  absl::StatusOr<const SubtitleSprite*> SubtitleFor(const SubtitleCue& cue);

  const CompositorOptions& options() const { return options_; }
  const VideoFrame& background() const { return background_; }
  int subtitle_layouts_built() const { return subtitle_layouts_built_; }

 private:
  struct CachedSubtitle {
    std::string key;
    std::unique_ptr<SubtitleSprite> sprite;  // null: the cue has no text
  };

  Compositor(CompositorOptions options, std::unique_ptr<SubtitleRenderer> subtitles);
  int FadeOpacity(MediaTime t, const SubtitleCue& cue) const;

  CompositorOptions options_;
  std::unique_ptr<SubtitleRenderer> subtitles_;
  VideoFrame background_;
  Rect avatar_area_;
  AvatarDrawFn draw_avatar_;
  std::deque<CachedSubtitle> subtitle_cache_;  // most recent first
  int subtitle_layouts_built_ = 0;
};

// The avatar's area for a frame size: centred, resting on the bottom, clipped to the frame.
Rect AvatarArea(int width, int height, const AvatarPlacement& placement);

}  // namespace lingcast::compose
