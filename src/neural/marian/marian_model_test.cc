// Parity with transformers' MarianMTModel on the committed tiny random-weight
// checkpoints (tools/neural/make_marian_fixtures.py): hidden states and logits
// within 1e-4 of the reference relative to the tensor's largest magnitude (fp32;
// what remains is summation order), token sequences exactly equal.
#include "neural/marian/marian_model.h"

#include <torch/cuda.h>

#include <fstream>
#include <limits>

#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::ExpectError;
using testing::IdLists;
using testing::IdsTensor;
using testing::ReadJsonFile;
using testing::RelativeError;
using testing::TestdataDir;

constexpr double kTolerance = 1e-4;

class MarianParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = TestdataDir(GetParam());
    model_ = MarianModel::Load(dir_);
    reference_ = ReadJsonFile(dir_ + "/reference.json");
    tensors_ = SafetensorsFile::Open(dir_ + "/reference.safetensors");
    input_ids_ = IdsTensor(reference_["input_ids"]);
    attention_mask_ = IdsTensor(reference_["attention_mask"]);
  }

  GenerationOptions Options(const nlohmann::json& params) const {
    GenerationOptions o = model_->DefaultGenerationOptions();
    o.max_new_tokens = reference_["max_new_tokens"].get<std::int64_t>();
    o.num_beams = params.value("num_beams", 1);
    o.length_penalty = params.value("length_penalty", 1.0);
    o.early_stopping = params.value("early_stopping", false) ? EarlyStopping::kWhenFull : EarlyStopping::kHeuristic;
    o.forced_eos_token_id = reference_["eos_token_id"].get<std::int64_t>();
    o.suppressed_tokens = {reference_["pad_token_id"].get<std::int64_t>()};
    return o;
  }

  std::string dir_;
  std::shared_ptr<const MarianModel> model_;
  nlohmann::json reference_;
  std::shared_ptr<const SafetensorsFile> tensors_;
  torch::Tensor input_ids_, attention_mask_;
};

TEST_P(MarianParity, EncoderOutputMatches) {
  const torch::Tensor out = model_->Encode(input_ids_, attention_mask_);
  EXPECT_LT(RelativeError(out, tensors_->Load("encoder_hidden")), kTolerance);
}

TEST_P(MarianParity, FirstStepLogitsMatch) {
  const auto batch = input_ids_.size(0);
  const torch::Tensor start = torch::full({batch, 1}, model_->config().decoder_start_token_id, torch::kLong);
  const torch::Tensor logits = model_->Logits(input_ids_, attention_mask_, start).select(1, 0);
  EXPECT_LT(RelativeError(logits, tensors_->Load("first_step_logits")), kTolerance);
}

TEST_P(MarianParity, TeacherForcedLogitsMatchAtEveryPosition) {
  const torch::Tensor decoder_ids = IdsTensor(reference_["teacher_forced_decoder_input_ids"]);
  const torch::Tensor logits = model_->Logits(input_ids_, attention_mask_, decoder_ids);
  EXPECT_LT(RelativeError(logits, tensors_->Load("teacher_forced_logits")), kTolerance);
}

TEST_P(MarianParity, StepByStepDecodingWithCachesMatchesTeacherForcing) {
  const torch::Tensor decoder_ids = IdsTensor(reference_["teacher_forced_decoder_input_ids"]);
  auto state = model_->StartDecoder(model_->Encode(input_ids_, attention_mask_), attention_mask_, 1, decoder_ids.size(1));
  const torch::Tensor expected = tensors_->Load("teacher_forced_logits");
  for (std::int64_t t = 0; t < decoder_ids.size(1); ++t) {
    const torch::Tensor logits = state->Step(decoder_ids.select(1, t));
    EXPECT_LT(RelativeError(logits, expected.select(1, t)), kTolerance) << "position " << t;
  }
}

