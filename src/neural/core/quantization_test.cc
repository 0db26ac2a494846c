// INT8 weight-only quantization (quantization.h): the arithmetic on its own and
// the kernels (Marian and Whisper loaded quantized: marian/marian_int8_test.cc,
// whisper/whisper_int8_test.cc).
#include "neural/core/quantization.h"

#include <torch/cuda.h>

#include "gtest/gtest.h"
#include "neural/core/int8_gemv.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::RelativeError;

TEST(Int8Quantization, RowsKeepTheirScaleAndRoundToTheNearestStep) {
  torch::manual_seed(3);
  LinearWeights w{torch::randn({6, 40}), torch::randn({6})};
  w.weight[2].zero_();  // a row of zeros must stay zeros (and not divide by zero)
  w.weight[4][7] = 5.0;  // an outlier sets its row's scale alone
  const LinearWeights q = QuantizeInt8(w, Int8Kernel::kDequantize);
  ASSERT_EQ(q.weight.scalar_type(), torch::kChar);
  ASSERT_EQ(q.scales.sizes(), torch::IntArrayRef({6}));
  EXPECT_EQ(q.scales.scalar_type(), torch::kFloat);
  EXPECT_TRUE(q.bias.is_same(w.bias));
  EXPECT_FLOAT_EQ(q.scales[4].item<float>(), 5.0f / 127.0f);
  EXPECT_EQ(q.weight[4][7].item<std::int8_t>(), 127);
  EXPECT_EQ(q.weight[2].abs().sum().item<std::int64_t>(), 0);
  EXPECT_LE(q.weight.abs().max().item<std::int8_t>(), 127);
  // Each weight is off by at most half a step of its row.
  const torch::Tensor error = (Dequantize(q) - w.weight).abs();
  EXPECT_TRUE((error <= q.scales.unsqueeze(1) * 0.5 + 1e-7).all().item<bool>());
}

TEST(Int8Quantization, ProductMatchesTheDequantizedWeightsOnEveryKernel) {
  torch::manual_seed(4);
  LinearWeights w{torch::randn({24, 64}) * 0.05, torch::randn({24})};
  const torch::Tensor x = torch::randn({2, 3, 64});
  const LinearWeights dequantized = QuantizeInt8(w, Int8Kernel::kDequantize);
  EXPECT_FALSE(dequantized.int8_kernel);
  const torch::Tensor expected = torch::linear(x, Dequantize(dequantized), w.bias);
  EXPECT_LT(RelativeError(Linear(x, dequantized), expected), 1e-6);
  // Quantization itself costs at most half a step per weight.
  EXPECT_LT(RelativeError(expected, torch::linear(x, w.weight, w.bias)), 2e-2);
  if (Int8KernelCompiled()) {
    const LinearWeights packed = QuantizeInt8(w, Int8Kernel::kLibtorch);
    EXPECT_TRUE(packed.int8_kernel);
    EXPECT_LT(RelativeError(Linear(x, packed), expected), 1e-5);
  } else {
    ExpectError([&] { QuantizeInt8(w, Int8Kernel::kLibtorch); }, ErrorCode::kUnimplemented,
                {"_weight_int8pack_mm", "Float", "cpu"});
    EXPECT_FALSE(QuantizeInt8(w, Int8Kernel::kAuto).int8_kernel);
  }
}

TEST(Int8Quantization, QuantizedEmbeddingRowsAreTheDequantizedRows) {
  torch::manual_seed(5);
  const LinearWeights table = QuantizeInt8(LinearWeights{torch::randn({10, 8}), {}}, Int8Kernel::kDequantize);
  const torch::Tensor ids = torch::tensor({3, 0, 9, 3}, torch::kLong).view({2, 2});
  const torch::Tensor rows = EmbeddingRows(table, ids);
  ASSERT_EQ(rows.sizes(), torch::IntArrayRef({2, 2, 8}));
  EXPECT_TRUE(rows.equal(torch::embedding(Dequantize(table), ids)));
}

TEST(Int8Quantization, NamesAreParsedAndUnknownOnesRefused) {
  EXPECT_EQ(ParseQuantization("int8", "--quantize"), Quantization::kInt8);
  EXPECT_EQ(ParseQuantization("none", "--quantize"), Quantization::kNone);
  EXPECT_EQ(ParseQuantization("off", "--quantize"), Quantization::kNone);
  EXPECT_EQ(QuantizationName(Quantization::kInt8), "int8");
  ExpectError([] { ParseQuantization("int4", "--quantize"); }, ErrorCode::kInvalidArgument,
              {"--quantize", "\"int4\"", "none, int8"});
}

