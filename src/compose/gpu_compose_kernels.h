// The CUDA kernel of the GPU compositor's sprite layers (gpu_compositor.h).
// C++17: nvcc compiles it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "avatar/gpu_canvas_kernels.h"

namespace lingcast {
namespace gpu {

// BlitOver (compose/blend.h) on the device: premultiplied `src` with its
// top-left at (x, y) over `dst`, scaled by `opacity` (0..255), clipped to dst.
cudaError_t LaunchBlitOver(const ImageView& dst, const ImageView& src, int32_t x, int32_t y, int32_t opacity,
                           cudaStream_t stream);

}  // namespace gpu
}  // namespace lingcast