TEST_P(MarianParity, GeneratedSequencesMatchForEverySearch) {
  for (const auto& [run, entry] : reference_["generate"].items()) {
    const GenerationOptions options = Options(entry["params"]);
    EXPECT_EQ(model_->Generate(input_ids_, attention_mask_, options), IdLists(entry["batch"])) << run << " (batch)";
    const auto singles = IdLists(entry["single"]);
    for (std::int64_t i = 0; i < input_ids_.size(0); ++i) {
      const std::int64_t length = attention_mask_[i].sum().item<std::int64_t>();
      const torch::Tensor ids = input_ids_.narrow(0, i, 1).narrow(1, 0, length);
      const torch::Tensor mask = attention_mask_.narrow(0, i, 1).narrow(1, 0, length);
      EXPECT_EQ(model_->Generate(ids, mask, options).at(0), singles[i]) << run << " (input " << i << " alone)";
    }
  }
}

// The static path (caches preallocated and written in place, positions and
// logits processors on the device: what a CUDA graph replays) on the CPU: the
// same logits through the caches and the same greedy sequences.
TEST_P(MarianParity, StaticDecoderStepByStepMatchesTeacherForcing) {
  const torch::Tensor decoder_ids = IdsTensor(reference_["teacher_forced_decoder_input_ids"]);
  auto state = model_->StartStaticDecoder(model_->Encode(input_ids_, attention_mask_), attention_mask_,
                                          decoder_ids.size(1) + 3);
  const torch::Tensor expected = tensors_->Load("teacher_forced_logits");
  for (std::int64_t t = 0; t < decoder_ids.size(1); ++t) {
    const torch::Tensor logits = state->Forward(decoder_ids.narrow(1, t, 1), torch::full({1}, t, torch::kLong));
    EXPECT_LT(RelativeError(logits.select(1, 0), expected.select(1, t)), kTolerance) << "position " << t;
  }
}

TEST_P(MarianParity, StaticPathGivesTheSameGreedySequences) {
  int greedy_runs = 0;
  for (const auto& [run, entry] : reference_["generate"].items()) {
    GenerationOptions options = Options(entry["params"]);
    if (options.num_beams != 1) continue;
    ++greedy_runs;
    options.path = DecodePath::kStatic;
    EXPECT_EQ(model_->Generate(input_ids_, attention_mask_, options), IdLists(entry["batch"])) << run << " (batch)";
    const auto singles = IdLists(entry["single"]);
    for (std::int64_t i = 0; i < input_ids_.size(0); ++i) {
      const std::int64_t length = attention_mask_[i].sum().item<std::int64_t>();
      const torch::Tensor ids = input_ids_.narrow(0, i, 1).narrow(1, 0, length);
      const torch::Tensor mask = attention_mask_.narrow(0, i, 1).narrow(1, 0, length);
      EXPECT_EQ(model_->Generate(ids, mask, options).at(0), singles[i]) << run << " (input " << i << " alone)";
    }
  }
  EXPECT_GT(greedy_runs, 0);
}

// Padding to buckets (what GenerateBucketed and the batcher do on CUDA), on the
// CPU: a line padded and masked gives its unpadded logits and tokens.
TEST_P(MarianParity, PaddedAndMaskedLineGivesTheUnpaddedLogits) {
  const torch::Tensor decoder_ids = IdsTensor(reference_["teacher_forced_decoder_input_ids"]);
  const std::int64_t pad = model_->config().pad_token_id;
  for (std::int64_t i = 0; i < input_ids_.size(0); ++i) {
    const std::int64_t length = attention_mask_[i].sum().item<std::int64_t>();
    const torch::Tensor ids = input_ids_.narrow(0, i, 1).narrow(1, 0, length);
    const torch::Tensor target = decoder_ids.narrow(0, i, 1);
    const torch::Tensor unpadded = model_->Logits(ids, torch::ones_like(ids), target);
    for (std::int64_t padded_length : {MarianSourceBucket(length, model_->config().max_position_embeddings), length + 21}) {
      torch::Tensor padded = torch::full({1, padded_length}, pad, torch::kLong);
      torch::Tensor mask = torch::zeros({1, padded_length}, torch::kLong);
      padded.narrow(1, 0, length).copy_(ids);
      mask.narrow(1, 0, length).fill_(1);
      const torch::Tensor logits = model_->Logits(padded, mask, target);
      EXPECT_LT(RelativeError(logits, unpadded), kTolerance) << "input " << i << " padded to " << padded_length;
      EXPECT_TRUE(torch::equal(logits.argmax(-1), unpadded.argmax(-1))) << "input " << i << " padded to " << padded_length;
    }
  }
}

