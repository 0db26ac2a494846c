// LC_HOST_DEVICE marks inline functions that the CPU code and the CUDA kernels
// (nvcc) both compile, so both compute the very same thing.
#pragma once

#if defined(__CUDACC__)
#define LC_HOST_DEVICE __host__ __device__
#else
#define LC_HOST_DEVICE
#endif
