// A thread per 2x2 block: four luma samples and one Cb, one Cr, with
// media/bt709.h's integer arithmetic, exactly as output/rgba_to_yuv.cc.
#include "compose/gpu_yuv_kernels.h"
#include "media/bt709.h"

namespace lingcast {
namespace gpu {
namespace {

__global__ void RgbaToYuv420(const uint8_t* __restrict__ rgba, int32_t rgba_stride, int32_t half_width,
                             int32_t half_height, Yuv420View out) {
  const int cx = blockIdx.x * blockDim.x + threadIdx.x;
  const int cy = blockIdx.y * blockDim.y + threadIdx.y;
  if (cx >= half_width || cy >= half_height) return;
  // Two pixels of each row in one 8-byte load.
  const uint8_t* row0 = rgba + static_cast<int64_t>(2 * cy) * rgba_stride + static_cast<int64_t>(cx) * 8;
  const uint2 top = *reinterpret_cast<const uint2*>(row0);
  const uint2 bottom = *reinterpret_cast<const uint2*>(row0 + rgba_stride);
  auto channel = [](unsigned int pixel, int c) { return static_cast<int>((pixel >> (8 * c)) & 0xFF); };
  uchar2 y0, y1;
  y0.x = bt709::Luma(channel(top.x, 0), channel(top.x, 1), channel(top.x, 2));
  y0.y = bt709::Luma(channel(top.y, 0), channel(top.y, 1), channel(top.y, 2));
  y1.x = bt709::Luma(channel(bottom.x, 0), channel(bottom.x, 1), channel(bottom.x, 2));
  y1.y = bt709::Luma(channel(bottom.y, 0), channel(bottom.y, 1), channel(bottom.y, 2));
  *reinterpret_cast<uchar2*>(out.y + static_cast<int64_t>(2 * cy) * out.y_stride + 2 * cx) = y0;
  *reinterpret_cast<uchar2*>(out.y + static_cast<int64_t>(2 * cy + 1) * out.y_stride + 2 * cx) = y1;
  int sum[3];
  for (int c = 0; c < 3; ++c) sum[c] = channel(top.x, c) + channel(top.y, c) + channel(bottom.x, c) + channel(bottom.y, c);
  out.u[static_cast<int64_t>(cy) * out.u_stride + cx] = bt709::Cb(sum[0], sum[1], sum[2]);
  out.v[static_cast<int64_t>(cy) * out.v_stride + cx] = bt709::Cr(sum[0], sum[1], sum[2]);
}

}  // namespace

cudaError_t LaunchRgbaToYuv420(const uint8_t* rgba, int32_t rgba_stride, int32_t width, int32_t height,
                               const Yuv420View& out, cudaStream_t stream) {
  const dim3 block(64, 4);
  const int32_t half_width = width / 2, half_height = height / 2;
  const dim3 grid((half_width + block.x - 1) / block.x, (half_height + block.y - 1) / block.y);
  if (half_width > 0 && half_height > 0) {
    RgbaToYuv420<<<grid, block, 0, stream>>>(rgba, rgba_stride, half_width, half_height, out);
  }
  return cudaGetLastError();
}

}  // namespace gpu
}  // namespace lingcast
