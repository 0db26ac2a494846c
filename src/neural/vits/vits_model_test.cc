// Parity with transformers' VitsModel on the committed tiny random-weight
// checkpoints (tools/neural/make_vits_fixtures.py): text-encoder outputs within
// 1e-4 of the reference relative to the tensor's largest magnitude (fp32),
// durations exactly equal, and the waveform close given the noise the reference
// drew. Bad checkpoints fail with the file and tensor named.
#include "neural/vits/vits_model.h"

#include <algorithm>
#include <ATen/Context.h>
#include <torch/cuda.h>

#include <fstream>

#include "gtest/gtest.h"
#include "neural/core/graph_cache.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/core/vocoder_chunks.h"
#include "neural/vits/vits_layers.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::CopyDir;
using testing::ExpectError;
using testing::IdLists;
using testing::IdsTensor;
using testing::ReadJsonFile;
using testing::RelativeError;
using testing::TestdataDir;
using testing::WriteSafetensors;

constexpr double kHiddenTolerance = 1e-4;
// The waveform goes through the flow and every HiFi-GAN layer after the encoder;
// fp32 rounding grows a little on the way (measured: at most 5e-5).
constexpr double kWaveformTolerance = 5e-4;

std::vector<std::vector<std::int64_t>> Rows(const torch::Tensor& t) {
  std::vector<std::vector<std::int64_t>> rows;
  for (std::int64_t b = 0; b < t.size(0); ++b) {
    const torch::Tensor row = t[b].contiguous();
    rows.emplace_back(row.data_ptr<std::int64_t>(), row.data_ptr<std::int64_t>() + row.numel());
  }
  return rows;
}

// One case of a fixture's reference.json synthesized by `model` with the
// reference's own noise replayed (reference.safetensors) and its settings.
VitsOutput ReplayCase(const VitsModel& model, const SafetensorsFile& tensors, const nlohmann::json& c) {
  const std::string name = c["name"].get<std::string>();
  VitsNoise noise;
  if (tensors.Contains(name + ".duration_noise")) noise.duration = tensors.Load(name + ".duration_noise");
  noise.prior = tensors.Load(name + ".prior_noise");
  VitsSynthesisOptions options;
  options.speaking_rate = c["speaking_rate"].get<double>();
  options.noise_scale = c["noise_scale"].get<double>();
  options.noise_scale_duration = c["noise_scale_duration"].get<double>();
  options.noise = &noise;
  return model.Synthesize(IdsTensor(c["input_ids"]), IdsTensor(c["attention_mask"]), options);
}

class VitsParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = TestdataDir(GetParam());
    model_ = VitsModel::Load(dir_);
    reference_ = ReadJsonFile(dir_ + "/reference.json");
    tensors_ = SafetensorsFile::Open(dir_ + "/reference.safetensors");
  }

  VitsOutput Replay(const nlohmann::json& c) const { return ReplayCase(*model_, *tensors_, c); }

  std::string dir_;
  std::shared_ptr<const VitsModel> model_;
  nlohmann::json reference_;
  std::shared_ptr<const SafetensorsFile> tensors_;
};

TEST_P(VitsParity, TextEncoderMatches) {
  for (const auto& c : reference_["cases"]) {
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name);
    const VitsTextEncoding out = model_->EncodeText(IdsTensor(c["input_ids"]), IdsTensor(c["attention_mask"]));
    EXPECT_LT(RelativeError(out.hidden, tensors_->Load(name + ".hidden")), kHiddenTolerance);
    EXPECT_LT(RelativeError(out.prior_means, tensors_->Load(name + ".prior_means")), kHiddenTolerance);
    EXPECT_LT(RelativeError(out.prior_log_variances, tensors_->Load(name + ".prior_log_variances")), kHiddenTolerance);
  }
}

