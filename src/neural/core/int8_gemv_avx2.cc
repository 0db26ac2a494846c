#include "neural/core/int8_gemv_avx2.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <string>

#include <ATen/Parallel.h>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"  // ShapeString

// The build targets baseline x86-64; these functions are compiled for AVX2 and
// FMA and only called after CpuInt8GemvAvx2Supported() said the CPU has them.
#define LINGCAST_AVX2 __attribute__((target("avx2,fma")))

namespace lingcast::neural {
namespace {

// Eight int8 weights widened to float32.
LINGCAST_AVX2 inline __m256 WidenedWeights(const std::int8_t* w) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(w))));
}

LINGCAST_AVX2 inline float Sum(__m256 v) {
  const __m128 pairs = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 halves = _mm_add_ps(pairs, _mm_movehl_ps(pairs, pairs));
  return _mm_cvtss_f32(_mm_add_ss(halves, _mm_shuffle_ps(halves, halves, 1)));
}

// R rows of x against J weight rows at a time, over weight rows [n0, n1). R x J
// accumulators plus J widened weights stay within the 16 vector registers.
template <int R, int J>
LINGCAST_AVX2 void GemvRows(const float* x, std::int64_t row0, const std::int8_t* w, std::int64_t k, std::int64_t n0,
                            std::int64_t n1, const float* scales, const float* bias, float* y, std::int64_t n_total) {
  const std::int64_t k8 = k / 8 * 8;
  const float* a[R];
  for (int r = 0; r < R; ++r) a[r] = x + (row0 + r) * k;
  std::int64_t n = n0;
  for (; n + J <= n1; n += J) {
    __m256 acc[R][J];
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < J; ++j) acc[r][j] = _mm256_setzero_ps();
    }
    for (std::int64_t i = 0; i < k8; i += 8) {
      __m256 wv[J];
      for (int j = 0; j < J; ++j) wv[j] = WidenedWeights(w + (n + j) * k + i);
      for (int r = 0; r < R; ++r) {
        const __m256 av = _mm256_loadu_ps(a[r] + i);
        for (int j = 0; j < J; ++j) acc[r][j] = _mm256_fmadd_ps(av, wv[j], acc[r][j]);
      }
    }
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < J; ++j) {
        const std::int64_t col = n + j;
        float dot = Sum(acc[r][j]);
        for (std::int64_t i = k8; i < k; ++i) dot += a[r][i] * static_cast<float>(w[col * k + i]);
        y[(row0 + r) * n_total + col] = dot * scales[col] + (bias != nullptr ? bias[col] : 0.0f);
      }
    }
  }
  if (n < n1) GemvRows<R, 1>(x, row0, w, k, n, n1, scales, bias, y, n_total);
}

void Gemv(const float* x, std::int64_t rows, const std::int8_t* w, std::int64_t k, std::int64_t n, const float* scales,
          const float* bias, float* y) {
  // Chunks of whole 4-row groups; each thread streams its share of the weight
  // once: every pair of x's rows runs over 16 weight rows (8-32 KB, still in
  // the cache) before the next 16 are read.
  constexpr std::int64_t kBlock = 16;
  at::parallel_for(0, (n + 3) / 4, 64, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t n0 = begin * 4, last = std::min(n, end * 4); n0 < last; n0 += kBlock) {
      const std::int64_t n1 = std::min(last, n0 + kBlock);
      std::int64_t r = 0;
      for (; r + 2 <= rows; r += 2) GemvRows<2, 4>(x, r, w, k, n0, n1, scales, bias, y, n);
      if (r < rows) GemvRows<1, 4>(x, r, w, k, n0, n1, scales, bias, y, n);
    }
  });
}

// One int8 weight row times its scale, as float32.
LINGCAST_AVX2 void DequantizeRow(const std::int8_t* from, float scale, std::int64_t k, float* to) {
  const __m256 scale8 = _mm256_set1_ps(scale);
  std::int64_t i = 0;
  for (; i + 8 <= k; i += 8) _mm256_storeu_ps(to + i, _mm256_mul_ps(WidenedWeights(from + i), scale8));
  for (; i < k; ++i) to[i] = static_cast<float>(from[i]) * scale;
}

