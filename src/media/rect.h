// Rect: a rectangle of whole pixels in a frame, [x, x + width) x [y, y + height).
// Shared by everything that draws into a VideoFrame (avatar, compositor).
#pragma once

#include <algorithm>

namespace lingcast {

struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;

  int right() const { return x + width; }
  int bottom() const { return y + height; }
  bool empty() const { return width <= 0 || height <= 0; }
  Rect Intersect(const Rect& o) const {
    const int l = std::max(x, o.x), t = std::max(y, o.y);
    const int r = std::min(right(), o.right()), b = std::min(bottom(), o.bottom());
    return r > l && b > t ? Rect{l, t, r - l, b - t} : Rect{};
  }
  // The smallest rectangle holding both (an empty one adds nothing).
  Rect Union(const Rect& o) const {
    if (o.empty()) return *this;
    if (empty()) return o;
    const int l = std::min(x, o.x), t = std::min(y, o.y);
    return Rect{l, t, std::max(right(), o.right()) - l, std::max(bottom(), o.bottom()) - t};
  }
  bool operator==(const Rect&) const = default;
};

}  // namespace lingcast