TEST_P(VitsParity, DurationsAndWaveformMatchGivenTheSameNoise) {
  for (const auto& c : reference_["cases"]) {
    const std::string name = c["name"].get<std::string>();
    SCOPED_TRACE(name);
    const VitsOutput out = Replay(c);
    EXPECT_EQ(Rows(out.durations), IdLists(c["durations"]));
    EXPECT_EQ(out.lengths, c["sequence_lengths"].get<std::vector<std::int64_t>>());
    const torch::Tensor expected = tensors_->Load(name + ".waveform");
    ASSERT_EQ(out.waveform.sizes(), expected.sizes());
    EXPECT_LT(RelativeError(out.waveform, expected), kWaveformTolerance);
  }
}

TEST_P(VitsParity, SameSeedSameWaveformOtherSeedOther) {
  const auto& c = reference_["cases"][0];
  const torch::Tensor ids = IdsTensor(c["input_ids"]);
  VitsSynthesisOptions options;
  options.seed = 7;
  const VitsOutput a = model_->Synthesize(ids, {}, options);
  const VitsOutput b = model_->Synthesize(ids, {}, options);
  EXPECT_TRUE(torch::equal(a.waveform, b.waveform));
  options.seed = 8;
  const VitsOutput other = model_->Synthesize(ids, {}, options);
  EXPECT_FALSE(a.waveform.sizes() == other.waveform.sizes() && torch::allclose(a.waveform, other.waveform));
}

TEST_P(VitsParity, SpeakingRateShortensEveryToken) {
  const torch::Tensor ids = IdsTensor(reference_["cases"][0]["input_ids"]);
  VitsSynthesisOptions slow, fast;
  slow.speaking_rate = 0.5;
  fast.speaking_rate = 2.0;
  slow.noise_scale_duration = fast.noise_scale_duration = 0.0;  // the same log-durations
  const VitsOutput a = model_->Synthesize(ids, {}, slow);
  const VitsOutput b = model_->Synthesize(ids, {}, fast);
  EXPECT_TRUE(torch::all(a.durations >= b.durations).item<bool>());
  EXPECT_GT(a.lengths[0], 2 * b.lengths[0]);
}