// Weight rows [n0, n0 + rows) times their scales, as float32 into `out` (rows x k).
void DequantizeRows(const std::int8_t* w, const float* scales, std::int64_t n0, std::int64_t rows, std::int64_t k,
                    float* out) {
  at::parallel_for(0, rows, 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) DequantizeRow(w + (n0 + r) * k, scales[n0 + r], k, out + r * k);
  });
}

// Float32 scratch of at least `elements`, kept by the calling thread between
// products (the first `elements` of it, contiguous). Per thread, so products
// on several sessions' threads never share it; it grows by half again at
// least (a streaming decode's rows grow a few at a time), to a few MB a thread.
torch::Tensor Scratch(int which, std::int64_t elements) {
  thread_local std::array<torch::Tensor, 2> kept;
  torch::Tensor& t = kept[static_cast<std::size_t>(which)];
  if (!t.defined() || t.numel() < elements) {
    const std::int64_t had = t.defined() ? t.numel() : 0;
    t = torch::empty({std::max(elements, had + had / 2)}, torch::kFloat);
  }
  return t.narrow(0, 0, elements);
}

}  // namespace

bool CpuInt8GemvAvx2Supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

torch::Tensor CpuInt8LinearAvx2(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                                const torch::Tensor& bias) {
  const std::int64_t k = weight.size(1), n = weight.size(0);
  if (x.size(-1) != k || x.scalar_type() != torch::kFloat) {
    Fail(ErrorCode::kInvalidArgument, "the int8 AVX2 product takes float32 (..., " + std::to_string(k) +
                                          ") inputs, not " + ShapeString(x.sizes().vec()));
  }
  const torch::Tensor x2d = x.reshape({-1, k}).contiguous();
  const std::int64_t rows = x2d.size(0);
  const torch::Tensor w = weight.contiguous();
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape.back() = n;
  torch::Tensor y = torch::empty({rows, n}, torch::kFloat);
  if (rows == 0) return y.view(shape);
  const torch::Tensor s = scales.to(torch::kFloat).contiguous();
  const torch::Tensor b = bias.defined() ? bias.to(torch::kFloat).contiguous() : torch::Tensor();
  if (rows <= kAvx2GemvMaxRows) {
    Gemv(x2d.data_ptr<float>(), rows, w.data_ptr<std::int8_t>(), k, n, s.data_ptr<float>(),
         b.defined() ? b.data_ptr<float>() : nullptr, y.data_ptr<float>());
    return y.view(shape);
  }
  // Many rows: the BLAS's GEMM over float32 blocks of the weight, dequantized
  // into scratch that the calling thread keeps. Dequantizing the whole weight
  // into a fresh tensor on every call wrote up to 106 MB, and a fresh buffer of
  // any size above lingcast's fixed 128 KB mmap threshold (src/app/main.cc) is
  // page-faulted in again on every call: either made an int8 partial decode
  // slower than float32's in `live`.
  constexpr std::int64_t kBlockRows = 256;
  const std::int64_t block_rows = std::min(n, kBlockRows);
  torch::Tensor block = Scratch(0, block_rows * k).view({block_rows, k});
  torch::Tensor product = Scratch(1, rows * block_rows).view({rows, block_rows});
  for (std::int64_t n0 = 0; n0 < n; n0 += kBlockRows) {
    const std::int64_t nb = std::min(kBlockRows, n - n0);
    const torch::Tensor real = block.narrow(0, 0, nb);
    DequantizeRows(w.data_ptr<std::int8_t>(), s.data_ptr<float>(), n0, nb, k, real.data_ptr<float>());
    torch::Tensor out = nb == block_rows ? product : Scratch(1, rows * nb).view({rows, nb});
    torch::mm_out(out, x2d, real.t());
    torch::Tensor columns = y.narrow(1, n0, nb);
    columns.copy_(out);
    if (b.defined()) columns.add_(b.narrow(0, n0, nb));
  }
  return y.view(shape);
}

}  // namespace lingcast::neural
