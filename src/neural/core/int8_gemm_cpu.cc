#include "neural/core/int8_gemm_cpu.h"

// GCC 12 reports the _mm512_undefined_*() placeholders inside its own AVX-512
// intrinsics as uninitialized at -O3 (a known false positive, GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include <ATen/Parallel.h>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"  // ShapeString

// The build targets baseline x86-64; these functions are compiled for AVX-512
// and only called after CpuInt8GemmSupported() said the CPU has it.
#define LINGCAST_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512dq")))

namespace lingcast::neural {
namespace {

// Rows of x at or below which the GEMV kernel runs even when a packed copy exists.
constexpr std::int64_t kGemvRows = 3;
constexpr int kGemmRows = 4;     // rows of x per GEMM micro-tile
constexpr int kGemmBlocks = 2;   // 16-column blocks per GEMM micro-tile

struct QuantizedRows {
  std::vector<std::uint8_t> values;  // rows x padded_k, q + 128 (128 past K)
  std::vector<float> scales;         // one a row: max|x| / 127
  std::int64_t padded_k = 0;
};

LINGCAST_VNNI void QuantizeRow(const float* row, std::int64_t k, std::uint8_t* q, float& scale_out) {
  __m512 largest = _mm512_setzero_ps();
  std::int64_t i = 0;
  for (; i + 16 <= k; i += 16) largest = _mm512_max_ps(largest, _mm512_abs_ps(_mm512_loadu_ps(row + i)));
  float amax = _mm512_reduce_max_ps(largest);
  for (; i < k; ++i) amax = std::max(amax, std::fabs(row[i]));
  const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
  scale_out = scale;
  const __m512 inverse = _mm512_set1_ps(1.0f / scale);
  const __m512i shift = _mm512_set1_epi32(128);
  i = 0;
  for (; i + 16 <= k; i += 16) {
    // Rounded to nearest (the default mode), then shifted into 1 .. 255.
    const __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(row + i), inverse)), shift);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm512_cvtusepi32_epi8(v));
  }
  for (; i < k; ++i) q[i] = static_cast<std::uint8_t>(std::lrintf(row[i] / scale) + 128);
}

void QuantizeRows(const float* x, std::int64_t rows, std::int64_t k, QuantizedRows& out) {
  out.padded_k = (k + 63) / 64 * 64;
  out.values.assign(static_cast<std::size_t>(rows * out.padded_k), 128);
  out.scales.resize(static_cast<std::size_t>(rows));
  at::parallel_for(0, rows, 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      QuantizeRow(x + r * k, k, out.values.data() + r * out.padded_k, out.scales[static_cast<std::size_t>(r)]);
    }
  });
}

// y = (acc - 128 * row_sum) * sx * sw + bias for 16 columns starting at n (mask: the valid ones).
LINGCAST_VNNI inline void StoreColumns(__m512i acc, std::int64_t n, __mmask16 mask, float sx, const std::int32_t* row_sums,
                                       const float* scales, const float* bias, float* y) {
  const __m512i sums = _mm512_maskz_loadu_epi32(mask, row_sums + n);
  const __m512 exact = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_slli_epi32(sums, 7)));
  __m512 out = _mm512_mul_ps(exact, _mm512_mul_ps(_mm512_set1_ps(sx), _mm512_maskz_loadu_ps(mask, scales + n)));
  if (bias != nullptr) out = _mm512_add_ps(out, _mm512_maskz_loadu_ps(mask, bias + n));
  _mm512_mask_storeu_ps(y + n, mask, out);
}