TEST(Int8Quantization, OnlyFloatingPointWeightsOfTwoDimensions) {
  ExpectError([] { QuantizeInt8(LinearWeights{torch::ones({4, 4}, torch::kDouble), {}}, Int8Kernel::kAuto); },
              ErrorCode::kUnimplemented, {"float32, float16 or bfloat16", "Double"});
  ExpectError([] { QuantizeInt8(LinearWeights{torch::ones({4, 4, 3}), {}}, Int8Kernel::kAuto); },
              ErrorCode::kUnimplemented, {"3 dimensions"});
}

// The fused kernel's conditions (int8_gemv.h) on the CPU: it never takes a CPU
// input, whatever the build.
TEST(Int8Gemv, NeverTakesACpuInput) {
  const LinearWeights w = QuantizeInt8({torch::randn({8, 32}), {}, {}, false}, Int8Kernel::kAuto);
  EXPECT_TRUE(w.int8_gemv);
  EXPECT_FALSE(Int8GemvRuns(torch::randn({1, 32}), w));
  EXPECT_FALSE(Int8GemvRuns(torch::randn({1, 32}).to(torch::kHalf), w));
  const LinearWeights dequantized = QuantizeInt8({torch::randn({8, 32}), {}, {}, false}, Int8Kernel::kDequantize);
  EXPECT_FALSE(dequantized.int8_gemv);
}

// On the GPU machine: the fused kernel against dequantize-then-matmul, for 1 to 8
// rows, fp16 and bf16, with and without a bias, widths that are and are not a
// multiple of its 16-weight loads, and a weight that is a row slice of a larger
// one (as the fused q/k/v projections are).
TEST(Int8OnGpu, FusedGemvMatchesDequantizeThenMatmul) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the int8 CUDA test runs on the GPU machine";
  if (!Int8GemvBuilt()) GTEST_SKIP() << "this build has no fused int8 GEMV (no nvcc when it was configured)";
  torch::manual_seed(5);
  struct Shape {
    std::int64_t out, in;
  };
  for (torch::ScalarType dtype : {torch::kHalf, torch::kBFloat16}) {
    const auto on_gpu = torch::TensorOptions().device(torch::kCUDA).dtype(dtype);
    for (Shape shape : {Shape{64, 16}, Shape{37, 100}, Shape{300, 768}, Shape{129, 1000}, Shape{515, 2056},
                        Shape{768, 3072}, Shape{5, 7}}) {
      for (bool with_bias : {false, true}) {
        LinearWeights f{torch::randn({shape.out, shape.in}, on_gpu), {}, {}, false};
        if (with_bias) f.bias = torch::randn({shape.out}, on_gpu);
        const LinearWeights w = QuantizeInt8(f, Int8Kernel::kAuto);
        for (std::int64_t rows = 1; rows <= kInt8GemvMaxRows; ++rows) {
          const torch::Tensor x = torch::randn({1, rows, shape.in}, on_gpu);
          ASSERT_TRUE(Int8GemvRuns(x, w));
          const torch::Tensor got = Int8Gemv(x, w).to(torch::kFloat);
          const torch::Tensor want = torch::linear(x.to(torch::kFloat), Dequantize(w).to(torch::kFloat),
                                                   with_bias ? w.bias.to(torch::kFloat) : torch::Tensor());
          ASSERT_EQ(got.sizes(), want.sizes());
          const double tolerance = dtype == torch::kHalf ? 2e-3 : 1e-2;  // the output's rounding, relative
          EXPECT_LT(RelativeError(got, want), tolerance) << c10::toString(dtype) << " " << shape.out << "x" << shape.in
                                                         << " rows " << rows << " bias " << with_bias;
          EXPECT_TRUE(torch::equal(Int8Linear(x, w), Int8Gemv(x, w))) << "Int8Linear did not take the fused kernel";
        }
        EXPECT_FALSE(Int8GemvRuns(torch::randn({kInt8GemvMaxRows + 1, shape.in}, on_gpu), w));
        EXPECT_FALSE(Int8GemvRuns(torch::randn({1, shape.in}, on_gpu.dtype(torch::kFloat)), w));
      }
    }
    // Rows 3.. of a weight whose width is odd: neither the weight nor its rows start
    // on 16 bytes, so the kernel takes its one-by-one path.
    const LinearWeights whole = QuantizeInt8({torch::randn({40, 33}, on_gpu), {}, {}, false}, Int8Kernel::kAuto);
    LinearWeights part = whole;
    part.weight = whole.weight.narrow(0, 3, 20);
    part.scales = whole.scales.narrow(0, 3, 20);
    const torch::Tensor x = torch::randn({2, 33}, on_gpu);
    ASSERT_TRUE(Int8GemvRuns(x, part));
    EXPECT_LT(RelativeError(Int8Gemv(x, part).to(torch::kFloat),
                            torch::linear(x.to(torch::kFloat), Dequantize(part).to(torch::kFloat))),
              dtype == torch::kHalf ? 2e-3 : 1e-2);
  }
}

}  // namespace
}  // namespace lingcast::neural
