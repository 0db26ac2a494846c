// Small value types shared by the compositor's drawing code.
#pragma once

#include <algorithm>
#include <cstdint>

#include "media/rect.h"

namespace lingcast::compose {

using ::lingcast::Rect;  // media/rect.h

// The smallest rectangle holding both (an empty one adds nothing).
inline Rect Union(const Rect& a, const Rect& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const int l = std::min(a.x, b.x), t = std::min(a.y, b.y);
  return Rect{l, t, std::max(a.right(), b.right()) - l, std::max(a.bottom(), b.bottom()) - t};
}

// A colour with straight (not premultiplied) alpha, as a user writes it.
struct Rgba {
  uint8_t r = 0;
  uint8_t g = 0;
  uint8_t b = 0;
  uint8_t a = 255;
  bool operator==(const Rgba&) const = default;
};

}  // namespace lingcast::compose