// The decoders GenerateBucketed keeps live inside the model: once the last
// owner lets go of the model, it is freed with them (a kept decoder that owned
// its model made a cycle that nothing ever freed; LeakSanitizer saw it).
TEST_P(MarianParity, AModelThatKeptDecodersIsFreedWithItsLastOwner) {
  GenerationOptions options = model_->DefaultGenerationOptions();
  options.num_beams = 1;
  options.max_new_tokens = 4;
  model_->GenerateBucketed(input_ids_, attention_mask_, options);
  ASSERT_GT(model_->KeptDecoderStats().decodes, 0);
  // A decoder handed out on its own still keeps the model alive.
  auto own = model_->StartStaticDecoder(model_->Encode(input_ids_, attention_mask_), attention_mask_, 4);
  const std::weak_ptr<const MarianModel> watched = model_;
  model_.reset();
  EXPECT_FALSE(watched.expired()) << "the decoder handed out lost its model";
  own.reset();
  EXPECT_TRUE(watched.expired()) << "the model outlived its last owner";
}

TEST_P(MarianParity, BucketedGreedyDecodingGivesTheUnpaddedSequences) {
  int greedy_runs = 0;
  for (const auto& [run, entry] : reference_["generate"].items()) {
    const GenerationOptions options = Options(entry["params"]);
    if (options.num_beams != 1) continue;
    ++greedy_runs;
    const auto singles = IdLists(entry["single"]);
    EXPECT_EQ(model_->GenerateBucketed(input_ids_, attention_mask_, options), IdLists(entry["batch"])) << run;
    // Twice over, one line at a time: later lines reuse the decoder (and its
    // buffers) an earlier line of the same bucket left.
    for (int pass = 0; pass < 2; ++pass) {
      for (std::int64_t i = 0; i < input_ids_.size(0); ++i) {
        const std::int64_t length = attention_mask_[i].sum().item<std::int64_t>();
        const torch::Tensor ids = input_ids_.narrow(0, i, 1).narrow(1, 0, length);
        EXPECT_EQ(model_->GenerateBucketed(ids, torch::ones_like(ids), options).at(0), singles[i])
            << run << " (input " << i << " alone, pass " << pass << ")";
      }
    }
    // Three rows pad to a batch of four (the fourth repeats the first).
    const auto three = model_->GenerateBucketed(input_ids_.narrow(0, 1, 3), attention_mask_.narrow(0, 1, 3), options);
    ASSERT_EQ(three.size(), 3u);
    for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(three[r], singles[r + 1]) << run << " (row " << r << " of 3)";
  }
  EXPECT_GT(greedy_runs, 0);
  const MarianDecoderCacheStats stats = model_->KeptDecoderStats();
  EXPECT_GT(stats.reused, 0);
  EXPECT_LT(stats.reused, stats.decodes);
}

INSTANTIATE_TEST_SUITE_P(TinyCheckpoints, MarianParity, ::testing::Values("marian_tiny", "marian_tiny_sharded"));

// The same checkpoint on a GPU: fp32 as exact as on the CPU; fp16 and bf16 within
// their rounding (about 1e-3 and 8e-3 relative per operation, compounded over the layers).
struct GpuCase {
  torch::ScalarType dtype;
  double tolerance;
  const char* name;
};

class MarianOnGpu : public ::testing::TestWithParam<GpuCase> {};