// Rows of x (R of them, at most 4) against weight rows [n0, n1), row-major int8.
template <int R>
LINGCAST_VNNI void GemvRows(const QuantizedRows& q, std::int64_t row0, const std::int8_t* w, std::int64_t k,
                            std::int64_t n0, std::int64_t n1, const std::int32_t* row_sums, const float* scales,
                            const float* bias, float* y, std::int64_t n_total) {
  const std::int64_t steps = (k + 63) / 64;
  const __mmask64 tail = k % 64 == 0 ? ~__mmask64{0} : ((__mmask64{1} << (k % 64)) - 1);
  const std::uint8_t* a[R];
  for (int r = 0; r < R; ++r) a[r] = q.values.data() + (row0 + r) * q.padded_k;
  std::int64_t n = n0;
  for (; n + 4 <= n1; n += 4) {
    __m512i acc[R][4];
    for (int r = 0; r < R; ++r) {
      for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_si512();
    }
    for (std::int64_t s = 0; s < steps; ++s) {
      const __mmask64 mask = s + 1 == steps ? tail : ~__mmask64{0};
      __m512i wv[4];
      for (int j = 0; j < 4; ++j) wv[j] = _mm512_maskz_loadu_epi8(mask, w + (n + j) * k + s * 64);
      for (int r = 0; r < R; ++r) {
        const __m512i av = _mm512_loadu_si512(a[r] + s * 64);
        for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], av, wv[j]);
      }
    }
    for (int r = 0; r < R; ++r) {
      const float sx = q.scales[static_cast<std::size_t>(row0 + r)];
      for (int j = 0; j < 4; ++j) {
        const std::int64_t col = n + j;
        const float exact = static_cast<float>(_mm512_reduce_add_epi32(acc[r][j]) - 128 * row_sums[col]);
        y[(row0 + r) * n_total + col] = exact * sx * scales[col] + (bias != nullptr ? bias[col] : 0.0f);
      }
    }
  }
  for (; n < n1; ++n) {
    for (int r = 0; r < R; ++r) {
      __m512i acc = _mm512_setzero_si512();
      for (std::int64_t s = 0; s < steps; ++s) {
        const __mmask64 mask = s + 1 == steps ? tail : ~__mmask64{0};
        acc = _mm512_dpbusd_epi32(acc, _mm512_loadu_si512(a[r] + s * 64), _mm512_maskz_loadu_epi8(mask, w + n * k + s * 64));
      }
      const float exact = static_cast<float>(_mm512_reduce_add_epi32(acc) - 128 * row_sums[n]);
      y[(row0 + r) * n_total + n] = exact * q.scales[static_cast<std::size_t>(row0 + r)] * scales[n] +
                                    (bias != nullptr ? bias[n] : 0.0f);
    }
  }
}

void Gemv(const QuantizedRows& q, std::int64_t rows, const std::int8_t* w, std::int64_t k, std::int64_t n,
          const std::int32_t* row_sums, const float* scales, const float* bias, float* y) {
  // Chunks of whole 4-row groups; each thread streams its share of the weight once.
  at::parallel_for(0, (n + 3) / 4, 64, [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t n0 = begin * 4, n1 = std::min(n, end * 4);
    std::int64_t r = 0;
    for (; r + 4 <= rows; r += 4) GemvRows<4>(q, r, w, k, n0, n1, row_sums, scales, bias, y, n);
    switch (rows - r) {
      case 3: GemvRows<3>(q, r, w, k, n0, n1, row_sums, scales, bias, y, n); break;
      case 2: GemvRows<2>(q, r, w, k, n0, n1, row_sums, scales, bias, y, n); break;
      case 1: GemvRows<1>(q, r, w, k, n0, n1, row_sums, scales, bias, y, n); break;
      default: break;
    }
  });
}

// R rows of x (at most kGemmRows) times B 16-column blocks starting at block `block`.
template <int R, int B>
LINGCAST_VNNI void GemmTile(const QuantizedRows& q, std::int64_t row0, const std::int8_t* packed, std::int64_t k4,
                            std::int64_t block, std::int64_t n, const std::int32_t* row_sums, const float* scales,
                            const float* bias, float* y) {
  __m512i acc[R][B];
  for (int r = 0; r < R; ++r) {
    for (int b = 0; b < B; ++b) acc[r][b] = _mm512_setzero_si512();
  }
  const std::uint8_t* a[R];
  for (int r = 0; r < R; ++r) a[r] = q.values.data() + (row0 + r) * q.padded_k;
  const std::int8_t* wb[B];
  for (int b = 0; b < B; ++b) wb[b] = packed + (block + b) * k4 * 64;
  for (std::int64_t kq = 0; kq < k4; ++kq) {
    __m512i wv[B];
    for (int b = 0; b < B; ++b) wv[b] = _mm512_loadu_si512(wb[b] + kq * 64);
    for (int r = 0; r < R; ++r) {
      std::int32_t four;
      std::memcpy(&four, a[r] + kq * 4, 4);
      const __m512i av = _mm512_set1_epi32(four);
      for (int b = 0; b < B; ++b) acc[r][b] = _mm512_dpbusd_epi32(acc[r][b], av, wv[b]);
    }
  }
  for (int b = 0; b < B; ++b) {
    const std::int64_t col = (block + b) * 16;
    const std::int64_t valid = std::min<std::int64_t>(16, n - col);
    if (valid <= 0) continue;
    const __mmask16 mask = valid == 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << valid) - 1);
    for (int r = 0; r < R; ++r) {
      StoreColumns(acc[r][b], col, mask, q.scales[static_cast<std::size_t>(row0 + r)], row_sums, scales, bias,
                   y + (row0 + r) * n);
    }
  }
}

