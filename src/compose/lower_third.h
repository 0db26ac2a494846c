// A lower-third title: a name/title bar (two lines: a name, and under it what
// the person is, e.g. "Li Na | Host, Lingcast Live") that slides in from the
// left while fading in, stays, and slides back out while fading out.
//
// Placement: the lower left, inside the title-safe area (5 % of the width from
// the left edge), its bottom edge above the tallest subtitle box a cue can have
// at this frame size (SubtitleRenderer::SubtitleZoneTop), so the title and the
// subtitles never overlap whatever the cue. The bar is drawn once per title
// into a sprite; each frame only blits it at the animated offset and opacity.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compose/geometry.h"
#include "compose/subtitle_renderer.h"
#include "core/media_time.h"
#include "media/video_frame.h"

namespace lingcast::compose {

struct LowerThird {
  std::string name;      // first line (bold)
  std::string subtitle;  // second line (may be empty)
  MediaTime start;       // shown while start <= t < end, animations included
  MediaTime end;
};

// "NAME|SUBTITLE" or "NAME" -> a title shown from `start` to `end`.
// InvalidArgument naming the text for an empty name or more than one '|'.
absl::StatusOr<LowerThird> ParseLowerThird(const std::string& text, MediaTime start, MediaTime end);

struct LowerThirdStyle {
  double name_size = 0.044;      // em, fraction of the frame height
  double subtitle_size = 0.030;
  Rgba panel{12, 18, 36, 222};
  Rgba accent{72, 160, 255, 255};  // the bar at the left edge
  Rgba name_color{255, 255, 255, 255};
  Rgba subtitle_color{196, 212, 236, 255};
  double max_width = 0.5;        // of the frame width; longer text ends in "…"
  double left_margin = 0.05;     // of the frame width (title-safe)
  double gap_above_subtitles = 0.02;  // of the frame height
  MediaTime slide_in = MediaTime::Millis(450);
  MediaTime slide_out = MediaTime::Millis(350);
  double slide_distance = 0.3;   // of the bar's width
};

struct LowerThirdSprite {
  VideoFrame image;  // premultiplied RGBA
  Rect area;         // resting place in the frame
};

// Draws the bar for `title` with the fonts of `fonts` (null for an empty name).
absl::StatusOr<std::unique_ptr<LowerThirdSprite>> RenderLowerThird(SubtitleRenderer& fonts, const LowerThird& title,
                                                                   const LowerThirdStyle& style);

// Where the bar is at `t`: its horizontal offset from its resting place and its
// opacity (0: not drawn). Ease-out in, ease-in out; a short title gives each
// animation at most a third of its time.
struct LowerThirdPose {
  int dx = 0;
  int opacity = 0;
};
LowerThirdPose LowerThirdPoseAt(const LowerThird& title, const LowerThirdStyle& style, MediaTime t, int bar_width);

}  // namespace lingcast::compose
