#include "neural/core/int8_gemm_cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "neural/core/quantization.h"

namespace lingcast::neural {
namespace {

// What the kernels compute, in double: each row of x quantized symmetrically to
// [-127, 127] with its own scale, times the int8 weight, scaled back.
torch::Tensor Expected(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                       const torch::Tensor& bias) {
  // In float32 as the kernel rounds: x times the reciprocal of the scale, to nearest even.
  const torch::Tensor x2d = x.reshape({-1, x.size(-1)}).to(torch::kFloat);
  const torch::Tensor largest = x2d.abs().amax(1, true);
  const torch::Tensor scale = torch::where(largest > 0, largest / 127.0f, torch::ones_like(largest));
  const torch::Tensor q = torch::round(x2d * (1.0f / scale)).clamp(-127, 127).to(torch::kDouble);
  const torch::Tensor sx = scale.to(torch::kDouble);
  torch::Tensor y = torch::matmul(q, weight.to(torch::kDouble).t()) * sx * scales.to(torch::kDouble).unsqueeze(0);
  if (bias.defined()) y = y + bias.to(torch::kDouble);
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape.back() = weight.size(0);
  return y.view(shape).to(torch::kFloat);
}

class CpuInt8Gemm : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>> {};

TEST_P(CpuInt8Gemm, BothKernelsComputeTheQuantizedProduct) {
  if (!CpuInt8GemmSupported()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  const auto [rows, k, n, with_bias] = GetParam();
  torch::manual_seed(7);
  const torch::Tensor weight = torch::randint(-127, 128, {n, k}, torch::kChar);
  const torch::Tensor scales = torch::rand({n}) * 0.01 + 0.001;
  const torch::Tensor bias = with_bias ? torch::randn({n}) : torch::Tensor();
  torch::Tensor x = torch::randn({rows, k}) * 3.0;
  x[0].zero_();  // a row of zeros keeps scale 1 and gives the bias alone
  const torch::Tensor sums = Int8RowSums(weight);
  const torch::Tensor want = Expected(x, weight, scales, bias);
  const double bound = 1e-5 * want.abs().max().item<double>() + 1e-5;
  const torch::Tensor gemv = CpuInt8Linear(x, weight, scales, sums, torch::Tensor(), bias);
  EXPECT_LE((gemv - want).abs().max().item<double>(), bound) << "row-major kernel";
  const torch::Tensor gemm = CpuInt8Linear(x, weight, scales, sums, PackInt8ForGemm(weight), bias);
  EXPECT_LE((gemm - want).abs().max().item<double>(), bound) << "packed kernel";
}

// Rows past the 4-row tiles, inputs past 64- and 4-byte steps, outputs past
// 16-column blocks and 4-row groups; with and without a bias.
INSTANTIATE_TEST_SUITE_P(Shapes, CpuInt8Gemm,
                         ::testing::Values(std::make_tuple(1, 512, 512, true), std::make_tuple(2, 70, 37, false),
                                           std::make_tuple(3, 64, 16, true), std::make_tuple(5, 130, 50, true),
                                           std::make_tuple(17, 512, 1536, false), std::make_tuple(300, 2048, 96, true)));

TEST(CpuInt8Gemm, QuantizedLinearRunsOnTheKernelAndStaysCloseToFloat) {
  if (!CpuInt8GemmSupported()) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  torch::manual_seed(3);
  LinearWeights fp32{torch::randn({96, 128}) * 0.05, torch::randn({96})};
  const LinearWeights q = QuantizeInt8(fp32, Int8Kernel::kAuto);
  ASSERT_TRUE(q.cpu_int8_row_sums.defined());
  ASSERT_TRUE(q.cpu_int8_packed.defined());
  EXPECT_FALSE(QuantizeInt8(fp32, Int8Kernel::kAuto, /*pack=*/false).cpu_int8_packed.defined());
  EXPECT_FALSE(QuantizeInt8(fp32, Int8Kernel::kDequantize).cpu_int8_row_sums.defined());
  for (std::int64_t rows : {1, 9}) {
    const torch::Tensor x = torch::randn({2, rows, 128});
    const torch::Tensor want = torch::linear(x, fp32.weight, fp32.bias);
    const torch::Tensor got = Linear(x, q);
    ASSERT_EQ(got.sizes(), want.sizes());
    // Weights and activations both at 8 bits: about 1% of the output's scale.
    EXPECT_LT((got - want).abs().max().item<double>(), 0.02 * want.abs().max().item<double>()) << rows << " rows";
  }
}

}  // namespace
}  // namespace lingcast::neural
