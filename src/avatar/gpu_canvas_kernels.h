// The CUDA side of GpuCanvas (gpu_canvas.h): the fills of a display list, as
// the kernels see them, and the call that runs the list. Kept C++17 and free of
// project types beyond shading.h, since nvcc compiles it (CMake 3.25 has no
// CUDA20 flags for nvcc).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "avatar/shading.h"

namespace lingcast {
namespace gpu {

// A polygon edge in 1/256 pixel units (Canvas's snapped coordinates), from
// (x0, y0) to (x1, y1) in the polygon's own order, of fill `command`.
struct SnappedEdge {
  int32_t x0, y0, x1, y1;
  int32_t command;
};

// A premultiplied RGBA8 image in device memory.
struct ImageView {
  uint8_t* pixels;
  int32_t width, height, stride;
};

enum class FillKind : int32_t { kSolid, kLinear, kRadial, kImage, kClipMask };

// One shape of the display list: its edges rasterized over `area` (already cut
// to the canvas's clip and the active clip mask), then shaded per pixel.
struct FillCommand {
  FillKind kind;
  int32_t area_x, area_y, area_width, area_height;
  int64_t cells;                   // offset of its cell grid ((area_width + 2) x area_height) in the arena
  Rgba8 solid;                     // kSolid, opacity applied
  int32_t table;                   // kLinear/kRadial: index of its 256-entry colour table
  GradientMap map;                 // kLinear/kRadial
  const uint8_t* image;            // kImage: device pixels, premultiplied
  int32_t image_width, image_height, image_stride;
  float to_image[6];   // kImage: device pixel centre -> image pixels (Affine a..f)
  uint32_t opacity;    // kImage: 0..255
  int64_t mask;        // offset of the clip mask limiting this fill in the mask arena, or -1
  int32_t mask_x, mask_y, mask_width;
  int64_t output_mask;  // kClipMask: offset of the mask it writes (area_width x area_height)
};

// Device memory a display list runs with.
struct FillResources {
  const SnappedEdge* edges;
  int32_t edge_count;
  const FillCommand* commands;  // in drawing order
  int32_t command_count;
  const Rgba8* tables;  // 256 per gradient
  uint8_t* masks;       // the clip-mask arena
  int32_t* cells;       // the cell arena: every command's grid, all zero on entry, left all zero
};

// Enqueues the whole list on `stream` as two kernels: every edge of every
// command into its own cell grid, then a block per target row [first_row,
// first_row + rows) that runs the commands in order over its row. Returns the
// launch error, if any.
cudaError_t LaunchFills(const FillResources& resources, int32_t first_row, int32_t rows, const ImageView& target,
                        cudaStream_t stream);

}  // namespace gpu
}  // namespace lingcast