// What CUDA graphs' token buckets rely on: tokens past the attention mask (with
// any noise) change neither the real tokens' durations nor the waveform.
TEST_P(VitsParity, MaskedPaddingTokensChangeNothing) {
  const auto& c = reference_["cases"][0];
  const std::string name = c["name"].get<std::string>();
  const VitsOutput plain = Replay(c);
  const torch::Tensor ids = IdsTensor(c["input_ids"]), mask = IdsTensor(c["attention_mask"]);
  constexpr std::int64_t kPad = 5;
  VitsNoise noise;
  if (tensors_->Contains(name + ".duration_noise")) {
    noise.duration = torch::cat({tensors_->Load(name + ".duration_noise"), torch::randn({1, 2, kPad})}, 2);
  }
  noise.prior = tensors_->Load(name + ".prior_noise");
  VitsSynthesisOptions options;
  options.noise = &noise;
  options.speaking_rate = c["speaking_rate"].get<double>();
  options.noise_scale = c["noise_scale"].get<double>();
  options.noise_scale_duration = c["noise_scale_duration"].get<double>();
  const VitsOutput padded = model_->Synthesize(torch::cat({ids, torch::randint(1, 30, {1, kPad}, torch::kLong)}, 1),
                                               torch::cat({mask, torch::zeros({1, kPad}, torch::kLong)}, 1), options);
  EXPECT_EQ(Rows(padded.durations.narrow(1, 0, ids.size(1))), Rows(plain.durations));
  EXPECT_EQ(padded.durations.narrow(1, ids.size(1), kPad).sum().item<std::int64_t>(), 0);
  EXPECT_EQ(padded.lengths, plain.lengths);
  ASSERT_EQ(padded.waveform.sizes(), plain.waveform.sizes());
  // The fp32 bound: an optimized BLAS (OpenBLAS, 3.6e-5 measured) blocks
  // the longer padded products differently, so their sums round differently.
  EXPECT_LT(RelativeError(padded.waveform, plain.waveform), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, VitsParity, ::testing::Values("vits_tiny", "vits_tiny_deterministic"));

// The waveform of one synthesis in chunks, each decoded with context_frames()
// of context: the chunks, joined, are the whole synthesis's waveform.
struct Streamed {
  std::vector<torch::Tensor> chunks;
  torch::Tensor durations;
  torch::Tensor Joined() const { return torch::cat(chunks); }
};
Streamed Stream(const VitsModel& model, const torch::Tensor& ids, const VitsSynthesisOptions& options,
                const VocoderChunking& chunking, std::size_t stop_after = 0) {
  Streamed out;
  model.SynthesizeInChunks(ids, options, chunking, [&](const torch::Tensor& durations, const torch::Tensor& samples) {
    out.durations = durations.clone();
    out.chunks.push_back(samples.clone());
    return stop_after == 0 || out.chunks.size() < stop_after;
  });
  return out;
}

TEST(VitsStreaming, ChunksJoinToTheWholeWaveformAtAnyChunkSize) {
  for (const char* name : {"vits_tiny", "vits_tiny_deterministic"}) {
    const auto model = VitsModel::Load(TestdataDir(name));
    const nlohmann::json reference = ReadJsonFile(TestdataDir(name) + "/reference.json");
    const torch::Tensor ids = IdsTensor(reference["cases"][0]["input_ids"]);
    VitsSynthesisOptions options;
    options.seed = 3;
    const VitsOutput whole = model->Synthesize(ids, {}, options);
    const torch::Tensor expected = whole.waveform[0].narrow(0, 0, whole.lengths[0]);
    const std::int64_t hop = model->config().hop_length();
    const std::int64_t frames = whole.lengths[0] / hop;
    ASSERT_GT(frames, 20) << name;
    const auto [flow_reach, decoder_reach] = model->context_frames();
    EXPECT_GT(flow_reach, 1) << name;
    EXPECT_GT(decoder_reach, 1) << name;
    // One frame at a time is the hardest case: every cut needs all of the context.
    for (const VocoderChunking chunking : {VocoderChunking{1, 1}, VocoderChunking{2, 5}, VocoderChunking{24, 192},
                                           VocoderChunking{frames * 2, frames * 2}}) {
      const Streamed streamed = Stream(*model, ids, options, chunking);
      const std::vector<std::pair<std::int64_t, std::int64_t>> plan = ChunkFrames(frames, chunking);
      ASSERT_EQ(streamed.chunks.size(), plan.size()) << name << " first " << chunking.first_frames;
      for (std::size_t i = 0; i < plan.size(); ++i) {
        EXPECT_EQ(streamed.chunks[i].size(0), (plan[i].second - plan[i].first) * hop) << name << " chunk " << i;
      }
      EXPECT_TRUE(torch::equal(streamed.durations, whole.durations)) << name;
      const torch::Tensor joined = streamed.Joined();
      ASSERT_EQ(joined.size(0), expected.size(0)) << name;
      // The same sums in another order (the vocoder's convolutions cut at chunk
      // edges, each CPU's own kernels): float32 rounding, 1.6e-5 of a peak near 1
      // on an AVX2-only machine. A lost context frame costs orders more.
      const double tolerance = 1e-4 * std::max(1.0, expected.abs().max().item<double>());
      EXPECT_LT((joined - expected).abs().max().item<double>(), tolerance) << name << " first " << chunking.first_frames;
    }
  }
}

TEST(VitsStreaming, ASinkThatSaysStopGetsNoMoreChunks) {
  const auto model = VitsModel::Load(TestdataDir("vits_tiny"));
  const nlohmann::json reference = ReadJsonFile(TestdataDir("vits_tiny") + "/reference.json");
  const torch::Tensor ids = IdsTensor(reference["cases"][0]["input_ids"]);
  const Streamed all = Stream(*model, ids, {}, VocoderChunking{4, 8});
  ASSERT_GT(all.chunks.size(), 2u);
  EXPECT_EQ(Stream(*model, ids, {}, VocoderChunking{4, 8}, /*stop_after=*/1).chunks.size(), 1u);
}

TEST(VitsStreaming, BadChunkingAndBatchesAreRefused) {
  const auto model = VitsModel::Load(TestdataDir("vits_tiny"));
  const torch::Tensor ids = torch::tensor({1, 2, 3}, torch::kLong).unsqueeze(0);
  auto never = [](const torch::Tensor&, const torch::Tensor&) { return true; };
  ExpectError([&] { model->SynthesizeInChunks(ids, {}, VocoderChunking{0, 8}, never); }, ErrorCode::kInvalidArgument,
              {"vocoder chunks of 0", "1 <= first <= max"});
  ExpectError([&] { model->SynthesizeInChunks(ids, {}, VocoderChunking{8, 4}, never); }, ErrorCode::kInvalidArgument,
              {"then up to 4 frames"});
  ExpectError([&] { model->SynthesizeInChunks(torch::cat({ids, ids}), {}, {}, never); }, ErrorCode::kInvalidArgument,
              {"one row of ids", "[2, 3]"});
}

TEST(VocoderChunks, FirstSmallThenDoublingUpToTheCapShortTailsJoined) {
  using Chunks = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(ChunkFrames(100, {10, 40}), (Chunks{{0, 10}, {10, 30}, {30, 70}, {70, 100}}));
  EXPECT_EQ(ChunkFrames(5, {10, 40}), (Chunks{{0, 5}}));
  EXPECT_EQ(ChunkFrames(0, {10, 40}), Chunks{});
  EXPECT_EQ(ChunkFrames(3, {1, 1}), (Chunks{{0, 1}, {1, 2}, {2, 3}}));
  // A tail shorter than the first chunk joins the chunk before it.
  EXPECT_EQ(ChunkFrames(35, {10, 40}), (Chunks{{0, 10}, {10, 35}}));
  EXPECT_EQ(ChunkFrames(45, {10, 40}), (Chunks{{0, 10}, {10, 30}, {30, 45}}));
  EXPECT_EQ(ChunkFrames(15, {10, 40}), (Chunks{{0, 15}}));
}

TEST(VitsModel, ReplayedNoiseOfTheWrongShapeIsNamed) {
  const auto model = VitsModel::Load(TestdataDir("vits_tiny"));
  VitsNoise noise;
  noise.duration = torch::zeros({1, 2, 3});
  VitsSynthesisOptions options;
  options.noise = &noise;
  ExpectError([&] { model->Synthesize(torch::tensor({{0, 4, 0}}, torch::kLong), {}, options); },
              ErrorCode::kInvalidArgument, {"prior noise"});
  noise.duration = torch::zeros({1, 2, 5});
  ExpectError([&] { model->Synthesize(torch::tensor({{0, 4, 0}}, torch::kLong), {}, options); },
              ErrorCode::kInvalidArgument, {"duration noise has shape [1, 2, 5]", "[1, 2, 3]"});
}

TEST(VitsModel, TokenOutsideTheVocabularyIsNamed) {
  const auto model = VitsModel::Load(TestdataDir("vits_tiny"));
  ExpectError([&] { model->Synthesize(torch::tensor({{0, 33, 0}}, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"token id 33", "vocabulary of 33"});
  ExpectError([&] { model->Synthesize(torch::zeros({1, 0}, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"nothing to say"});
}

TEST(VitsModel, RandomWeightsSynthesizeAFewFramesPerToken) {
  VitsConfig config;
  config.hidden_size = 16;
  config.num_hidden_layers = 1;
  config.ffn_dim = 16;
  config.flow_size = 8;
  config.upsample_initial_channel = 16;
  config.upsample_rates = {4, 2};
  config.upsample_kernel_sizes = {8, 4};
  config.resblock_kernel_sizes = {3};
  config.resblock_dilation_sizes = {{1, 3}};
  config.duration_predictor_filter_channels = 8;
  const auto model = VitsModel::Random(config);
  const VitsOutput out = model->Synthesize(torch::randint(0, 38, {1, 21}, torch::kLong));
  EXPECT_EQ(out.waveform.size(1), out.lengths[0]);
  EXPECT_TRUE(torch::isfinite(out.waveform).all().item<bool>());
  EXPECT_GE(out.durations.sum().item<std::int64_t>(), 21);
}

TEST(VitsGraphs, BucketsPadLittleAndNeverShorten) {
  EXPECT_EQ(BucketLength(1, 32), 32);
  EXPECT_EQ(BucketLength(32, 32), 32);
  EXPECT_EQ(BucketLength(33, 32), 64);
  EXPECT_EQ(BucketLength(250, 32), 256);
  EXPECT_EQ(BucketLength(600, 32), 640);
  EXPECT_EQ(BucketLength(121, 16), 128);
  std::int64_t previous = 0;
  for (std::int64_t length = 1; length < 5000; ++length) {
    const std::int64_t bucket = BucketLength(length, 32);
    ASSERT_GE(bucket, length);
    ASSERT_GE(bucket, previous);
    if (length >= 16 * 32) {
      ASSERT_LE(bucket, length + length / 8) << length;
    } else {
      ASSERT_LT(bucket - length, 32) << length;
    }
    previous = bucket;
  }
}

// What CUDA graphs' frame buckets rely on: HiFi-GAN over a spectrogram padded
// past its frames, with the frame mask, gives the unpadded samples exactly;
// without the mask the padding leaks into the last samples.
TEST(VitsGraphs, MaskedDecoderOverPaddedFramesMatchesUnpadded) {
  torch::manual_seed(3);
  auto conv = [](std::int64_t out, std::int64_t in, std::int64_t k, std::int64_t dilation, bool bias = true) {
    return vits::Conv{torch::randn({out, in, k}) * 0.3, bias ? torch::randn({out}) * 0.1 : torch::Tensor(),
                      (k * dilation - dilation) / 2, dilation, 1};
  };
  vits::HifiGan w;
  w.pre = conv(8, 4, 7, 1);
  w.upsamplers = {vits::ConvTranspose{torch::randn({8, 4, 8}) * 0.3, torch::randn({4}) * 0.1, 4, 2},
                  vits::ConvTranspose{torch::randn({4, 2, 4}) * 0.3, torch::randn({2}) * 0.1, 2, 1}};
  for (const std::int64_t channels : {4, 2}) {
    for (const std::int64_t k : {3, 5}) {
      vits::ResidualBlock block;
      for (const std::int64_t dilation : {1, 3}) {
        block.convs_1.push_back(conv(channels, channels, k, dilation));
        block.convs_2.push_back(conv(channels, channels, k, 1));
      }
      w.blocks.push_back(block);
    }
  }
  w.post = conv(1, 2, 7, 1, /*bias=*/false);
  constexpr std::int64_t kFrames = 13, kPadded = 20, kHop = 8;
  const torch::Tensor spectrogram = torch::randn({1, 4, kFrames});
  const torch::Tensor padded = torch::constant_pad_nd(spectrogram, {0, kPadded - kFrames});
  const torch::Tensor mask = (torch::arange(kPadded) < kFrames).to(torch::kFloat).view({1, 1, kPadded});
  const torch::Tensor plain = vits::HifiGanForward(w, spectrogram);
  ASSERT_EQ(plain.size(2), kFrames * kHop);
  const torch::Tensor masked = vits::HifiGanForward(w, padded, mask).narrow(2, 0, kFrames * kHop);
  EXPECT_LT((masked - plain).abs().max().item<double>(), 1e-6);
  const torch::Tensor unmasked = vits::HifiGanForward(w, padded).narrow(2, 0, kFrames * kHop);
  EXPECT_GT((unmasked - plain).abs().max().item<double>(), 1e-3);
}

// --- bad checkpoints --------------------------------------------------------------

class VitsBadCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override { CopyDir(TestdataDir("vits_tiny"), scratch_.path()); }
  std::string dir() const { return scratch_.path(); }
  std::string File(const std::string& name) const { return scratch_.path() + "/" + name; }

  void RewriteConfig(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json config = ReadJsonFile(File("config.json"));
    edit(config);
    std::ofstream(File("config.json")) << config.dump(2);
  }

  // Rewrites model.safetensors through `edit` (name -> tensor).
  void RewriteWeights(const std::function<void(std::map<std::string, torch::Tensor>&)>& edit) {
    const auto file = SafetensorsFile::Open(File("model.safetensors"));
    std::map<std::string, torch::Tensor> tensors;
    for (const auto& name : file->Names()) tensors[name] = file->Load(name).clone();
    edit(tensors);
    testing::RemoveFile(File("model.safetensors"));
    WriteSafetensors(File("model.safetensors"), tensors);
  }

  ScratchDir scratch_;
};

TEST_F(VitsBadCheckpoint, NotACheckpoint) {
  testing::RemoveFile(File("config.json"));
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kNotFound, {dir(), "no config.json"});
}

TEST_F(VitsBadCheckpoint, WrongArchitecture) {
  RewriteConfig([](nlohmann::json& c) { c["model_type"] = "marian"; });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kInvalidArgument, {"config.json", "\"marian\"", "not a VITS"});
  ExpectError([&] { VitsModel::Load(TestdataDir("marian_tiny")); }, ErrorCode::kInvalidArgument, {"not a VITS"});
}

TEST_F(VitsBadCheckpoint, BadAndUnsupportedConfigFields) {
  RewriteConfig([](nlohmann::json& c) { c["hidden_size"] = "big"; });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kInvalidArgument, {"config.json", "\"hidden_size\"", "\"big\""});
  RewriteConfig([](nlohmann::json& c) {
    c["hidden_size"] = 16;
    c["num_attention_heads"] = 3;
  });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kInvalidArgument, {"not divisible by num_attention_heads 3"});
  RewriteConfig([](nlohmann::json& c) {
    c["num_attention_heads"] = 2;
    c["num_speakers"] = 4;
    c["speaker_embedding_size"] = 8;
  });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kUnimplemented, {"num_speakers is 4", "multi-speaker"});
}

