// Premultiplied-alpha drawing primitives on VideoFrame: coverage masks (glyphs),
// antialiased rounded rectangles and image-over-image blits. All clip to the
// destination, so a caller can never write outside the frame.
#pragma once

#include <cstdint>

#include "compose/geometry.h"
#include "media/video_frame.h"

namespace lingcast::compose {

// (v + 127) / 255 rounded, exact for v in [0, 255 * 255].
inline uint32_t Div255(uint32_t v) { return (v + 128 + ((v + 128) >> 8)) >> 8; }

// Source-over of `color` through an 8-bit coverage mask whose top-left lands at (x, y).
// Only pixels inside `clip` (when given) are written, each with the bytes the
// unclipped call gives it: a region can be redrawn alone.
void BlendMask(VideoFrame& dst, int x, int y, const uint8_t* mask, int mask_width,
               int mask_height, int mask_stride, Rgba color, const Rect* clip = nullptr);

// Source-over of an antialiased rounded rectangle (float edges, radius in pixels),
// limited to `clip` when given.
void FillRoundedRect(VideoFrame& dst, float x, float y, float width, float height, float radius,
                     Rgba color, const Rect* clip = nullptr);

// Source-over of premultiplied `src` with its top-left at (x, y), scaled by
// `opacity` (0..255, for fades).
void BlitOver(VideoFrame& dst, const VideoFrame& src, int x, int y, int opacity = 255);
// The same, writing only the pixels of `dst` inside `clip` (one tile of a frame):
// each pixel gets exactly the bytes the whole blit gives it.
void BlitOver(VideoFrame& dst, const VideoFrame& src, int x, int y, int opacity, const Rect& clip);

// Copies the pixels of `src` inside `rect` to the same place in `dst` (same size).
void CopyRect(VideoFrame& dst, const VideoFrame& src, const Rect& rect);

}  // namespace lingcast::compose