TEST_P(MarianOnGpu, MatchesTheReference) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the GPU parity test runs on the GPU machine";
  const std::string dir = TestdataDir("marian_tiny");
  auto model = MarianModel::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const auto reference = ReadJsonFile(dir + "/reference.json");
  auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  const torch::Tensor ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  EXPECT_LT(RelativeError(model->Encode(ids, mask), tensors->Load("encoder_hidden")), GetParam().tolerance);
  const torch::Tensor decoder_ids = IdsTensor(reference["teacher_forced_decoder_input_ids"]);
  EXPECT_LT(RelativeError(model->Logits(ids, mask, decoder_ids), tensors->Load("teacher_forced_logits")),
            GetParam().tolerance);
  if (GetParam().dtype == torch::kFloat) {
    GenerationOptions o = model->DefaultGenerationOptions();
    o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
    EXPECT_EQ(model->Generate(ids, mask, o), IdLists(reference["generate"]["greedy"]["batch"]));
  }
}

TEST(MarianModel, StaticPathRefusesTokenIdsOutsideTheVocabulary) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));
  const torch::Tensor ids = torch::tensor({5, 6, 7}, torch::kLong).view({1, 3});
  GenerationOptions o = model->DefaultGenerationOptions();
  o.max_new_tokens = 4;
  o.path = DecodePath::kStatic;
  const std::int64_t vocab = model->config().decoder_vocab_size;
  o.begin_suppressed_tokens = {vocab};
  ExpectError([&] { model->Generate(ids, torch::ones_like(ids), o); }, ErrorCode::kInvalidArgument,
              {"begin_suppressed_tokens", std::to_string(vocab)});
  o.begin_suppressed_tokens.clear();
  o.forced_eos_token_id = -1;
  ExpectError([&] { model->Generate(ids, torch::ones_like(ids), o); }, ErrorCode::kInvalidArgument,
              {"forced_eos_token_id", "-1"});
}

// Greedy search replayed from a CUDA graph against the eager path on the same
// GPU: exactly the same tokens in fp32; in fp16 and bf16 every token the graph
// path picks is within the dtype's tolerance of the eager logits' best.
TEST_P(MarianOnGpu, CudaGraphPathMatchesTheEagerPath) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA graph test runs on the GPU machine";
  const std::string dir = TestdataDir("marian_tiny");
  auto model = MarianModel::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const torch::Tensor ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  GenerationOptions o = model->DefaultGenerationOptions();
  o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
  o.path = DecodePath::kEager;
  const auto eager = model->Generate(ids, mask, o);
  o.path = DecodePath::kStatic;
  auto state = model->StartStaticDecoder(model->Encode(ids, mask), mask, o.max_new_tokens);
  StaticSearchReport report;
  const auto graphed = StaticGreedySearch(*state, ids.size(0), o, &report);
  EXPECT_TRUE(report.cuda_graph) << "the decode step was not captured (see the log line above)";
  EXPECT_LE(report.host_syncs, 2 + (o.max_new_tokens + 7) / 8);
  if (GetParam().dtype == torch::kFloat) {
    EXPECT_EQ(graphed, eager);
    return;
  }
  ASSERT_EQ(graphed.size(), eager.size());
  for (std::size_t b = 0; b < graphed.size(); ++b) {
    const auto& seq = graphed[b];
    const auto row = static_cast<std::int64_t>(b);
    const std::int64_t length = mask[row].sum().item<std::int64_t>();
    const auto fed = static_cast<std::int64_t>(seq.size()) - 1;
    const torch::Tensor decoder_ids = torch::tensor(seq, torch::kLong).narrow(0, 0, fed).view({1, fed});
    torch::Tensor logits = model->Logits(ids.narrow(0, row, 1).narrow(1, 0, length), mask.narrow(0, row, 1).narrow(1, 0, length),
                                         decoder_ids)[0].to(torch::kFloat);
    for (std::int64_t id : o.suppressed_tokens) logits.select(1, id).fill_(-std::numeric_limits<float>::infinity());
    // The last position of a full-length output is the forced eos, not a choice.
    const std::int64_t checked = fed == o.max_new_tokens && o.forced_eos_token_id ? fed - 1 : fed;
    testing::ExpectNearArgmax(logits.narrow(0, 0, checked), std::vector<std::int64_t>(seq.begin() + 1, seq.begin() + 1 + checked),
                              GetParam().tolerance, "row " + std::to_string(b));
  }
}

