// What is behind the avatar. The default is the studio backdrop: a vertical
// gradient, a soft light behind the presenter and a subtle vignette, computed
// once per output size (the compositor copies it into every frame). A solid
// colour, an image or a looping video (compose/media_background.h) can replace it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "compose/geometry.h"
#include "compose/media_background.h"
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

// An opaque frame of one colour (its alpha is ignored).
VideoFrame MakeSolidBackground(int width, int height, Rgba color);

enum class BackgroundKind { kStudio, kColor, kImage, kVideo };

// Which background the compositor draws.
struct BackgroundSource {
  BackgroundKind kind = BackgroundKind::kStudio;
  Rgba color;                                  // kColor
  std::string path;                            // kImage, kVideo
  BackgroundFit fit = BackgroundFit::kCover;   // kImage, kVideo
  int video_queue_frames = VideoBackground::kDefaultQueueFrames;
};

// "#RRGGBB" (case-insensitive) -> an opaque colour; InvalidArgument otherwise.
absl::StatusOr<Rgba> ParseHexColor(const std::string& text);

// The --background argument: "studio", "#RRGGBB", or a file, which is probed:
// one picture makes an image background, more a looping video. Errors name the
// argument or the file (see ProbeBackgroundFile).
absl::StatusOr<BackgroundSource> ParseBackgroundArgument(const std::string& text, BackgroundFit fit);

}  // namespace lingcast::compose
