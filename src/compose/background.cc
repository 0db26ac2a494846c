#include "compose/background.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast::compose {
namespace {

// 4x4 Bayer matrix, centred on zero, in units of 1/16 of a code value.
constexpr int kBayer4[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};

double Lerp(double a, double b, double t) { return a + (b - a) * t; }

}  // namespace

VideoFrame MakeStudioBackground(int width, int height, const BackgroundStyle& style) {
  VideoFrame frame;
  frame.Allocate(width, height);
  // The glow is a Gaussian exp(-k (dx^2 + dy^2)) = exp(-k dx^2) * exp(-k dy^2) and the
  // vignette grows with the squared distance from the centre: both separate into a
  // per-column and a per-row factor, so a 4K frame costs multiplications only.
  const double glow_r = std::max(1.0, style.glow_radius * height);
  const double k = 2.2 / (glow_r * glow_r);
  const double half_diagonal_sq = (width * width + height * height) / 4.0;
  std::vector<double> glow_x(width), vig_x(width);
  for (int x = 0; x < width; ++x) {
    const double dx = x + 0.5 - style.glow_x * width, cx = x + 0.5 - width / 2.0;
    glow_x[x] = std::exp(-k * dx * dx);
    vig_x[x] = cx * cx / half_diagonal_sq;
  }
  const double inv_h = 1.0 / std::max(1, height - 1);
  const double glow_rgb[3] = {static_cast<double>(style.glow.r), static_cast<double>(style.glow.g),
                              static_cast<double>(style.glow.b)};
  for (int y = 0; y < height; ++y) {
    const double t = y * inv_h;
    // Eased so the lower part darkens faster, like a lit studio wall.
    const double eased = t * t * (3 - 2 * t);
    const double base[3] = {Lerp(style.top.r, style.bottom.r, eased),
                            Lerp(style.top.g, style.bottom.g, eased),
                            Lerp(style.top.b, style.bottom.b, eased)};
    const double dy = (y + 0.5 - style.glow_y * height) * 1.15, cy = y + 0.5 - height / 2.0;
    const double glow_y = style.glow_strength * std::exp(-k * dy * dy);
    const double vig_y = cy * cy / half_diagonal_sq;
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      const double glow = glow_y * glow_x[x];
      const double vd2 = vig_x[x] + vig_y;
      const double shade = 1.0 - style.vignette * vd2 * vd2 * 0.5 - style.vignette * vd2 * 0.5;
      const double dither = (kBayer4[y & 3][x & 3] + 0.5) / 16.0 - 0.5;
      for (int c = 0; c < 3; ++c) {
        const double v = Lerp(base[c], glow_rgb[c], glow) * shade + dither;
        row[x * 4 + c] = static_cast<uint8_t>(std::clamp(v + 0.5, 0.0, 255.0));
      }
      row[x * 4 + 3] = 255;
    }
  }
  return frame;
}

VideoFrame MakeSolidBackground(int width, int height, Rgba color) {
  VideoFrame frame;
  frame.Allocate(width, height);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      row[x * 4 + 0] = color.r;
      row[x * 4 + 1] = color.g;
      row[x * 4 + 2] = color.b;
      row[x * 4 + 3] = 255;
    }
  }
  return frame;
}

absl::StatusOr<Rgba> ParseHexColor(const std::string& text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(absl::StrCat("colour ", text, ": expected #RRGGBB, e.g. #1A2B3C"));
  };
  if (text.size() != 7 || text[0] != '#') return bad();
  uint8_t channels[3];
  for (int c = 0; c < 3; ++c) {
    int value = 0;
    for (int k = 1; k <= 2; ++k) {
      const char ch = absl::ascii_tolower(static_cast<unsigned char>(text[c * 2 + k]));
      const int digit = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
      if (digit < 0) return bad();
      value = value * 16 + digit;
    }
    channels[c] = static_cast<uint8_t>(value);
  }
  return Rgba{channels[0], channels[1], channels[2], 255};
}

absl::StatusOr<BackgroundSource> ParseBackgroundArgument(const std::string& text, BackgroundFit fit) {
  BackgroundSource source;
  source.fit = fit;
  if (text.empty() || text == "studio") return source;
  if (text[0] == '#') {
    absl::StatusOr<Rgba> color = ParseHexColor(text);
    if (!color.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--background ", text, ": expected studio, #RRGGBB or a file"));
    }
    source.kind = BackgroundKind::kColor;
    source.color = *color;
    return source;
  }
  LC_ASSIGN_OR_RETURN(MediaProbe probe, ProbeBackgroundFile(text));
  source.kind = probe.frame_count > 1 ? BackgroundKind::kVideo : BackgroundKind::kImage;
  source.path = text;
  return source;
}

}  // namespace lingcast::compose