// Lines of several lengths one after another, twice: on the second pass every
// line replays the graph its bucket captured on the first, and gives the tokens
// the eager path gives (fp32: exactly; fp16 and bf16: the same as the first pass).
TEST_P(MarianOnGpu, KeptGraphsReplayAcrossLinesOfABucket) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA graph test runs on the GPU machine";
  const std::string dir = TestdataDir("marian_tiny");
  auto model = MarianModel::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const torch::Tensor ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  GenerationOptions o = model->DefaultGenerationOptions();
  o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
  std::vector<std::vector<std::int64_t>> first_pass;
  for (int pass = 0; pass < 3; ++pass) {
    for (std::int64_t i = 0; i < ids.size(0); ++i) {
      const std::int64_t length = mask[i].sum().item<std::int64_t>();
      const torch::Tensor line = ids.narrow(0, i, 1).narrow(1, 0, length);
      StaticSearchReport report;
      const auto tokens = model->GenerateBucketed(line, torch::ones_like(line), o, &report).at(0);
      if (pass == 0) {
        first_pass.push_back(tokens);
        GenerationOptions eager = o;
        eager.path = DecodePath::kEager;
        if (GetParam().dtype == torch::kFloat) {
          EXPECT_EQ(tokens, model->Generate(line, torch::ones_like(line), eager).at(0)) << "line " << i;
        }
      } else {
        EXPECT_EQ(tokens, first_pass[static_cast<std::size_t>(i)]) << "line " << i << ", pass " << pass;
      }
      if (pass == 2 && report.steps > 2) {
        EXPECT_TRUE(report.cuda_graph) << "line " << i;
        EXPECT_TRUE(report.graph_reused) << "line " << i;
      }
    }
  }
  EXPECT_GT(model->KeptDecoderStats().reused, 0);
}

