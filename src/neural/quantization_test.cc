// INT8 weight-only quantization (quantization.h): the arithmetic on its own,
// then Marian and Whisper loaded quantized from the committed tiny checkpoints
// against transformers' fp32 reference and our own fp32 model. The logit bounds
// are the measured differences with a margin (printed by each test); random
// tiny weights are a harsh case (no outlier structure, nearly flat logits).
#include "neural/quantization.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "gtest/gtest.h"
#include "neural/int8_gemm_cpu.h"
#include "neural/int8_gemv.h"
#include "neural/marian_model.h"
#include "neural/safetensors.h"
#include "neural/test_util.h"
#include "neural/whisper_transcriber.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::IdsTensor;
using testing::ReadJsonFile;
using testing::RelativeError;
using testing::TestdataDir;

const ModelOptions kInt8Cpu{torch::kCPU, torch::kFloat, Quantization::kInt8};

// Share of positions where two greedy runs picked the same token (compared up to
// the shorter of the two).
double TokenAgreement(const std::vector<std::vector<std::int64_t>>& a, const std::vector<std::vector<std::int64_t>>& b) {
  std::int64_t same = 0, total = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t t = 0; t < std::min(a[i].size(), b[i].size()); ++t, ++total) same += a[i][t] == b[i][t];
  }
  return total == 0 ? 0.0 : static_cast<double>(same) / static_cast<double>(total);
}

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

TEST(Int8Quantization, ADoubleModelCannotBeQuantized) {
  const ModelOptions bad{torch::kCPU, torch::kDouble, Quantization::kInt8};
  ExpectError([&] { MarianModel::Load(TestdataDir("marian_tiny"), bad); }, ErrorCode::kInvalidArgument,
              {"Marian model", "int8", "Double"});
  ExpectError([&] { WhisperModel::Load(TestdataDir("whisper_tiny"), bad); }, ErrorCode::kInvalidArgument,
              {"Whisper model", "int8", "Double"});
}

// The int8 weights as stored (the dequantizing kernel: no packed copies); the
// AVX-512 VNNI kernels (int8_gemm_cpu.h) add a packed copy of each layer's
// weight (not of the tied tables), checked at the end.
TEST(Int8Quantization, WeightsTakeAboutAQuarterOfFloat32) {
  const ModelOptions int8_stored{torch::kCPU, torch::kFloat, Quantization::kInt8, Int8Kernel::kDequantize};
  // OPUS-MT's shape at a quarter of its width: the tables and the layers dominate
  // as they do at full size.
  MarianConfig c;
  c.d_model = 128;
  c.encoder_layers = c.decoder_layers = 2;
  c.encoder_attention_heads = c.decoder_attention_heads = 4;
  c.encoder_ffn_dim = c.decoder_ffn_dim = 512;
  c.vocab_size = c.decoder_vocab_size = 4000;
  c.max_position_embeddings = 64;
  const auto fp32 = MarianModel::Random(c);
  const auto int8 = MarianModel::Random(c, int8_stored);
  const double ratio = static_cast<double>(int8->WeightBytes()) / static_cast<double>(fp32->WeightBytes());
  std::printf("Marian (d_model 128, vocabulary 4000): %lld bytes fp32, %lld int8 (%.3f)\n",
              static_cast<long long>(fp32->WeightBytes()), static_cast<long long>(int8->WeightBytes()), ratio);
  // int8 plus a float scale per row (1/128 more) and the float biases, norms and positions.
  EXPECT_GT(ratio, 0.25);
  EXPECT_LT(ratio, 0.30);
  WhisperConfig w;
  w.d_model = 128;
  w.encoder_layers = w.decoder_layers = 2;
  w.encoder_attention_heads = w.decoder_attention_heads = 4;
  w.encoder_ffn_dim = w.decoder_ffn_dim = 512;
  w.vocab_size = 4000;
  w.max_source_positions = 100;  // the float position tables stay small beside the layers, as at full size
  w.max_target_positions = 64;
  const double whisper_ratio = static_cast<double>(WhisperModel::Random(w, int8_stored)->WeightBytes()) /
                               static_cast<double>(WhisperModel::Random(w)->WeightBytes());
  std::printf("Whisper (d_model 128, vocabulary 4000): int8 / fp32 weight bytes %.3f\n", whisper_ratio);
  EXPECT_GT(whisper_ratio, 0.25);
  // Its two input convolutions stay float too (2% of the weights here, under 1% at whisper-small).
  EXPECT_LT(whisper_ratio, 0.32);
  for (const char* name : {"whisper_tiny", "whisper_tiny_v3"}) {
    const auto w32 = WhisperModel::Load(TestdataDir(name));
    const auto w8 = WhisperModel::Load(TestdataDir(name), int8_stored);
    const double r = static_cast<double>(w8->WeightBytes()) / static_cast<double>(w32->WeightBytes());
    std::printf("%s: %lld bytes fp32, %lld int8 (%.3f)\n", name, static_cast<long long>(w32->WeightBytes()),
                static_cast<long long>(w8->WeightBytes()), r);
    // d_model 32 with Whisper's 1500 + 448 float position rows (a third of the
    // fp32 bytes here, under 1% at whisper-small): measured 0.58 and 0.59.
    EXPECT_LT(r, 0.62) << name;
  }
  // With the VNNI kernels the layers' packed copies come on top: at most the
  // int8 layers once more (measured 0.43 for Marian and 0.46 for Whisper here;
  // Whisper base: ~115 MB against 290 MB of float32).
  if (CpuInt8GemmSupported()) {
    const double packed = static_cast<double>(WhisperModel::Random(w, kInt8Cpu)->WeightBytes()) /
                          static_cast<double>(WhisperModel::Random(w)->WeightBytes());
    std::printf("Whisper (d_model 128, vocabulary 4000) with packed copies: %.3f\n", packed);
    EXPECT_GT(packed, whisper_ratio);
    EXPECT_LT(packed, 0.55);
  }
}

