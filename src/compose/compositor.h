// The compositor: draws one output frame from the background (the cached
// studio gradient, a solid colour, an image, or a looping video's frame at t),
// the avatar (through a callback, so compose does not depend on the avatar
// module), a lower-third title, and the burned-in bilingual subtitle of the
// current cue (with the words spoken so far highlighted, when asked).
//
// A frame is drawn in horizontal bands (tiles) by a small thread pool the
// compositor owns; the bands' geometry does not depend on the thread count and
// every pixel is computed by the same integer arithmetic whichever band or
// thread draws it, so any thread count gives the same bytes.
//
// Not thread-safe: one thread calls a Compositor (it owns its fonts and caches).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compose/background.h"
#include "compose/geometry.h"
#include "compose/lower_third.h"
#include "compose/media_background.h"
#include "compose/subtitle_renderer.h"
#include "compose/tile_pool.h"
#include "core/media_time.h"
#include "media/text_segment.h"
#include "media/video_frame.h"

namespace lingcast::compose {

// Draws the part of the avatar placed in `area` that lies inside `clip` (one
// band of the frame), premultiplied source-over onto what is there, touching no
// pixel outside area ∩ clip. Called for several bands at once from the
// compositor's threads: it must be safe to call concurrently, and a band's bytes
// must not depend on how the area is split (AvatarRenderer::Render is both).
using AvatarDrawFn = std::function<void(VideoFrame& frame, const Rect& area, const Rect& clip)>;

struct AvatarPlacement {
  double height = 0.86;        // fraction of the frame height
  double aspect = 0.80;        // width / height of the avatar's area
  double center_x = 0.5;       // fraction of the frame width
  double bottom = 1.0;         // bottom edge, fraction of the frame height (1: the frame's bottom)
};

struct CompositorOptions {
  int width = 1280;
  int height = 720;
  BackgroundStyle background;               // the studio gradient's look
  BackgroundSource background_source;       // studio (default), colour, image or video
  AvatarPlacement avatar;
  SubtitleStyle subtitles;
  FontOptions fonts;
  MediaTime fade = MediaTime::Millis(150);  // subtitle fade in and out; Zero() for none
  // Colour the spoken line's words as they are said (cues with word timing).
  bool highlight_words = false;
  std::vector<LowerThird> titles;           // lower-third titles, each with its own times
  LowerThirdStyle title_style;
  size_t glyph_cache_capacity = 2048;      // glyphs; also bounded to 16 MB of bitmaps
  size_t subtitle_cache_size = 4;           // cues whose sprites are kept
  int threads = 0;                          // drawing threads, the caller's included; 0: hardware threads
};

class Compositor {
 public:
  static constexpr int kMinWidth = 160, kMinHeight = 90;
  static constexpr int kMaxWidth = 7680, kMaxHeight = 4320;

  // InvalidArgument for sizes out of range or a bad title; NotFound when no
  // CJK font is found; a background file's errors (media_background.h).
  static absl::StatusOr<std::unique_ptr<Compositor>> Create(const CompositorOptions& options);

  void SetAvatarRenderer(AvatarDrawFn draw) { draw_avatar_ = std::move(draw); }
  // Where the avatar is drawn (inside the frame).
  const Rect& avatar_area() const { return avatar_area_; }

  // Draws the frame at time `t` into `out` (allocated to the output size when
  // empty; InvalidArgument when it has another size). `cue` may be null; it is
  // shown while cue->start <= t < cue->end.
  absl::Status Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out);

  // What the frame at `t` shows over its background, as Compose draws it:
  // background, avatar, title, subtitle, in this order. For the CUDA
  // compositor (gpu_compositor.h), which draws the same layers on the GPU.
  struct Layers {
    const VideoFrame* background = nullptr;  // the still background, or the video's frame at t
    bool background_is_video = false;
    const SubtitleSprite* subtitle = nullptr;  // null: none at t
    int subtitle_opacity = 0;                  // 1..255 when shown (the fade)
    const LowerThirdSprite* title = nullptr;  // null: none at t
    LowerThirdPose title_pose;
    // Change whenever a sprite of the kind is made or its pixels change in
    // place (another word highlighted): a copy keyed by address and this is current.
    int64_t subtitle_version = 0, title_version = 0;
    // The last few in-place changes of the subtitle sprite shown (oldest
    // first): the version each made and the part of the sprite it changed. A
    // copy of that sprite at an older version is brought up to date by copying
    // the union of the later patches, when every version between has one.
    // Valid until the compositor is next asked for layers.
    struct SpritePatch {
      int64_t version = 0;
      Rect area;  // in the sprite's own coordinates
    };
    absl::Span<const SpritePatch> subtitle_patches;
  };
  // How many of the subtitle's in-place changes Layers keeps.
  static constexpr size_t kSubtitlePatchHistory = 8;
  absl::StatusOr<Layers> LayersAt(MediaTime t, const SubtitleCue* cue);