// Buckets warmed at load: each line's first call replays a graph recorded by the
// warm-up and decodes what a model that was not warmed decodes.
TEST_P(MarianOnGpu, WarmedBucketsReplayOnTheirFirstLine) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the warm-up test runs on the GPU machine";
  const std::string dir = TestdataDir("marian_tiny");
  auto warmed = MarianModel::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  auto cold = MarianModel::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const auto reference = ReadJsonFile(dir + "/reference.json");
  const torch::Tensor ids = IdsTensor(reference["input_ids"]);
  const torch::Tensor mask = IdsTensor(reference["attention_mask"]);
  GenerationOptions o = warmed->DefaultGenerationOptions();
  o.max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
  std::vector<std::int64_t> lengths;
  for (std::int64_t i = 0; i < ids.size(0); ++i) lengths.push_back(mask[i].sum().item<std::int64_t>());
  EXPECT_GE(warmed->WarmBuckets(lengths, 1, o), 1);
  const std::int64_t decodes_after_warming = warmed->KeptDecoderStats().decodes;
  for (std::int64_t i = 0; i < ids.size(0); ++i) {
    const torch::Tensor line = ids.narrow(0, i, 1).narrow(1, 0, lengths[static_cast<std::size_t>(i)]);
    StaticSearchReport report;
    const auto tokens = warmed->GenerateBucketed(line, torch::ones_like(line), o, &report).at(0);
    EXPECT_EQ(tokens, cold->GenerateBucketed(line, torch::ones_like(line), o).at(0)) << "line " << i;
    if (report.steps > 2) {
      EXPECT_TRUE(report.graph_reused) << "line " << i;
    }
  }
  // Every line after the warm-up found its bucket's decoder kept.
  const MarianDecoderCacheStats stats = warmed->KeptDecoderStats();
  EXPECT_GE(stats.reused, stats.decodes - decodes_after_warming);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MarianOnGpu,
                         ::testing::Values(GpuCase{torch::kFloat, kTolerance, "fp32"}, GpuCase{torch::kHalf, 3e-2, "fp16"},
                                           GpuCase{torch::kBFloat16, 1e-1, "bf16"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(MarianDecoderCache, BucketsPadLittleAndNeverShorten) {
  EXPECT_EQ(MarianSourceBucket(1, 512), 8);
  EXPECT_EQ(MarianSourceBucket(8, 512), 8);
  EXPECT_EQ(MarianSourceBucket(9, 512), 16);
  EXPECT_EQ(MarianSourceBucket(130, 512), 144);  // past 128: at most 1/8 padding
  EXPECT_EQ(MarianSourceBucket(500, 512), 512);  // capped at the position table
  EXPECT_EQ(MarianSourceBucket(600, 512), 600);  // too long: left for the encoder's error
  EXPECT_EQ(MarianBatchBucket(1), 1);
  EXPECT_EQ(MarianBatchBucket(3), 4);
  EXPECT_EQ(MarianBatchBucket(16), 16);
  EXPECT_EQ(MarianBatchBucket(17), 32);
}

TEST(MarianDecoderCache, KeepsTheMostRecentlyUsedUpToItsCapacity) {
  MarianDecoderCache cache(2);
  auto take_and_return = [&](std::int64_t length) {
    auto entry = cache.Take(MarianDecoderKey{1, length, 16});
    const bool reused = entry->search.shape.size() == 1;
    entry->search.shape = {length};  // marks the entry as made for this key
    cache.Return(std::move(entry));
    return reused;
  };
  EXPECT_FALSE(take_and_return(8));
  EXPECT_FALSE(take_and_return(16));
  EXPECT_TRUE(take_and_return(8));    // 8 is now the most recent
  EXPECT_FALSE(take_and_return(24));  // evicts 16, the least recently used
  EXPECT_TRUE(take_and_return(8));
  EXPECT_FALSE(take_and_return(16));
  const MarianDecoderCacheStats stats = cache.stats();
  EXPECT_EQ(stats.decodes, 6);
  EXPECT_EQ(stats.reused, 2);
  EXPECT_EQ(stats.evicted, 2);
}

TEST(MarianDecoderCache, AnEntryInUseIsNotHandedOutTwice) {
  MarianDecoderCache cache(4);
  const MarianDecoderKey key{1, 8, 16};
  auto first = cache.Take(key);
  first->search.shape = {1};
  auto second = cache.Take(key);  // the first is still in use
  EXPECT_TRUE(second->search.shape.empty());
  cache.Return(std::move(first));
  EXPECT_EQ(cache.Take(key)->search.shape, std::vector<std::int64_t>{1});
}

TEST(MarianModel, WarmingIsANoOpWhereNoGraphIsKept) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));  // the CPU: greedy stays eager, nothing kept
  EXPECT_EQ(model->WarmBuckets(MarianModel::DefaultWarmSourceLengths(), 1, model->DefaultGenerationOptions()), 0);
  EXPECT_EQ(model->KeptDecoderStats().decodes, 0);
  EXPECT_EQ(MarianModel::DefaultWarmSourceLengths().size(), 8u);
}

TEST(MarianModel, BucketedDecodingRefusesBeams) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));
  const torch::Tensor ids = torch::tensor({5, 6, 7}, torch::kLong).view({1, 3});
  GenerationOptions o = model->DefaultGenerationOptions();
  o.max_new_tokens = 4;
  o.num_beams = 2;
  ExpectError([&] { model->GenerateBucketed(ids, torch::ones_like(ids), o); }, ErrorCode::kInvalidArgument,
              {"num_beams 1"});
}

TEST(MarianModel, ConfigDefaultsBecomeGenerationOptions) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));
  const GenerationOptions o = model->DefaultGenerationOptions();
  EXPECT_EQ(o.start_token_id, model->config().pad_token_id);
  EXPECT_EQ(o.eos_token_id, 0);
  ASSERT_TRUE(o.forced_eos_token_id.has_value());
  EXPECT_EQ(*o.forced_eos_token_id, 0);
  // max_length 512 is capped by the 64 positions of the tiny model.
  EXPECT_EQ(o.max_new_tokens, 63);
}

TEST(MarianModel, NotACheckpointDirectory) {
  ScratchDir dir;
  ExpectError([&] { MarianModel::Load(dir.path()); }, ErrorCode::kNotFound, {dir.path(), "config.json"});
}