class MarianInt8 : public ::testing::TestWithParam<std::string> {};

TEST_P(MarianInt8, LogitsStayNearFloat32AndGreedySearchRuns) {
  const std::string dir = TestdataDir(GetParam());
  const auto fp32 = MarianModel::Load(dir);
  const auto int8 = MarianModel::Load(dir, kInt8Cpu);
  EXPECT_EQ(int8->options().quantization, Quantization::kInt8);
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  const torch::Tensor input_ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  const torch::Tensor decoder_ids = IdsTensor(reference["teacher_forced_decoder_input_ids"]);
  const torch::Tensor expected = tensors->Load("teacher_forced_logits");
  const torch::Tensor logits = int8->Logits(input_ids, mask, decoder_ids);
  const double error = RelativeError(logits, expected);
  const double fp32_error = RelativeError(fp32->Logits(input_ids, mask, decoder_ids), expected);
  std::printf("%s: teacher-forced logits vs transformers fp32: int8 %.2e (our fp32 %.2e)\n", GetParam().c_str(), error,
              fp32_error);
  EXPECT_LT(error, 5e-2);  // measured 2.7e-2 (marian_tiny) and 9.8e-3 (marian_tiny_sharded)
  EXPECT_GT(error, fp32_error);  // the int8 weights are really in use

  GenerationOptions o = int8->DefaultGenerationOptions();
  o.num_beams = 1;
  o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
  o.suppressed_tokens = {reference["pad_token_id"].get<std::int64_t>()};
  o.path = DecodePath::kEager;
  const auto eager = int8->Generate(input_ids, mask, o);
  o.path = DecodePath::kStatic;
  const auto static_path = int8->Generate(input_ids, mask, o);
  ASSERT_EQ(eager.size(), static_cast<std::size_t>(input_ids.size(0)));
  for (const auto& seq : eager) EXPECT_GT(seq.size(), 1u);
  EXPECT_EQ(static_path, eager);
  const auto float_tokens = fp32->Generate(input_ids, mask, o);
  std::printf("%s: greedy token agreement int8 vs fp32 %.3f\n", GetParam().c_str(), TokenAgreement(eager, float_tokens));
}

INSTANTIATE_TEST_SUITE_P(TinyCheckpoints, MarianInt8, ::testing::Values("marian_tiny", "marian_tiny_sharded"));

class WhisperInt8 : public ::testing::TestWithParam<std::string> {};

