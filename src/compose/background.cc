#include "compose/background.h"

#include <algorithm>
#include <cmath>

namespace lingcast::compose {
namespace {

// 4x4 Bayer matrix, centred on zero, in units of 1/16 of a code value.
constexpr int kBayer4[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};

double Lerp(double a, double b, double t) { return a + (b - a) * t; }

}  // namespace

VideoFrame MakeStudioBackground(int width, int height, const BackgroundStyle& style) {
  VideoFrame frame;
  frame.Allocate(width, height);
  const double inv_h = 1.0 / std::max(1, height - 1);
  const double glow_cx = style.glow_x * width, glow_cy = style.glow_y * height;
  const double glow_r = std::max(1.0, style.glow_radius * height);
  const double half_diagonal = std::hypot(width / 2.0, height / 2.0);
  for (int y = 0; y < height; ++y) {
    const double t = y * inv_h;
    // Ease the gradient so the lower half darkens faster, like a lit studio wall.
    const double eased = t * t * (3 - 2 * t);
    const double base[3] = {Lerp(style.top.r, style.bottom.r, eased),
                            Lerp(style.top.g, style.bottom.g, eased),
                            Lerp(style.top.b, style.bottom.b, eased)};
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      const double gd = std::hypot(x - glow_cx, (y - glow_cy) * 1.15) / glow_r;
      const double glow = style.glow_strength * std::exp(-2.2 * gd * gd);
      const double vd = std::hypot(x - width / 2.0, y - height / 2.0) / half_diagonal;
      const double shade = 1.0 - style.vignette * std::pow(vd, 2.2);
      const double dither = (kBayer4[y & 3][x & 3] + 0.5) / 16.0 - 0.5;
      const double glow_rgb[3] = {static_cast<double>(style.glow.r), static_cast<double>(style.glow.g),
                                  static_cast<double>(style.glow.b)};
      for (int c = 0; c < 3; ++c) {
        const double v = Lerp(base[c], glow_rgb[c], glow) * shade + dither;
        row[x * 4 + c] = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
      }
      row[x * 4 + 3] = 255;
    }
  }
  return frame;
}

}  // namespace lingcast::compose
