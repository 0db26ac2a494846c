#include "neural/core/int8_gemv_avx2.h"

#include <gtest/gtest.h>

#include <tuple>

#include "neural/core/int8_gemm_cpu.h"
#include "neural/core/quantization.h"
#include "neural/core/test_util.h"
#include "neural/core/transformer_layers.h"

namespace lingcast::neural {
namespace {

// The dequantized product in double: x times (w[n] * scale[n]), plus the bias.
torch::Tensor Expected(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& scales,
                       const torch::Tensor& bias) {
  const torch::Tensor real = weight.to(torch::kDouble) * scales.to(torch::kDouble).unsqueeze(1);
  torch::Tensor y = torch::matmul(x.to(torch::kDouble), real.t());
  if (bias.defined()) y = y + bias.to(torch::kDouble);
  return y.to(torch::kFloat);
}

class Int8GemvAvx2Shapes : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>> {};

TEST_P(Int8GemvAvx2Shapes, ComputesTheDequantizedProduct) {
  if (!CpuInt8GemvAvx2Supported()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const auto [rows, k, n, with_bias] = GetParam();
  torch::manual_seed(11);
  const torch::Tensor weight = torch::randint(-127, 128, {n, k}, torch::kChar);
  const torch::Tensor scales = torch::rand({n}) * 0.01 + 0.001;
  const torch::Tensor bias = with_bias ? torch::randn({n}) : torch::Tensor();
  const torch::Tensor x = torch::randn({rows, k}) * 3.0;
  const torch::Tensor want = Expected(x, weight, scales, bias);
  const torch::Tensor got = CpuInt8LinearAvx2(x, weight, scales, bias);
  ASSERT_EQ(got.sizes(), want.sizes());
  // float32 sums of K products against double: rounding only.
  EXPECT_LE((got - want).abs().max().item<double>(), 1e-5 * want.abs().max().item<double>() + 1e-5);
}

// Rows past the 2-row pairs, inputs past the 8-wide steps, outputs past the
// 4-row groups and the 16-row blocks; with and without a bias; the most rows
// the GEMV takes, and more (the blocked GEMM, outputs past its 256-row blocks).
INSTANTIATE_TEST_SUITE_P(Shapes, Int8GemvAvx2Shapes,
                         ::testing::Values(std::make_tuple(1, 512, 512, true), std::make_tuple(2, 70, 37, false),
                                           std::make_tuple(3, 64, 16, true), std::make_tuple(5, 130, 50, true),
                                           std::make_tuple(8, 2048, 103, false), std::make_tuple(1, 7, 3, true),
                                           std::make_tuple(9, 64, 40, true), std::make_tuple(70, 130, 600, false),
                                           std::make_tuple(300, 512, 257, true)));

TEST(CpuInt8GemvAvx2Test, ABatchedInputKeepsItsShape) {
  if (!CpuInt8GemvAvx2Supported()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  torch::manual_seed(5);
  const torch::Tensor weight = torch::randint(-127, 128, {40, 24}, torch::kChar);
  const torch::Tensor scales = torch::rand({40}) * 0.01 + 0.001;
  const torch::Tensor x = torch::randn({2, 3, 24});
  const torch::Tensor got = CpuInt8LinearAvx2(x, weight, scales, torch::Tensor());
  ASSERT_EQ(got.sizes(), (std::vector<std::int64_t>{2, 3, 40}));
  EXPECT_TRUE(torch::allclose(got.reshape({6, 40}), Expected(x.reshape({6, 24}), weight, scales, {}), 1e-5, 1e-5));
}

TEST(CpuInt8GemvAvx2Test, RefusesInputsItCannotTakeWithAClearError) {
  if (!CpuInt8GemvAvx2Supported()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  const torch::Tensor weight = torch::zeros({4, 16}, torch::kChar);
  const torch::Tensor scales = torch::ones({4});
  testing::ExpectError([&] { CpuInt8LinearAvx2(torch::zeros({1, 15}), weight, scales, {}); }, ErrorCode::kInvalidArgument,
              {"float32 (..., 16)", "[1, 15]"});
  testing::ExpectError([&] { CpuInt8LinearAvx2(torch::zeros({1, 16}, torch::kDouble), weight, scales, {}); },
              ErrorCode::kInvalidArgument, {"float32"});
}

// On a CPU with AVX2 but no VNNI, an int8 weight's products run through the
// AVX2 path, a few rows or many: the dequantized product.
TEST(CpuInt8GemvAvx2Test, QuantizedLinearTakesTheKernelForAFewRowsWhereThereIsNoVnni) {
  if (!CpuInt8GemvAvx2Supported()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  if (CpuInt8GemmSupported()) GTEST_SKIP() << "this CPU has AVX-512 VNNI, whose kernels int8_gemm_cpu_test covers";
  torch::manual_seed(3);
  const LinearWeights fp32{torch::randn({96, 128}) * 0.05, torch::randn({96})};
  const LinearWeights q = QuantizeInt8(fp32, Int8Kernel::kAuto);
  EXPECT_TRUE(q.cpu_int8_avx2);
  EXPECT_FALSE(q.cpu_int8_row_sums.defined());
  EXPECT_FALSE(QuantizeInt8(fp32, Int8Kernel::kDequantize).cpu_int8_avx2);
  for (std::int64_t rows : {1, 4, 9, 40}) {
    const torch::Tensor x = torch::randn({rows, 128});
    const torch::Tensor want = Expected(x, q.weight, q.scales, q.bias);
    const torch::Tensor got = Linear(x, q);
    ASSERT_EQ(got.sizes(), want.sizes());
    EXPECT_LE((got - want).abs().max().item<double>(), 1e-5 * want.abs().max().item<double>() + 1e-5) << rows;
  }
}

// Fused attention: q, k and v stay views into the quantized qkv and run on the
// kernel it was quantized for. (Before, the parts lost the AVX2 choice and
// every cross-attention product of a decode dequantized its whole weight.)
TEST(CpuInt8GemvAvx2Test, TheFusedAttentionsPartsRunOnTheWholesKernel) {
  if (!CpuInt8GemvAvx2Supported()) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  if (CpuInt8GemmSupported()) GTEST_SKIP() << "this CPU has AVX-512 VNNI, whose kernels int8_gemm_cpu_test covers";
  torch::manual_seed(9);
  AttentionWeights attention;
  attention.q = LinearWeights{torch::randn({32, 32}) * 0.1, torch::randn({32})};
  attention.k = LinearWeights{torch::randn({32, 32}) * 0.1, torch::Tensor()};
  attention.v = LinearWeights{torch::randn({32, 32}) * 0.1, torch::randn({32})};
  attention.out = LinearWeights{torch::randn({32, 32}) * 0.1, torch::randn({32})};
  FuseQkv(attention);
  QuantizeInt8(attention, Int8Kernel::kAuto);
  ASSERT_TRUE(attention.qkv.cpu_int8_avx2);
  const torch::Tensor x = torch::randn({3, 32});
  const LinearWeights* parts[] = {&attention.q, &attention.k, &attention.v};
  for (std::int64_t i = 0; i < 3; ++i) {
    const LinearWeights& part = *parts[i];
    EXPECT_TRUE(part.cpu_int8_avx2) << i;
    EXPECT_EQ(part.weight.data_ptr(), attention.qkv.weight.data_ptr<std::int8_t>() + i * 32 * 32) << i;
    EXPECT_TRUE(torch::allclose(Linear(x, part), Expected(x, part.weight, part.scales, part.bias), 1e-5, 1e-5)) << i;
  }
  EXPECT_FALSE(attention.k.bias.defined());
}

}  // namespace
}  // namespace lingcast::neural
