// A thread per destination pixel, with blend_pixel.h's packed arithmetic: the
// bytes of the CPU's BlitOver (blend.cc).
#include "compose/blend_pixel.h"
#include "compose/gpu_compose_kernels.h"

namespace lingcast {
namespace gpu {
namespace {

__global__ void BlitOver(ImageView dst, ImageView src, int32_t x0, int32_t y0, int32_t width, int32_t height,
                         int32_t src_x, int32_t src_y, uint32_t scale) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= width || j >= height) return;
  uint32_t sp = *reinterpret_cast<const uint32_t*>(src.pixels + static_cast<int64_t>(src_y + j) * src.stride +
                                                   static_cast<int64_t>(src_x + i) * 4);
  if (sp == 0) return;
  if (scale != 255) sp = compose::ScalePacked(sp, scale);
  uint32_t* d = reinterpret_cast<uint32_t*>(dst.pixels + static_cast<int64_t>(y0 + j) * dst.stride +
                                            static_cast<int64_t>(x0 + i) * 4);
  *d = compose::OverPacked(sp, *d);
}

}  // namespace

cudaError_t LaunchBlitOver(const ImageView& dst, const ImageView& src, int32_t x, int32_t y, int32_t opacity,
                           cudaStream_t stream) {
  opacity = opacity < 0 ? 0 : (opacity > 255 ? 255 : opacity);
  const int32_t x0 = x > 0 ? x : 0, y0 = y > 0 ? y : 0;
  const int32_t x1 = x + src.width < dst.width ? x + src.width : dst.width;
  const int32_t y1 = y + src.height < dst.height ? y + src.height : dst.height;
  if (x0 >= x1 || y0 >= y1 || opacity == 0) return cudaGetLastError();
  const dim3 block(32, 8);
  const dim3 grid((x1 - x0 + block.x - 1) / block.x, (y1 - y0 + block.y - 1) / block.y);
  BlitOver<<<grid, block, 0, stream>>>(dst, src, x0, y0, x1 - x0, y1 - y0, x0 - x, y0 - y,
                                       static_cast<uint32_t>(opacity));
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace lingcast