TEST_F(VitsBadCheckpoint, MissingTensorIsNamed) {
  RewriteWeights([](auto& t) { t.erase("text_encoder.encoder.layers.1.attention.emb_rel_k"); });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kNotFound, {dir(), "text_encoder.encoder.layers.1.attention.emb_rel_k"});
}

TEST_F(VitsBadCheckpoint, MissingHalfOfAWeightNormPairIsNamed) {
  RewriteWeights([](auto& t) { t.erase("flow.flows.1.wavenet.in_layers.0.parametrizations.weight.original1"); });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kNotFound,
              {"flow.flows.1.wavenet.in_layers.0.parametrizations.weight.original1"});
}

TEST_F(VitsBadCheckpoint, WrongShapeIsNamed) {
  RewriteWeights([](auto& t) { t["decoder.conv_pre.weight"] = torch::zeros({16, 8, 5}); });
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kInvalidArgument,
              {"model.safetensors", "decoder.conv_pre.weight", "[16, 8, 5]", "[16, 8, 7]"});
}

TEST_F(VitsBadCheckpoint, TruncatedSafetensors) {
  testing::TruncateFile(File("model.safetensors"), testing::FileSize(File("model.safetensors")) / 2);
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kDataLoss, {"model.safetensors"});
}

TEST_F(VitsBadCheckpoint, MissingWeightsFile) {
  testing::RemoveFile(File("model.safetensors"));
  ExpectError([&] { VitsModel::Load(dir()); }, ErrorCode::kNotFound, {dir()});
}