  // The subtitle sprite for `cue` (from the cache, or laid out now); null
  // when the cue has no text. For tests and tools.
  absl::StatusOr<const SubtitleSprite*> SubtitleFor(const SubtitleCue& cue);

  const CompositorOptions& options() const { return options_; }
  // The still background (studio, colour or image); empty for a video background.
  const VideoFrame& background() const { return background_; }
  VideoBackground* video_background() const { return video_.get(); }
  int threads() const { return pool_->threads(); }
  // Rows per band: fixed by the frame height alone (never by the thread count).
  int band_height() const { return band_height_; }
  int subtitle_layouts_built() const { return subtitle_layouts_built_; }
  // Sprites drawn again from a cached layout with another word highlighted.
  int highlight_redraws() const { return highlight_redraws_; }
  // Byte offset in cue.primary.text up to which words are highlighted at t (0: none).
  int HighlightEnd(const SubtitleCue& cue, MediaTime t) const;
  // Titles set while rendering (the script's `@title`): `title` is shown from
  // its start to its end like those of the options (MediaTime::Max(): until
  // ended). InvalidArgument naming the title when it ends before it starts.
  absl::Status AddTitle(const LowerThird& title);
  // Every title still showing at `t` slides out from `t` (ending
  // title_style.slide_out later); titles that would start after `t` are
  // dropped. Returns when the last one is gone, for a title to follow it.
  MediaTime EndTitles(MediaTime t);
  // The lower-third bar for `title` (cached). For tests and tools.
  absl::StatusOr<const LowerThirdSprite*> TitleSprite(const LowerThird& title);

 private:
  struct CachedSubtitle {
    std::string key;
    std::unique_ptr<SubtitleLayout> layout;  // null: the cue has no text
    std::unique_ptr<SubtitleSprite> sprite;  // no word highlighted
    int highlight_end = 0;                   // what `highlighted` shows
    std::unique_ptr<SubtitleSprite> highlighted;
  };
  struct CachedTitle {
    std::string key;
    std::unique_ptr<LowerThirdSprite> sprite;  // null: an empty title
  };
  // What one frame draws over the background.
  struct FrameLayers {
    const VideoFrame* background = nullptr;
    const SubtitleSprite* sprite = nullptr;
    int opacity = 0;
    bool use_subtitled_background = false;
    const LowerThirdSprite* title = nullptr;
    LowerThirdPose title_pose;
  };

  Compositor(CompositorOptions options, std::unique_ptr<SubtitleRenderer> subtitles, VideoFrame background,
             std::unique_ptr<VideoBackground> video);
  absl::StatusOr<CachedSubtitle*> CachedFor(const SubtitleCue& cue);
  int FadeOpacity(MediaTime t, const SubtitleCue& cue) const;
  // The background under the sprite's rectangle with the sprite blended on at
  // full opacity, built once per sprite: a band then copies it instead of
  // blending the sprite again, except where the avatar or a title lies under
  // the subtitle. Only for a still background.
  void PrepareSubtitledBackground(const SubtitleSprite& sprite);
  void DrawBand(const Rect& band, const FrameLayers& layers, VideoFrame& out) const;

  CompositorOptions options_;
  std::unique_ptr<SubtitleRenderer> subtitles_;
  VideoFrame background_;
  std::unique_ptr<VideoBackground> video_;
  Rect avatar_area_;
  AvatarDrawFn draw_avatar_;
  std::deque<CachedSubtitle> subtitle_cache_;  // most recent first
  int subtitle_layouts_built_ = 0;
  int highlight_redraws_ = 0;
  int64_t subtitle_changes_ = 0, title_changes_ = 0;  // Layers::subtitle_version, title_version
  std::vector<Layers::SpritePatch> subtitle_patches_;  // of the highlighted sprite, oldest first
  std::vector<CachedTitle> title_cache_;
  const SubtitleSprite* subtitled_for_ = nullptr;  // the sprite subtitled_background_ holds
  Rect subtitled_rect_;                            // sprite rect within the frame
  VideoFrame subtitled_background_;                // frame-sized; valid inside subtitled_rect_
  int band_height_ = 0;
  std::unique_ptr<TilePool> pool_;
};

// The avatar's area for a frame size: centred, resting on the bottom, clipped to the frame.
Rect AvatarArea(int width, int height, const AvatarPlacement& placement);

}  // namespace lingcast::compose
