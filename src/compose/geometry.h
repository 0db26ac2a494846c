// Small value types shared by the compositor's drawing code.
#pragma once

#include <cstdint>

namespace lingcast::compose {

// An axis-aligned pixel rectangle: [x, x + width) x [y, y + height).
struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;

  int right() const { return x + width; }
  int bottom() const { return y + height; }
  bool empty() const { return width <= 0 || height <= 0; }
  bool operator==(const Rect&) const = default;
};

// A colour with straight (not premultiplied) alpha, as a user writes it.
struct Rgba {
  uint8_t r = 0;
  uint8_t g = 0;
  uint8_t b = 0;
  uint8_t a = 255;
  bool operator==(const Rgba&) const = default;
};

}  // namespace lingcast::compose
