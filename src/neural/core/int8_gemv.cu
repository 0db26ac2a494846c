// The fused int8-weight matrix-vector kernel behind int8_gemv.h (CUDA builds only;
// no libtorch here, so this file compiles with nvcc alone).
//
// Decode at batch 1 reads every weight once per step for a few rows of
// activations: the time is the weight bytes. Dequantize-then-matmul moves the
// int8 weight, writes an fp16 copy and reads it again; here each weight byte is
// read once, widened in registers and multiplied into fp32 sums, so a step moves
// about half of fp16's bytes.
//
// One warp per output row: its 32 lanes stride across the row 16 weights (one
// 16-byte load) at a time, each keeping M fp32 sums; a butterfly of shuffles
// adds the lanes, and lane 0 scales, adds the bias and writes the M outputs.
// The activations (M rows of K) are small and read through the read-only cache
// by every warp.
#include "neural/core/int8_gemv_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace lingcast::neural {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kWeightsPerLoad = 16;  // one 16-byte load of int8

__device__ __forceinline__ float2 ToFloat2(__half2 v) { return __half22float2(v); }
__device__ __forceinline__ float2 ToFloat2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
__device__ __forceinline__ float ToFloat(__half v) { return __half2float(v); }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T>
__device__ __forceinline__ T FromFloat(float v);
template <>
__device__ __forceinline__ __half FromFloat<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T> struct Pair;
template <> struct Pair<__half> { using type = __half2; };
template <> struct Pair<__nv_bfloat16> { using type = __nv_bfloat162; };

// T: __half or __nv_bfloat16. M: activation rows (1..8). kVectorized: the rows of
// w and x start on 16-byte boundaries (K % 16 == 0 and aligned bases), so the
// bulk of each row goes by 16-byte loads; the rest (or all, when not) one by one.
template <typename T, int M, bool kVectorized>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    Int8GemvKernel(const T* __restrict__ x, const signed char* __restrict__ w, const T* __restrict__ scales,
                   const T* __restrict__ bias, T* __restrict__ y, int n, int k) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= n) return;
  const signed char* w_row = w + static_cast<long long>(row) * k;
  float sum[M];
#pragma unroll
  for (int m = 0; m < M; ++m) sum[m] = 0.f;

  int done = 0;
  if constexpr (kVectorized) {
    using T2 = typename Pair<T>::type;
    const int loads = k / kWeightsPerLoad;
    for (int i = lane; i < loads; i += 32) {
      const int4 packed = __ldg(reinterpret_cast<const int4*>(w_row) + i);
      float wf[kWeightsPerLoad];
      const int words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int b = 0; b < 4; ++b) wf[4 * j + b] = static_cast<float>(static_cast<signed char>(words[j] >> (8 * b)));
      }
#pragma unroll
      for (int m = 0; m < M; ++m) {
        // 16 activations: two 16-byte loads of 8 values.
        const int4* xv = reinterpret_cast<const int4*>(x + static_cast<long long>(m) * k) + 2 * i;
        const int4 halves[2] = {__ldg(xv), __ldg(xv + 1)};
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const T2* pairs = reinterpret_cast<const T2*>(&halves[h]);
#pragma unroll
          for (int p = 0; p < 4; ++p) {
            const float2 xf = ToFloat2(pairs[p]);
            sum[m] = fmaf(wf[8 * h + 2 * p], xf.x, sum[m]);
            sum[m] = fmaf(wf[8 * h + 2 * p + 1], xf.y, sum[m]);
          }
        }
      }
    }
    done = loads * kWeightsPerLoad;
  }
  for (int c = done + lane; c < k; c += 32) {
    const float wf = static_cast<float>(w_row[c]);
#pragma unroll
    for (int m = 0; m < M; ++m) sum[m] = fmaf(wf, ToFloat(x[static_cast<long long>(m) * k + c]), sum[m]);
  }

#pragma unroll
  for (int m = 0; m < M; ++m) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) sum[m] += __shfl_xor_sync(0xffffffffu, sum[m], offset);
  }
  if (lane == 0) {
    const float scale = ToFloat(scales[row]);
    const float b = bias != nullptr ? ToFloat(bias[row]) : 0.f;
#pragma unroll
    for (int m = 0; m < M; ++m) y[static_cast<long long>(m) * n + row] = FromFloat<T>(sum[m] * scale + b);
  }
}

template <typename T, int M>
void LaunchRows(const Int8GemvArgs& a, bool vectorized, cudaStream_t stream) {
  const dim3 grid((a.n + kWarpsPerBlock - 1) / kWarpsPerBlock);
  const dim3 block(kWarpsPerBlock * 32);
  const T* x = static_cast<const T*>(a.x);
  const T* scales = static_cast<const T*>(a.scales);
  const T* bias = static_cast<const T*>(a.bias);
  T* y = static_cast<T*>(a.y);
  if (vectorized) {
    Int8GemvKernel<T, M, true><<<grid, block, 0, stream>>>(x, a.w, scales, bias, y, a.n, a.k);
  } else {
    Int8GemvKernel<T, M, false><<<grid, block, 0, stream>>>(x, a.w, scales, bias, y, a.n, a.k);
  }
}

template <typename T>
void LaunchType(const Int8GemvArgs& a, bool vectorized, cudaStream_t stream) {
  switch (a.m) {
    case 1: LaunchRows<T, 1>(a, vectorized, stream); break;
    case 2: LaunchRows<T, 2>(a, vectorized, stream); break;
    case 3: LaunchRows<T, 3>(a, vectorized, stream); break;
    case 4: LaunchRows<T, 4>(a, vectorized, stream); break;
    case 5: LaunchRows<T, 5>(a, vectorized, stream); break;
    case 6: LaunchRows<T, 6>(a, vectorized, stream); break;
    case 7: LaunchRows<T, 7>(a, vectorized, stream); break;
    default: LaunchRows<T, 8>(a, vectorized, stream); break;
  }
}

bool Aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

}  // namespace

const char* LaunchInt8Gemv(const Int8GemvArgs& args, void* stream) {
  if (args.m < 1 || args.m > kInt8GemvMaxRows) return "int8 GEMV: rows out of range";
  if (args.n < 1 || args.k < 1) return "int8 GEMV: empty weight";
  const bool vectorized =
      args.k % kWeightsPerLoad == 0 && Aligned16(args.x) && Aligned16(args.w);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (args.bf16) {
    LaunchType<__nv_bfloat16>(args, vectorized, s);
  } else {
    LaunchType<__half>(args, vectorized, s);
  }
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace lingcast::neural