TEST_P(WhisperInt8, LogitsStayNearFloat32AndTranscriptionRuns) {
  const std::string dir = TestdataDir(GetParam());
  const auto fp32 = WhisperTranscriber::Load(dir);
  const auto int8 = WhisperTranscriber::Load(dir, kInt8Cpu);
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  for (std::size_t i = 0; i < reference["inputs"].size(); ++i) {
    const torch::Tensor audio = tensors->Load("audio_" + std::to_string(i));
    const torch::Tensor features = int8->features().Compute(audio.data_ptr<float>(), audio.numel()).unsqueeze(0);
    const auto ids = reference["inputs"][i]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
    const torch::Tensor decoder_ids = torch::tensor(ids, torch::kLong).view({1, -1});
    const torch::Tensor want = fp32->model().Logits(fp32->model().Encode(features), decoder_ids);
    const torch::Tensor got = int8->model().Logits(int8->model().Encode(features), decoder_ids);
    const double error = RelativeError(got, want);
    std::printf("%s input %zu: teacher-forced logits int8 vs fp32 %.2e\n", GetParam().c_str(), i, error);
    EXPECT_LT(error, 5e-2) << "input " << i;  // measured 1.5e-2 to 1.7e-2
    EXPECT_GT(error, 0.0) << "input " << i;

    WhisperOptions o;
    o.language = "en";
    o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
    const auto quantized = int8->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
    const auto exact = fp32->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
    EXPECT_GT(quantized.sequence.size(), int8->Prompt("en", o).size()) << "input " << i;
    std::printf("%s input %zu: greedy token agreement int8 vs fp32 %.3f\n", GetParam().c_str(), i,
                TokenAgreement({quantized.sequence}, {exact.sequence}));
  }
}

INSTANTIATE_TEST_SUITE_P(TinyCheckpoints, WhisperInt8, ::testing::Values("whisper_tiny", "whisper_tiny_v3"));

// On the GPU machine: the quantized model on the CUDA graph path (both kernels)
// picks what the eager path's logits allow, and stays near the fp16 model.
TEST(Int8OnGpu, CudaGraphPathMatchesTheEagerPathOnBothKernels) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the int8 CUDA test runs on the GPU machine";
  const std::string dir = TestdataDir("marian_tiny");
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const torch::Tensor input_ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  const torch::Tensor decoder_ids = IdsTensor(reference["teacher_forced_decoder_input_ids"]);
  const auto fp16 = MarianModel::Load(dir, ModelOptions{torch::kCUDA, torch::kHalf});
  const torch::Tensor want = fp16->Logits(input_ids, mask, decoder_ids).to(torch::kFloat).cpu();
  for (Int8Kernel kernel : {Int8Kernel::kDequantize, Int8Kernel::kLibtorch}) {
    if (kernel == Int8Kernel::kLibtorch && !Int8KernelCompiled()) continue;
    const auto int8 = MarianModel::Load(dir, ModelOptions{torch::kCUDA, torch::kHalf, Quantization::kInt8, kernel});
    const torch::Tensor got = int8->Logits(input_ids, mask, decoder_ids).to(torch::kFloat).cpu();
    EXPECT_LT(RelativeError(got, want), 5e-2) << "kernel " << static_cast<int>(kernel);
    GenerationOptions o = int8->DefaultGenerationOptions();
    o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
    o.path = DecodePath::kStatic;
    StaticSearchReport report;
    auto state = int8->StartStaticDecoder(int8->Encode(input_ids, mask), mask, o.max_new_tokens);
    const auto graphed = StaticGreedySearch(*state, input_ids.size(0), o, &report);
    EXPECT_TRUE(report.cuda_graph) << "the decode step was not captured (see the log line above)";
    for (std::size_t b = 0; b < graphed.size(); ++b) {
      const auto& seq = graphed[b];
      const auto row = static_cast<std::int64_t>(b);
      const std::int64_t length = mask[row].sum().item<std::int64_t>();
      const auto fed = static_cast<std::int64_t>(seq.size()) - 1;
      const torch::Tensor ids = torch::tensor(seq, torch::kLong).narrow(0, 0, fed).view({1, fed});
      torch::Tensor logits = int8->Logits(input_ids.narrow(0, row, 1).narrow(1, 0, length),
                                          mask.narrow(0, row, 1).narrow(1, 0, length), ids)[0]
                                 .to(torch::kFloat)
                                 .cpu();
      for (std::int64_t id : o.suppressed_tokens) logits.select(1, id).fill_(-std::numeric_limits<float>::infinity());
      // The last position of a full-length output is the forced eos, not a choice.
      const std::int64_t checked = fed == o.max_new_tokens && o.forced_eos_token_id ? fed - 1 : fed;
      testing::ExpectNearArgmax(logits.narrow(0, 0, checked),
                                std::vector<std::int64_t>(seq.begin() + 1, seq.begin() + 1 + checked), 3e-2,
                                "row " + std::to_string(b));
    }
  }
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

