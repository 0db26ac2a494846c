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

// The same in `threads` bands of rows at once (the calling thread takes one):
// identical output. At 4K a frame takes about 10 ms on one core, 60% of a core
// at 60 fps and most of the encode thread's time, so big frames on many cores
// are cut into bands (ConversionThreadsFor).
void RgbaToYuv420Bt709(const uint8_t* rgba, int rgba_stride, int width, int height, const Yuv420Planes& out,
                       int threads);

// How many bands the encoder converts a width x height frame in on a machine of
// `cores`: one below 1920x1080 or under 4 cores (the 2-core default machine keeps
// its cores for x264), else a band per 1920x1080 worth of pixels, at most cores / 2.
int ConversionThreadsFor(int width, int height, int cores);

}  // namespace lingcast