// --- CUDA (skipped without a GPU) --------------------------------------------------

TEST(VitsCuda, HalfPrecisionFollowsTheReference) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const std::string dir = TestdataDir("vits_tiny");
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  for (const auto dtype : {torch::kFloat, torch::kHalf}) {
    const auto model = VitsModel::Load(dir, {torch::Device(torch::kCUDA), dtype});
    const auto& c = reference["cases"][0];
    const VitsTextEncoding text = model->EncodeText(IdsTensor(c["input_ids"]), IdsTensor(c["attention_mask"]));
    EXPECT_LT(RelativeError(text.hidden.cpu().to(torch::kFloat), tensors->Load("hello.hidden")),
              dtype == torch::kFloat ? kHiddenTolerance : 3e-2);
    if (dtype != torch::kFloat) continue;
    VitsNoise noise{tensors->Load("hello.duration_noise"), tensors->Load("hello.prior_noise")};
    VitsSynthesisOptions options;
    options.noise = &noise;
    const VitsOutput out = model->Synthesize(IdsTensor(c["input_ids"]), IdsTensor(c["attention_mask"]), options);
    EXPECT_EQ(out.lengths, c["sequence_lengths"].get<std::vector<std::int64_t>>());
    // cuDNN runs fp32 convolutions in TF32 by default (measured 6.9e-3 on an H200).
    EXPECT_LT(RelativeError(out.waveform.cpu(), tensors->Load("hello.waveform")), 2e-2);
  }
}