// On the GPU machine: the tiny checkpoints decode the same greedy tokens with the
// fused kernel (Int8Kernel::kAuto) as by dequantizing, on the CUDA graph path,
// except at marian_tiny's near-ties (see below).
TEST(Int8OnGpu, FusedGemvGreedyTokensEqualTheDequantizePath) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the int8 CUDA test runs on the GPU machine";
  if (!Int8GemvBuilt()) GTEST_SKIP() << "this build has no fused int8 GEMV (no nvcc when it was configured)";
  for (torch::ScalarType dtype : {torch::kHalf, torch::kBFloat16}) {
    const ModelOptions fused{torch::kCUDA, dtype, Quantization::kInt8, Int8Kernel::kAuto};
    const ModelOptions dequantize{torch::kCUDA, dtype, Quantization::kInt8, Int8Kernel::kDequantize};
    for (const char* name : {"marian_tiny", "marian_tiny_sharded"}) {
      const std::string dir = TestdataDir(name);
      const auto reference = ReadJsonFile(dir + "/reference.json");
      const torch::Tensor input_ids = IdsTensor(reference["input_ids"]);
      const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
      const auto a = MarianModel::Load(dir, fused);
      const auto b = MarianModel::Load(dir, dequantize);
      GenerationOptions o = a->DefaultGenerationOptions();
      int differing = 0;
      o.num_beams = 1;
      o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
      // One line at a time: batch 1 is where the fused kernel runs for every layer.
      for (std::int64_t row = 0; row < input_ids.size(0); ++row) {
        const std::int64_t length = mask[row].sum().item<std::int64_t>();
        const torch::Tensor ids = input_ids.narrow(0, row, 1).narrow(1, 0, length);
        const torch::Tensor m = mask.narrow(0, row, 1).narrow(1, 0, length);
        const auto got = a->Generate(ids, m, o);
        if (got == b->Generate(ids, m, o)) continue;
        // marian_tiny's random logits hold near-ties (two tokens a few thousandths
        // apart) that the two roundings break differently (measured: 2 of its lines
        // in fp16 and bf16): then each fused choice must be one the dequantizing
        // model's own logits allow, as the CUDA graph test above asks.
        ++differing;
        const auto fed = static_cast<std::int64_t>(got[0].size()) - 1;
        const torch::Tensor decoder_ids = torch::tensor(got[0], torch::kLong).narrow(0, 0, fed).view({1, fed});
        torch::Tensor logits = b->Logits(ids, m, decoder_ids)[0].to(torch::kFloat).cpu();
        for (std::int64_t id : o.suppressed_tokens) logits.select(1, id).fill_(-std::numeric_limits<float>::infinity());
        const std::int64_t checked = fed == o.max_new_tokens && o.forced_eos_token_id ? fed - 1 : fed;
        testing::ExpectNearArgmax(logits.narrow(0, 0, checked),
                                  std::vector<std::int64_t>(got[0].begin() + 1, got[0].begin() + 1 + checked), 3e-2,
                                  std::string(name) + " row " + std::to_string(row) + " " + c10::toString(dtype));
      }
      std::printf("%s %s: %d of %lld lines differ from the dequantize path (near-ties)\n", name,
                  c10::toString(dtype), differing, static_cast<long long>(input_ids.size(0)));
      if (std::string(name) == "marian_tiny_sharded") {
        EXPECT_EQ(differing, 0);
      }
    }
    for (const char* name : {"whisper_tiny", "whisper_tiny_v3"}) {
      const std::string dir = TestdataDir(name);
      const auto a = WhisperTranscriber::Load(dir, fused);
      const auto b = WhisperTranscriber::Load(dir, dequantize);
      const auto reference = ReadJsonFile(dir + "/reference.json");
      const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
      for (std::size_t i = 0; i < reference["inputs"].size(); ++i) {
        const torch::Tensor audio = tensors->Load("audio_" + std::to_string(i));
        WhisperOptions o;
        o.language = "en";
        o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
        const auto got = a->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
        const auto want = b->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
        EXPECT_EQ(got.sequence, want.sequence) << name << " input " << i << " " << c10::toString(dtype);
      }
    }
  }
}

}  // namespace
}  // namespace lingcast::neural