void Gemm(const QuantizedRows& q, std::int64_t rows, const std::int8_t* packed, std::int64_t k, std::int64_t n,
          const std::int32_t* row_sums, const float* scales, const float* bias, float* y) {
  const std::int64_t k4 = (k + 3) / 4;
  const std::int64_t blocks = (n + 15) / 16;
  const std::int64_t pairs = (blocks + kGemmBlocks - 1) / kGemmBlocks;
  // Rows in chunks that keep a chunk's activations in L2 while every column
  // block of a thread's share passes over them.
  const std::int64_t row_chunk = std::max<std::int64_t>(kGemmRows, (256 * 1024 / std::max<std::int64_t>(q.padded_k, 1)) / kGemmRows * kGemmRows);
  const std::int64_t row_chunks = (rows + row_chunk - 1) / row_chunk;
  at::parallel_for(0, pairs * row_chunks, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t chunk = task / pairs, pair = task % pairs;
      const std::int64_t r0 = chunk * row_chunk, r1 = std::min(rows, r0 + row_chunk);
      const std::int64_t block = pair * kGemmBlocks;
      const auto run = [&](auto blocks_here) {
        constexpr int kBlocks = decltype(blocks_here)::value;
        std::int64_t r = r0;
        for (; r + kGemmRows <= r1; r += kGemmRows) {
          GemmTile<kGemmRows, kBlocks>(q, r, packed, k4, block, n, row_sums, scales, bias, y);
        }
        switch (r1 - r) {
          case 3: GemmTile<3, kBlocks>(q, r, packed, k4, block, n, row_sums, scales, bias, y); break;
          case 2: GemmTile<2, kBlocks>(q, r, packed, k4, block, n, row_sums, scales, bias, y); break;
          case 1: GemmTile<1, kBlocks>(q, r, packed, k4, block, n, row_sums, scales, bias, y); break;
          default: break;
        }
      };
      if (block + kGemmBlocks <= blocks) {
        run(std::integral_constant<int, kGemmBlocks>{});
      } else {
        run(std::integral_constant<int, 1>{});
      }
    }
  });
}

}  // namespace

bool CpuInt8GemmSupported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vnni");
}

torch::Tensor Int8RowSums(const torch::Tensor& weight) {
  // Blocks of rows: an int32 copy of the whole 51865-row table would be 106 MB.
  const std::int64_t rows = weight.size(0);
  torch::Tensor sums = torch::empty({rows}, torch::kInt);
  for (std::int64_t at = 0; at < rows; at += 4096) {
    const std::int64_t n = std::min<std::int64_t>(4096, rows - at);
    sums.narrow(0, at, n).copy_(weight.narrow(0, at, n).to(torch::kInt).sum(1));
  }
  return sums;
}

torch::Tensor PackInt8ForGemm(const torch::Tensor& weight) {
  const torch::Tensor w = weight.contiguous();
  const std::int64_t n = w.size(0), k = w.size(1);
  const std::int64_t blocks = (n + 15) / 16, k4 = (k + 3) / 4;
  torch::Tensor padded = torch::zeros({blocks * 16, k4 * 4}, torch::kChar);
  padded.narrow(0, 0, n).narrow(1, 0, k).copy_(w);
  // (blocks, 16, k4, 4) -> (blocks, k4, 16, 4): 16 rows' 4 consecutive inputs side by side.
  return padded.view({blocks, 16, k4, 4}).permute({0, 2, 1, 3}).contiguous();
}

torch::Tensor CpuInt8Linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                            const torch::Tensor& row_sums, const torch::Tensor& packed, const torch::Tensor& bias) {
  const std::int64_t k = weight.size(1), n = weight.size(0);
  if (x.size(-1) != k || x.scalar_type() != torch::kFloat) {
    Fail(ErrorCode::kInvalidArgument, "the int8 CPU product takes float32 (..., " + std::to_string(k) + ") inputs, not " +
                                          ShapeString(x.sizes().vec()));
  }
  const torch::Tensor x2d = x.reshape({-1, k}).contiguous();
  const std::int64_t rows = x2d.size(0);
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape.back() = n;
  torch::Tensor y = torch::empty({rows, n}, torch::kFloat);
  if (rows == 0) return y.view(shape);
  QuantizedRows q;
  QuantizeRows(x2d.data_ptr<float>(), rows, k, q);
  const float* bias_data = bias.defined() ? bias.data_ptr<float>() : nullptr;
  if (rows <= kGemvRows || !packed.defined()) {
    Gemv(q, rows, weight.data_ptr<std::int8_t>(), k, n, row_sums.data_ptr<std::int32_t>(), scales.data_ptr<float>(),
         bias_data, y.data_ptr<float>());
  } else {
    Gemm(q, rows, packed.data_ptr<std::int8_t>(), k, n, row_sums.data_ptr<std::int32_t>(), scales.data_ptr<float>(),
         bias_data, y.data_ptr<float>());
  }
  return y.view(shape);
}

}  // namespace lingcast::neural

#pragma GCC diagnostic pop
