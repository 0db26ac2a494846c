// The studio backdrop: a vertical gradient, a soft light behind the presenter
// and a subtle vignette, computed once per output size (the compositor copies it
// into every frame).
#pragma once

#include "compose/geometry.h"
#include "media/video_frame.h"

namespace lingcast::compose {

struct BackgroundStyle {
  Rgba top{34, 46, 78, 255};
  Rgba bottom{12, 16, 32, 255};
  Rgba glow{78, 108, 170, 255};  // light behind the presenter
  double glow_x = 0.5;           // glow centre, fractions of width and height
  double glow_y = 0.42;
  double glow_radius = 0.55;     // fraction of the frame height
  double glow_strength = 0.45;   // 0..1
  double vignette = 0.35;        // darkening at the corners, 0..1
};

// An opaque frame of `width` x `height`. Deterministic; a tiny ordered dither
// keeps the smooth gradient from banding after 8-bit encoding.
VideoFrame MakeStudioBackground(int width, int height, const BackgroundStyle& style);

}  // namespace lingcast::compose