// cuDNN's TF32 off for a scope: fp32 convolutions then round as fp32 does, so a
// GPU path can be held to the CPU's tolerance (random tiny weights amplify
// TF32's rounding to several percent of the waveform).
class NoTf32Convolutions {
 public:
  NoTf32Convolutions() : was_(at::globalContext().allowTF32CuDNN()) { at::globalContext().setAllowTF32CuDNN(false); }
  ~NoTf32Convolutions() { at::globalContext().setAllowTF32CuDNN(was_); }
  NoTf32Convolutions(const NoTf32Convolutions&) = delete;
  NoTf32Convolutions& operator=(const NoTf32Convolutions&) = delete;

 private:
  bool was_;
};

// The graph path (CUDA graphs per length bucket, padding masked) against the
// reference and the eager GPU path: every case, batched too, through the first
// call of a bucket (eager), the second (capture + replay) and the third (replay).
TEST(VitsModel, WarmingIsANoOpWithoutGraphs) {
  const auto model = VitsModel::Load(TestdataDir("vits_tiny"));  // the CPU
  EXPECT_EQ(model->WarmGraphs(), 0);
  EXPECT_EQ(model->graph_stats().eager, 0);
}

// Graphs warmed at load: a line in a warmed bucket replays on its first call (no
// stage runs eagerly) and sounds as an unwarmed model's first call does.
TEST(VitsCuda, WarmedBucketsReplayOnTheFirstLine) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const NoTf32Convolutions exact;
  const std::string dir = TestdataDir("vits_tiny");
  const auto warmed = VitsModel::Load(dir, {torch::Device(torch::kCUDA), torch::kFloat, /*cuda_graphs=*/true});
  const auto cold = VitsModel::Load(dir, {torch::Device(torch::kCUDA), torch::kFloat, /*cuda_graphs=*/true});
  VitsWarmup warmup;
  warmup.max_tokens = 64;
  warmup.max_frames = 1024;
  const std::int64_t recorded = warmed->WarmGraphs(warmup);
  EXPECT_GE(recorded, 4 + 16);  // 4 text buckets (16..64), frames 32..512 alone are 16
  const GraphCacheStats before = warmed->graph_stats();
  EXPECT_EQ(before.failed, 0);
  const torch::Tensor ids = torch::tensor({{3, 5, 7, 2, 9, 4, 6, 8, 3, 5, 7}}, torch::kLong);  // 11 tokens
  const VitsOutput out = warmed->Synthesize(ids);
  const GraphCacheStats after = warmed->graph_stats();
  EXPECT_EQ(after.eager, before.eager) << "a stage of the first line ran eagerly: its bucket was not warmed";
  EXPECT_EQ(after.replayed, before.replayed + 2);
  const VitsOutput plain = cold->Synthesize(ids);
  ASSERT_EQ(out.waveform.sizes(), plain.waveform.sizes());
  EXPECT_LT(RelativeError(out.waveform.cpu(), plain.waveform.cpu()), 1e-3);
}

