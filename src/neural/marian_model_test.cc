// Parity with transformers' MarianMTModel on the committed tiny random-weight
// checkpoints (tools/neural/make_marian_fixtures.py): hidden states and logits
// within 1e-4 of the reference relative to the tensor's largest magnitude (fp32;
// what remains is summation order), token sequences exactly equal.
#include "neural/marian_model.h"

#include <torch/cuda.h>

#include <fstream>
#include <limits>

#include "gtest/gtest.h"
#include "neural/safetensors.h"
#include "neural/test_util.h"

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

INSTANTIATE_TEST_SUITE_P(Dtypes, MarianOnGpu,
                         ::testing::Values(GpuCase{torch::kFloat, kTolerance, "fp32"}, GpuCase{torch::kHalf, 3e-2, "fp16"},
                                           GpuCase{torch::kBFloat16, 1e-1, "bf16"}),
                         [](const auto& info) { return std::string(info.param.name); });

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
