// The GPU half of the canvas: the very arithmetic of Canvas::Rasterize and
// Canvas::FillPolygons (canvas.cc), in two kernels for a whole display list.
//
//  1. AccumulateEdges: a thread per edge walks it row by row and cell by cell,
//     adding cover and area into its command's cell grid with integer atomics.
//     Integer sums do not depend on order, so each grid holds exactly the
//     CPU's values.
//  2. ShadeRows: a block per target row runs the commands in drawing order.
//     For each command covering the row it turns the cells into coverage by a
//     prefix sum (the CPU's running sum), clears them, and shades each pixel
//     with the shading.h functions the CPU uses (compiled with --fmad=false).
//     A row belongs to one block, so the order of the layers on every pixel is
//     the CPU's; a clip mask's row is written before the fills that read it.
// Two launches a frame, however many shapes: a rig of 80 layers would
// otherwise spend more time launching kernels than drawing.
#include <cub/block/block_scan.cuh>

#include "avatar/gpu_canvas_kernels.h"

namespace lingcast {
namespace gpu {
namespace {

constexpr int64_t kSub = 256;
constexpr int kRowThreads = 256;

__device__ int64_t FloorDiv(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  if ((a % b) < 0) --q;
  return q;
}

__device__ int64_t RoundDiv(int64_t num, int64_t den) {  // den > 0, halves up
  int64_t q = num / den, r = num % den;
  if (r < 0) {
    --q;
    r += den;
  }
  if (2 * r >= den) ++q;
  return q;
}

// Adds `value` to a cell with the CPU's int32 wrap-around (unsigned atomics wrap
// by definition; the bits are those of the CPU's int32 sum).
__device__ void AddToCell(int32_t* cell, int64_t value) {
  atomicAdd(reinterpret_cast<unsigned int*>(cell), static_cast<unsigned int>(static_cast<int32_t>(value)));
}

struct Area {
  int64_t x, y, width, height, stride;
  int32_t* cells;
};

__device__ void AddLeft(const Area& a, int64_t r, int64_t dy) { AddToCell(&a.cells[r * a.stride], dy * 2 * kSub); }

__device__ void AddCell(const Area& a, int64_t r, int64_t col, int64_t xa, int64_t xb, int64_t dy) {
  const int64_t local = col - a.x;
  const int64_t sum = xa + xb - 2 * col * kSub;  // 0 .. 512
  int32_t* cell = &a.cells[r * a.stride + local];
  AddToCell(&cell[0], dy * (2 * kSub - sum));
  AddToCell(&cell[1], dy * sum);
}

// One edge piece within pixel row r: canvas.cc's add_row_piece.
__device__ void AddRowPiece(const Area& a, int64_t r, int64_t xa, int64_t xb, int64_t total, int sign) {
  const int64_t clip_x0 = a.x * kSub, clip_x1 = (a.x + a.width) * kSub;
  const int64_t lo = xa < xb ? xa : xb, hi = xa < xb ? xb : xa;
  if (hi <= clip_x0) return AddLeft(a, r, total * sign);
  if (lo >= clip_x1) return;
  if (lo == hi) return AddCell(a, r, FloorDiv(lo, kSub), lo, lo, total * sign);
  auto rise = [&](int64_t x) { return x >= hi ? total : RoundDiv((x - lo) * total, hi - lo); };
  int64_t x = lo, prev = 0;
  if (lo < clip_x0) {
    prev = rise(clip_x0);
    AddLeft(a, r, prev * sign);
    x = clip_x0;
  }
  const int64_t end = hi < clip_x1 ? hi : clip_x1;
  int64_t col = FloorDiv(x, kSub);
  while (x < end) {
    const int64_t cell_end = (col + 1) * kSub;
    const int64_t nx = end < cell_end ? end : cell_end;
    const int64_t next = rise(nx);
    AddCell(a, r, col, x, nx, (next - prev) * sign);
    x = nx;
    prev = next;
    ++col;
  }
}

__global__ void AccumulateEdges(FillResources res) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= res.edge_count) return;
  const SnappedEdge e = res.edges[index];
  const FillCommand& command = res.commands[e.command];
  const Area a{command.area_x, command.area_y, command.area_width, command.area_height, command.area_width + 2,
               res.cells + command.cells};
  int64_t x0 = e.x0, y0 = e.y0, x1 = e.x1, y1 = e.y1;
  if (y0 == y1) return;
  int sign = 1;
  if (y0 > y1) {
    int64_t t = x0;
    x0 = x1;
    x1 = t;
    t = y0;
    y0 = y1;
    y1 = t;
    sign = -1;
  }
  const int64_t clip_y0 = a.y * kSub, clip_y1 = (a.y + a.height) * kSub;
  if (y1 <= clip_y0 || y0 >= clip_y1) return;
  auto x_at = [&](int64_t y) {
    if (y == y0) return x0;
    if (y == y1) return x1;
    return x0 + RoundDiv((y - y0) * (x1 - x0), y1 - y0);
  };
  int64_t ya = y0 > clip_y0 ? y0 : clip_y0;
  const int64_t ye = y1 < clip_y1 ? y1 : clip_y1;
  int64_t xa = x_at(ya);
  int64_t row = FloorDiv(ya, kSub);
  while (ya < ye) {
    const int64_t row_end = (row + 1) * kSub;
    const int64_t yb = ye < row_end ? ye : row_end;
    const int64_t xb = x_at(yb);
    AddRowPiece(a, row - a.y, xa, xb, yb - ya, sign);
    ya = yb;
    xa = xb;
    ++row;
  }
}

// Shades pixel (x, y) of the command at 8-bit coverage `c`: FillPolygons' and
// FillImage's per-pixel steps.
__device__ void ShadePixel(const FillCommand& command, const FillResources& res, const ImageView& target, int x, int y,
                           uint32_t c) {
  if (command.mask >= 0) {
    c = MulDiv255(c, res.masks[command.mask + static_cast<int64_t>(y - command.mask_y) * command.mask_width +
                               (x - command.mask_x)]);
  }
  if (command.kind == FillKind::kClipMask) {
    res.masks[command.output_mask + static_cast<int64_t>(y - command.area_y) * command.area_width +
              (x - command.area_x)] = static_cast<uint8_t>(c);
    return;
  }
  uint8_t* px = target.pixels + static_cast<int64_t>(y) * target.stride + static_cast<int64_t>(x) * 4;
  const float pxc = static_cast<float>(x) + 0.5f, pyc = static_cast<float>(y) + 0.5f;
  switch (command.kind) {
    case FillKind::kSolid:
      if (c != 0) BlendSourceOver(px, command.solid, c);
      return;
    case FillKind::kLinear:
      if (c != 0) BlendSourceOver(px, res.tables[command.table * 256 + GradientIndex(LinearGradientT(command.map, pxc, pyc))], c);
      return;
    case FillKind::kRadial:
      if (c != 0) BlendSourceOver(px, res.tables[command.table * 256 + GradientIndex(RadialGradientT(command.map, pxc, pyc))], c);
      return;
    case FillKind::kImage: {
      if (command.opacity != 255) c = MulDiv255(c, command.opacity);
      if (c == 0) return;
      const float* m = command.to_image;
      const float u = m[0] * pxc + m[2] * pyc + m[4];
      const float v = m[1] * pxc + m[3] * pyc + m[5];
      const Rgba8 color =
          SampleBilinear(command.image, command.image_stride, command.image_width, command.image_height, u, v);
      if (color.a != 0) BlendSourceOver(px, color, c);
      return;
    }
    case FillKind::kClipMask:
      return;
  }
}

__global__ void __launch_bounds__(kRowThreads) ShadeRows(FillResources res, int32_t first_row, ImageView target) {
  using Scan = cub::BlockScan<uint32_t, kRowThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  const int y = first_row + static_cast<int>(blockIdx.x);
  for (int k = 0; k < res.command_count; ++k) {
    const FillCommand& command = res.commands[k];
    // The same for every thread of the block: the __syncthreads below are reached by all or none.
    if (y < command.area_y || y >= command.area_y + command.area_height) continue;
    const int n = command.area_width;
    int32_t* cells = res.cells + command.cells + static_cast<int64_t>(y - command.area_y) * (n + 2);
    const int per_thread = (n + kRowThreads - 1) / kRowThreads;
    const int begin = min(n, static_cast<int>(threadIdx.x) * per_thread);
    const int end = min(n, begin + per_thread);
    // Sums in uint32: the same bits as the CPU's int32 running sum.
    uint32_t local = 0;
    for (int i = begin; i < end; ++i) local += static_cast<uint32_t>(cells[i]);
    uint32_t acc = 0;
    Scan(scan_storage).ExclusiveSum(local, acc);
    for (int i = begin; i < end; ++i) {
      acc += static_cast<uint32_t>(cells[i]);
      cells[i] = 0;
      ShadePixel(command, res, target, command.area_x + i, y, CoverageToAlpha(static_cast<int32_t>(acc)));
    }
    if (threadIdx.x == 0) {
      cells[n] = 0;
      cells[n + 1] = 0;
    }
    // The next command may shade these pixels from other threads, and reuses the scan's storage.
    __syncthreads();
  }
}

}  // namespace

cudaError_t LaunchFills(const FillResources& resources, int32_t first_row, int32_t rows, const ImageView& target,
                        cudaStream_t stream) {
  constexpr int kEdgeThreads = 128;
  if (resources.edge_count > 0) {
    AccumulateEdges<<<(resources.edge_count + kEdgeThreads - 1) / kEdgeThreads, kEdgeThreads, 0, stream>>>(
        resources);
  }
  if (rows > 0 && resources.command_count > 0) {
    ShadeRows<<<rows, kRowThreads, 0, stream>>>(resources, first_row, target);
  }
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace lingcast