TEST(VitsCuda, GraphsFollowTheReference) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const NoTf32Convolutions exact;
  for (const std::string fixture : {"vits_tiny", "vits_tiny_deterministic"}) {
    SCOPED_TRACE(fixture);
    const std::string dir = TestdataDir(fixture);
    const auto reference = ReadJsonFile(dir + "/reference.json");
    const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
    const auto graphed = VitsModel::Load(dir, {torch::Device(torch::kCUDA), torch::kFloat, /*cuda_graphs=*/true});
    const auto eager = VitsModel::Load(dir, {torch::Device(torch::kCUDA), torch::kFloat, /*cuda_graphs=*/false});
    for (int round = 0; round < 3; ++round) {
      for (const auto& c : reference["cases"]) {
        const std::string name = c["name"].get<std::string>();
        SCOPED_TRACE(name + " round " + std::to_string(round));
        const VitsOutput out = ReplayCase(*graphed, *tensors, c);
        EXPECT_EQ(Rows(out.durations), IdLists(c["durations"]));
        EXPECT_EQ(out.lengths, c["sequence_lengths"].get<std::vector<std::int64_t>>());
        const torch::Tensor expected = tensors->Load(name + ".waveform");
        ASSERT_EQ(out.waveform.sizes(), expected.sizes());
        EXPECT_LT(RelativeError(out.waveform.cpu(), expected), 1e-3);
        if (round > 0) continue;
        const torch::Tensor plain = ReplayCase(*eager, *tensors, c).waveform.cpu();
        EXPECT_LT(RelativeError(plain, expected), 1e-3);
        EXPECT_LT(RelativeError(out.waveform.cpu(), plain), 1e-3);
      }
    }
    const GraphCacheStats stats = graphed->graph_stats();
    EXPECT_EQ(stats.failed, 0);
    EXPECT_GE(stats.captured, 2);
    EXPECT_GE(stats.replayed, 2);
  }
}