// Copies the tiny checkpoint and rewrites its config or weights.
class BrokenCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override { testing::CopyDir(TestdataDir("marian_tiny"), dir_.path()); }

  void EditConfig(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json config = ReadJsonFile(dir_.File("config.json"));
    edit(config);
    std::ofstream(dir_.File("config.json"), std::ios::trunc) << config.dump(1);
  }
  void EditWeights(const std::function<void(std::map<std::string, torch::Tensor>&)>& edit) {
    std::map<std::string, torch::Tensor> tensors;
    {
      auto file = SafetensorsFile::Open(dir_.File("model.safetensors"));
      for (const auto& name : file->Names()) tensors[name] = file->Load(name).clone();
    }
    edit(tensors);
    testing::WriteSafetensors(dir_.File("model.safetensors"), tensors);
  }

  ScratchDir dir_;
};

TEST_F(BrokenCheckpoint, WrongArchitectureNamesModelType) {
  EditConfig([](nlohmann::json& c) { c["model_type"] = "whisper"; });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kInvalidArgument, {"config.json", "whisper", "Marian"});
}

TEST_F(BrokenCheckpoint, MissingConfigFieldIsNamed) {
  EditConfig([](nlohmann::json& c) { c.erase("d_model"); });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kInvalidArgument, {"config.json", "d_model", "missing"});
}

TEST_F(BrokenCheckpoint, UnsupportedActivationIsNamed) {
  EditConfig([](nlohmann::json& c) { c["activation_function"] = "mish"; });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kUnimplemented, {"activation_function", "mish"});
}

TEST_F(BrokenCheckpoint, PreNormIsRefusedNotMiscomputed) {
  EditConfig([](nlohmann::json& c) { c["normalize_before"] = true; });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kUnimplemented, {"normalize_before"});
}

TEST_F(BrokenCheckpoint, MissingTensorNamesCheckpointAndTensor) {
  EditWeights([](auto& t) { t.erase("model.decoder.layers.1.fc2.weight"); });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kNotFound,
              {dir_.path(), "model.decoder.layers.1.fc2.weight"});
}

TEST_F(BrokenCheckpoint, WrongShapeNamesTensorAndBothShapes) {
  EditWeights([](auto& t) { t["model.encoder.layers.0.fc1.weight"] = torch::zeros({32, 64}); });
  ExpectError([&] { MarianModel::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {"model.safetensors", "model.encoder.layers.0.fc1.weight", "[32, 64]", "expected [64, 32]"});
}

TEST_F(BrokenCheckpoint, HalfPrecisionWeightsLoadAsFloat) {
  EditWeights([](auto& t) {
    for (auto& [name, tensor] : t) tensor = tensor.to(torch::kHalf);
  });
  auto model = MarianModel::Load(dir_.path());
  const auto reference = ReadJsonFile(dir_.File("reference.json"));
  const torch::Tensor out = model->Encode(IdsTensor(reference["input_ids"]), IdsTensor(reference["attention_mask"]));
  EXPECT_EQ(out.scalar_type(), torch::kFloat);
  // fp16 weights: within fp16 rounding of the fp32 reference, not exact.
  EXPECT_LT(RelativeError(out, SafetensorsFile::Open(dir_.File("reference.safetensors"))->Load("encoder_hidden")), 2e-2);
}

TEST(MarianModel, OutOfVocabularyInputIsRejected) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));
  const torch::Tensor ids = torch::tensor({5, 100000, 0}, torch::kLong).view({1, 3});
  ExpectError([&] { model->Encode(ids, torch::ones({1, 3}, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"100000", "vocabulary"});
}

TEST(MarianModel, InputLongerThanThePositionTableIsRejected) {
  auto model = MarianModel::Load(TestdataDir("marian_tiny"));
  const torch::Tensor ids = torch::full({1, 65}, 5, torch::kLong);
  ExpectError([&] { model->Encode(ids, torch::ones({1, 65}, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"65 tokens", "max_position_embeddings"});
}

}  // namespace
}  // namespace lingcast::neural
