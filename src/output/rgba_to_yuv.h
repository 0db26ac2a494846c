// RGBA8 -> yuv420p with the BT.709 matrix in limited (16..235 / 16..240) range.
//
// Our own converter because it sits on the hot path of every render: at 720p
// libswscale 5.1 (bilinear, BT.709) takes about 3.7 ms a frame on this machine,
// a large share of a 2-core encode budget in which x264 veryfast itself needs
// about 7 ms of CPU a frame; this plain loop, auto-vectorised (AVX2 where the
// CPU has it, chosen at run time), takes about 1.4 ms. Chroma is the mean of each 2x2
// block, so its samples sit at the block centre (AVCHROMA_LOC_CENTER).
#pragma once

#include <cstdint>

namespace lingcast {

struct Yuv420Planes {
  uint8_t* y;
  int y_stride;
  uint8_t* u;  // Cb
  int u_stride;
  uint8_t* v;  // Cr
  int v_stride;
};

// `rgba`: width x height pixels, `rgba_stride` bytes a row, R G B A bytes; the
// alpha byte is ignored (opaque frames; premultiplied pixels come out as if
// over black). Width and height must be even.
void RgbaToYuv420Bt709(const uint8_t* rgba, int rgba_stride, int width, int height, const Yuv420Planes& out);

}  // namespace lingcast