// cudnn_convolutions false: every convolution through at::_convolution with
// cuDNN off, the waveform still the reference's (on the CPU, where that is the
// same kernel, it checks the arguments; on CUDA, PyTorch's own kernels).
TEST(VitsModel, ConvolutionsWithoutCudnnFollowTheReference) {
  const NoTf32Convolutions exact;
  std::vector<torch::Device> devices = {torch::kCPU};
  if (torch::cuda::is_available()) devices.emplace_back(torch::kCUDA);
  for (const torch::Device device : devices) {
    for (const std::string fixture : {"vits_tiny", "vits_tiny_deterministic"}) {
      SCOPED_TRACE(fixture + " on " + device.str());
      const std::string dir = TestdataDir(fixture);
      const auto reference = ReadJsonFile(dir + "/reference.json");
      const auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
      VitsModelOptions options{device, torch::kFloat};
      options.cudnn_convolutions = false;
      const auto model = VitsModel::Load(dir, options);
      for (const auto& c : reference["cases"]) {
        const std::string name = c["name"].get<std::string>();
        SCOPED_TRACE(name);
        const VitsOutput out = ReplayCase(*model, *tensors, c);
        EXPECT_EQ(Rows(out.durations), IdLists(c["durations"]));
        const torch::Tensor expected = tensors->Load(name + ".waveform");
        ASSERT_EQ(out.waveform.sizes(), expected.sizes());
        EXPECT_LT(RelativeError(out.waveform.cpu(), expected), 1e-3);
      }
    }
  }
}

}  // namespace
}  // namespace lingcast::neural
