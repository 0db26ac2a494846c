#include "neural/core/ops.h"

#include <cmath>

#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

TEST(SinusoidalPositions, SinInTheFirstHalfCosInTheSecond) {
  const torch::Tensor table = SinusoidalPositions(4, 6);
  ASSERT_EQ(table.sizes().vec(), (std::vector<std::int64_t>{4, 6}));
  // Position 0: sin 0 = 0, cos 0 = 1.
  EXPECT_TRUE(table[0].narrow(0, 0, 3).equal(torch::zeros({3})));
  EXPECT_TRUE(table[0].narrow(0, 3, 3).equal(torch::ones({3})));
  // Column i of each half uses frequency 1 / 10000^(2i/dim).
  EXPECT_FLOAT_EQ(table[3][0].item<float>(), static_cast<float>(std::sin(3.0)));
  EXPECT_FLOAT_EQ(table[3][1].item<float>(), static_cast<float>(std::sin(3.0 / std::pow(10000.0, 2.0 / 6))));
  EXPECT_FLOAT_EQ(table[2][4].item<float>(), static_cast<float>(std::cos(2.0 / std::pow(10000.0, 2.0 / 6))));
}

TEST(SinusoidalPositions, OddWidthPutsTheExtraColumnInTheSinHalf) {
  const torch::Tensor table = SinusoidalPositions(2, 5);
  EXPECT_FLOAT_EQ(table[1][2].item<float>(), static_cast<float>(std::sin(1.0 / std::pow(10000.0, 4.0 / 5))));
  EXPECT_FLOAT_EQ(table[1][3].item<float>(), static_cast<float>(std::cos(1.0)));
}

TEST(CausalMask, EachNewPositionSeesTheCacheAndItsPast) {
  const torch::Tensor mask = CausalMask(2, 3, torch::TensorOptions().dtype(torch::kFloat)).squeeze();
  ASSERT_EQ(mask.sizes().vec(), (std::vector<std::int64_t>{3, 5}));
  const torch::Tensor allowed = mask.eq(0);
  const torch::Tensor expected = torch::tensor({1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1}, torch::kBool).view({3, 5});
  EXPECT_TRUE(allowed.equal(expected));
}

TEST(Attention, PaddedKeysGetNoWeight) {
  const torch::Tensor q = torch::randn({1, 1, 2, 4});
  const torch::Tensor k = torch::randn({1, 1, 3, 4});
  torch::Tensor v = torch::randn({1, 1, 3, 4});
  const torch::Tensor keep = torch::tensor({1, 1, 0}, torch::kBool).view({1, 3});
  const torch::Tensor with_pad = Attention(q, k, v, PaddingMask(keep, torch::kFloat), 0.5);
  v.select(2, 2).fill_(1000.0);  // the padded value must not leak in
  const torch::Tensor changed_pad = Attention(q, k, v, PaddingMask(keep, torch::kFloat), 0.5);
  const torch::Tensor without = Attention(q, k.narrow(2, 0, 2), v.narrow(2, 0, 2), torch::Tensor(), 0.5);
  EXPECT_TRUE(torch::allclose(with_pad, without, 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(changed_pad, without, 1e-6, 1e-6));
}

TEST(ParseActivation, NamesTheFieldOfAnUnknownActivation) {
  EXPECT_EQ(ParseActivation("swish", "f"), Activation::kSilu);
  EXPECT_EQ(ParseActivation("gelu_new", "f"), Activation::kGeluTanh);
  testing::ExpectError([] { ParseActivation("mish", "config.json: field \"activation_function\""); },
                       ErrorCode::kUnimplemented, {"activation_function", "mish"});
}

}  // namespace
}  // namespace lingcast::neural
