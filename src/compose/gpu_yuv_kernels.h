// The CUDA kernel of the GPU colour conversion (gpu_yuv.h). C++17: nvcc compiles it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace lingcast {
namespace gpu {

// Device planes of a YUV 4:2:0 picture.
struct Yuv420View {
  uint8_t* y;
  int32_t y_stride;
  uint8_t* u;
  int32_t u_stride;
  uint8_t* v;
  int32_t v_stride;
};

// RGBA8 (width x height, even sizes, `rgba_stride` a multiple of 8) -> BT.709
// limited-range yuv420p with media/bt709.h's arithmetic. Returns the launch error.
cudaError_t LaunchRgbaToYuv420(const uint8_t* rgba, int32_t rgba_stride, int32_t width, int32_t height,
                               const Yuv420View& out, cudaStream_t stream);

}  // namespace gpu
}  // namespace lingcast
