// Small value types shared by the compositor's drawing code.
#pragma once

#include <cstdint>

#include "media/rect.h"

namespace lingcast::compose {

using ::lingcast::Rect;  // media/rect.h

// A colour with straight (not premultiplied) alpha, as a user writes it.
struct Rgba {
  uint8_t r = 0;
  uint8_t g = 0;
  uint8_t b = 0;
  uint8_t a = 255;
  bool operator==(const Rgba&) const = default;
};

}  // namespace lingcast::compose
