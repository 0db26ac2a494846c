// Whisper from CTranslate2 checkpoints (whisper_ct2.h) against the Hugging Face
// path on the same weights: the tiny fixture converted by
// tools/neural/make_ct2_whisper_fixtures.py (float16 and int8_float16
// committed; float32 made by the script when a test runs), and the same
// checkpoints re-encoded here (bfloat16, binary version 3, split in parts).
// For each, the HF checkpoint is given exactly the weights the CTranslate2 one
// holds (rounded to float16, quantized as CTranslate2 quantizes), so encoder
// output, logits and generated sequences must agree to the bit; against the
// original float32 weights the differences are the rounding's, within bounds.
// Then: timestamp tokens past tokenizer.json's vocabulary, broken checkpoints,
// and the real models when installed (models/whisper-tiny.en, whisper-base)
// on the real recordings of ../shared/data.
#include "neural/whisper/whisper_ct2.h"

#include <sys/stat.h>
#include <unistd.h>

#include <torch/cuda.h>
#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>

#include "gtest/gtest.h"
#include "neural/core/ctranslate2_test_writer.h"
#include "neural/core/quantization.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/whisper/whisper_model.h"
#include "neural/whisper/whisper_transcriber.h"

namespace lingcast::neural {
namespace {

using testing::CopyDir;
using testing::Ct2Bytes;
using testing::Ct2Reencode;
using testing::Ct2TestFile;
using testing::ExpectError;
using testing::ReadBytes;
using testing::ReadJsonFile;
using testing::RelativeError;
using testing::ScratchDir;
using testing::TestdataDir;
using testing::WriteBytes;
using testing::WriteSafetensors;

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// How the HF weights are turned into what a CTranslate2 checkpoint holds.
enum class Rounding { kNone, kFloat16, kFloat16ThenBFloat16, kInt8Float16 };

// CTranslate2 quantizes the weights of the specs with a weight_scale: linear
// layers, convolutions and the embeddings (python/ctranslate2/specs/common_spec.py).
bool Quantizable(const std::string& name) {
  for (const char* end : {"proj.weight", "fc1.weight", "fc2.weight", "conv1.weight", "conv2.weight", "embed_tokens.weight"}) {
    const std::string e(end);
    if (name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

// What CTranslate2's int8 conversion and our reader make of `w`, in float32
// as both compute it: scale = 127 / max|row| (1 for a row of zeros),
// q = rint(w * scale), back as q * (1 / scale).
torch::Tensor Int8RoundTrip(const torch::Tensor& w) {
  const torch::Tensor rows = w.reshape({w.size(0), -1});
  torch::Tensor amax = rows.abs().amax(1);
  amax = torch::where(amax == 0, torch::full_like(amax, 127.0f), amax);
  const torch::Tensor scale = torch::full_like(amax, 127.0f) / amax;
  const torch::Tensor q = torch::round(rows * scale.unsqueeze(1));
  return (q * scale.reciprocal().unsqueeze(1)).view(w.sizes());
}

// The HF fixture with its weights rounded as `rounding` says, in `dir`.
void WriteHfWithRoundedWeights(const std::string& dir, Rounding rounding) {
  const std::string source = TestdataDir("whisper_tiny");
  CopyDir(source, dir);
  const auto file = SafetensorsFile::Open(source + "/model.safetensors");
  std::map<std::string, torch::Tensor> tensors;
  for (const std::string& name : file->Names()) {
    torch::Tensor t = file->Load(name).clone();
    switch (rounding) {
      case Rounding::kNone: break;
      case Rounding::kFloat16: t = t.to(torch::kHalf).to(torch::kFloat); break;
      case Rounding::kFloat16ThenBFloat16: t = t.to(torch::kHalf).to(torch::kBFloat16).to(torch::kFloat); break;
      case Rounding::kInt8Float16: t = Quantizable(name) ? Int8RoundTrip(t) : t.to(torch::kHalf).to(torch::kFloat); break;
    }
    tensors[name] = t.contiguous();
  }
  WriteSafetensors(dir + "/model.safetensors", tensors);
}

void CopyTokenizerAndConfig(const std::string& from, const std::string& to) {
  for (const char* name : {"config.json", "tokenizer.json", "vocabulary.txt"}) {
    WriteBytes(to + "/" + name, ReadBytes(from + "/" + name));
  }
}

// The float32 conversion, made by the fixture script (standard-library Python)
// into `out_root`; false where there is no python3.
bool MakeFloat32WithTheScript(const std::string& out_root) {
  const std::string script = std::string(LINGCAST_SOURCE_DIR) + "/tools/neural/make_ct2_whisper_fixtures.py";
  const std::string command =
      "python3 '" + script + "' --quantizations float32 --out-root '" + out_root + "' > '" + out_root + "/script.log' 2>&1";
  return std::system(command.c_str()) == 0;
}

struct ParityCase {
  std::string label;
  Rounding rounding;          // what the CTranslate2 checkpoint did to the weights
  double bound_to_original;   // the largest relative error allowed against the float32 weights
  // Every reference run generated (else the first input's only: the cases that
  // re-encode or split a committed checkpoint, whose logits are already the same bits).
  bool every_run;
  // Writes the CTranslate2 checkpoint into `dir`; false: skip (what is missing in the message).
  std::function<bool(const std::string& dir, std::string& missing)> make;
};

std::string PrintCase(const ::testing::TestParamInfo<ParityCase>& info) { return info.param.label; }

// A committed fixture, optionally re-encoded (another float dtype or binary
// version) or split into parts at odd offsets.
std::function<bool(const std::string&, std::string&)> FromFixture(const std::string& fixture,
                                                                  std::optional<torch::ScalarType> reencode = std::nullopt,
                                                                  std::uint32_t version = 6, int parts = 1) {
  return [=](const std::string& dir, std::string&) {
    const std::string from = TestdataDir(fixture);
    CopyTokenizerAndConfig(from, dir);
    std::string bytes = ReadBytes(from + "/model.bin");
    if (reencode || version != 6) {
      Ct2TestFile file = Ct2Reencode(*Ct2Checkpoint::Open(from), reencode.value_or(torch::kFloat));
      file.binary_version = version;
      bytes = Ct2Bytes(file);
    }
    if (parts == 1) {
      WriteBytes(dir + "/model.bin", bytes);
      return true;
    }
    std::size_t begin = 0;
    for (int k = 1; k <= parts; ++k) {
      const std::size_t end = k == parts ? bytes.size() : (bytes.size() * k / parts) | 1;
      WriteBytes(dir + "/model.bin.part" + std::to_string(k), bytes.substr(begin, end - begin));
      begin = end;
    }
    return true;
  };
}

const std::vector<ParityCase>& ParityCases() {
  static const std::vector<ParityCase> cases = {
      {"Float32ByTheScript", Rounding::kNone, 0.0, true,
       [](const std::string& dir, std::string& missing) {
         const std::string root = dir + "/script";
         ::mkdir(root.c_str(), 0755);
         if (!MakeFloat32WithTheScript(root)) {
           missing = "python3 (the fixture script could not run: " + root + "/script.log)";
           return false;
         }
         const std::string made = root + "/whisper_tiny_ct2_float32";
         CopyTokenizerAndConfig(made, dir);
         WriteBytes(dir + "/model.bin", ReadBytes(made + "/model.bin"));
         return true;
       }},
      {"Float16", Rounding::kFloat16, 2e-3, true, FromFixture("whisper_tiny_ct2_float16")},
      {"Int8Float16", Rounding::kInt8Float16, 3e-2, true, FromFixture("whisper_tiny_ct2_int8_float16")},
      {"BFloat16", Rounding::kFloat16ThenBFloat16, 2e-2, false, FromFixture("whisper_tiny_ct2_float16", torch::kBFloat16)},
      {"Float32BinaryVersion3", Rounding::kFloat16, 2e-3, false, FromFixture("whisper_tiny_ct2_float16", torch::kFloat, 3)},
      {"Int8InThreeParts", Rounding::kInt8Float16, 3e-2, false, FromFixture("whisper_tiny_ct2_int8_float16", std::nullopt, 6, 3)},
  };
  return cases;
}

class Ct2WhisperParity : public ::testing::TestWithParam<ParityCase> {
 protected:
  void SetUp() override {
    ct2_dir_ = scratch_.File("ct2");
    hf_dir_ = scratch_.File("hf");
    ::mkdir(ct2_dir_.c_str(), 0755);
    ::mkdir(hf_dir_.c_str(), 0755);
    std::string missing;
    if (!GetParam().make(ct2_dir_, missing)) GTEST_SKIP() << "needs " << missing;
    WriteHfWithRoundedWeights(hf_dir_, GetParam().rounding);
    reference_ = ReadJsonFile(TestdataDir("whisper_tiny") + "/reference.json");
    tensors_ = SafetensorsFile::Open(TestdataDir("whisper_tiny") + "/reference.safetensors");
  }

  // The reference's features of input `i`: its first frames, then the padding value.
  torch::Tensor ReferenceFeatures(std::size_t i) const {
    const torch::Tensor head = tensors_->Load("mel_head_" + std::to_string(i));
    torch::Tensor features = torch::full({head.size(0), 3000}, reference_["inputs"][i]["mel_padding_value"].get<double>(), torch::kFloat);
    features.narrow(1, 0, head.size(1)).copy_(head);
    return features.unsqueeze(0);
  }

  ScratchDir scratch_;
  std::string ct2_dir_, hf_dir_;
  nlohmann::json reference_;
  std::shared_ptr<const SafetensorsFile> tensors_;
};

TEST_P(Ct2WhisperParity, TheConfigIsTheHfCheckpointsOne) {
  const WhisperConfig ct2 = LoadWhisperConfig(ct2_dir_);
  const WhisperConfig hf = LoadWhisperConfig(TestdataDir("whisper_tiny"));
  EXPECT_EQ(ct2.d_model, hf.d_model);
  EXPECT_EQ(ct2.encoder_layers, hf.encoder_layers);
  EXPECT_EQ(ct2.decoder_layers, hf.decoder_layers);
  EXPECT_EQ(ct2.encoder_attention_heads, hf.encoder_attention_heads);
  EXPECT_EQ(ct2.decoder_attention_heads, hf.decoder_attention_heads);
  EXPECT_EQ(ct2.encoder_ffn_dim, hf.encoder_ffn_dim);
  EXPECT_EQ(ct2.decoder_ffn_dim, hf.decoder_ffn_dim);
  EXPECT_EQ(ct2.num_mel_bins, hf.num_mel_bins);
  EXPECT_EQ(ct2.vocab_size, hf.vocab_size);
  EXPECT_EQ(ct2.max_source_positions, hf.max_source_positions);
  EXPECT_EQ(ct2.max_target_positions, hf.max_target_positions);
  EXPECT_EQ(ct2.activation, hf.activation);
  EXPECT_EQ(ct2.decoder_start_token_id, hf.decoder_start_token_id);
  EXPECT_EQ(ct2.eos_token_id, hf.eos_token_id);
  EXPECT_EQ(ct2.pad_token_id, hf.pad_token_id);
  EXPECT_EQ(ct2.no_timestamps_token_id, hf.no_timestamps_token_id);
  EXPECT_EQ(ct2.suppress_tokens, hf.suppress_tokens);
  EXPECT_EQ(ct2.begin_suppress_tokens, hf.begin_suppress_tokens);
  EXPECT_EQ(ct2.lang_to_id, hf.lang_to_id);
  EXPECT_EQ(ct2.task_to_id, hf.task_to_id);
  EXPECT_EQ(ct2.is_multilingual, hf.is_multilingual);
  EXPECT_EQ(ct2.alignment_heads, hf.alignment_heads);
  EXPECT_EQ(ct2.max_initial_timestamp_index, hf.max_initial_timestamp_index);
  EXPECT_EQ(ct2.max_length, hf.max_length);
}

TEST_P(Ct2WhisperParity, EncoderAndLogitsAreTheHfPathsOnTheSameWeights) {
  const auto ct2 = WhisperModel::Load(ct2_dir_);
  const auto hf = WhisperModel::Load(hf_dir_);
  const auto original = WhisperModel::Load(TestdataDir("whisper_tiny"));
  EXPECT_EQ(ct2->WeightBytes(), hf->WeightBytes());
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const torch::Tensor features = ReferenceFeatures(i);
    const torch::Tensor encoded = ct2->Encode(features);
    const double encoder_error = RelativeError(encoded, hf->Encode(features));
    EXPECT_LE(encoder_error, 1e-6) << "input " << i;
    const auto ids = reference_["inputs"][i]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
    const torch::Tensor decoder_ids = torch::tensor(ids, torch::kLong).view({1, -1});
    const torch::Tensor logits = ct2->Logits(encoded, decoder_ids);
    const double logits_error = RelativeError(logits, hf->Logits(hf->Encode(features), decoder_ids));
    EXPECT_LE(logits_error, 1e-6) << "input " << i;
    // Against the float32 weights: the rounding's difference, and no more.
    const torch::Tensor original_encoded = original->Encode(features);
    const double encoder_to_original = RelativeError(encoded, original_encoded);
    const double logits_to_original = RelativeError(logits, original->Logits(original_encoded, decoder_ids));
    EXPECT_LE(encoder_to_original, GetParam().bound_to_original) << "input " << i;
    EXPECT_LE(logits_to_original, GetParam().bound_to_original) << "input " << i;
    // And against transformers itself (its fp32 reference outputs).
    const double logits_to_transformers =
        RelativeError(logits[0], tensors_->Load("teacher_forced_logits_" + std::to_string(i)));
    EXPECT_LE(logits_to_transformers, std::max(GetParam().bound_to_original, 1e-4)) << "input " << i;
    std::cout << "[ figures  ] " << GetParam().label << " input " << i << ": same weights: encoder " << encoder_error
              << ", logits " << logits_error << "; float32 weights: encoder " << encoder_to_original << ", logits "
              << logits_to_original << "; transformers' logits " << logits_to_transformers << "\n";
  }
}

TEST_P(Ct2WhisperParity, EveryReferenceRunGeneratesWhatTheHfPathGenerates) {
  const auto ct2 = WhisperTranscriber::Load(ct2_dir_);
  const auto hf = WhisperTranscriber::Load(hf_dir_);
  const auto max_new_tokens = reference_["max_new_tokens"].get<std::int64_t>();
  int runs = 0;
  const std::size_t inputs = GetParam().every_run ? reference_["inputs"].size() : 1;
  for (std::size_t i = 0; i < inputs; ++i) {
    const auto& entry = reference_["inputs"][i];
    const torch::Tensor features = ReferenceFeatures(i);
    for (const auto& run : entry["generate"]) {
      const auto& params = run["params"];
      WhisperOptions o;
      o.language = params.value("language", std::string());
      o.task = params.value("task", std::string("transcribe")) == "translate" ? WhisperTask::kTranslate : WhisperTask::kTranscribe;
      o.timestamps = params.value("timestamps", false);
      o.num_beams = params.value("num_beams", 1);
      o.max_new_tokens = max_new_tokens;
      const WhisperResult got = ct2->TranscribeFeatures(features, o);
      const WhisperResult want = hf->TranscribeFeatures(features, o);
      EXPECT_EQ(got.sequence, want.sequence) << "input " << i << " " << params;
      EXPECT_EQ(got.text, want.text) << params;
      EXPECT_EQ(got.language, want.language) << params;
      ASSERT_EQ(got.segments.size(), want.segments.size()) << params;
      for (std::size_t s = 0; s < got.segments.size(); ++s) {
        EXPECT_EQ(got.segments[s].start, want.segments[s].start);
        EXPECT_EQ(got.segments[s].end, want.segments[s].end);
        EXPECT_EQ(got.segments[s].text, want.segments[s].text);
      }
      // The float32 conversion generates what transformers generated.
      if (GetParam().rounding == Rounding::kNone) {
        EXPECT_EQ(got.sequence, run["sequence"].get<std::vector<std::int64_t>>()) << params;
      }
      ++runs;
    }
  }
  EXPECT_GE(runs, 7);
}

INSTANTIATE_TEST_SUITE_P(TinyWhisper, Ct2WhisperParity, ::testing::ValuesIn(ParityCases()), PrintCase);

// Timestamps are known from the config: tokenizer.json here lists 483 tokens
// (no <|0.00|> .. <|30.00|>), the embedding table 1984 rows.
TEST(Ct2Whisper, TimestampTokensPastTheTokenizerFileDecode) {
  const std::string dir = TestdataDir("whisper_tiny_ct2_float16");
  const WhisperTokenizer from_files = WhisperTokenizer::Load(dir);
  EXPECT_EQ(from_files.size(), 483);
  ExpectError([&] { from_files.Decode({483}); }, ErrorCode::kInvalidArgument, {"token id 483 is outside the vocabulary of 483"});

  const auto transcriber = WhisperTranscriber::Load(dir);
  const WhisperTokenizer& tokenizer = transcriber->tokenizer();
  const std::int64_t begin = transcriber->special().timestamp_begin;
  EXPECT_EQ(begin, 483);
  EXPECT_EQ(tokenizer.size(), 1984);
  EXPECT_EQ(tokenizer.Decode({begin}, /*skip_special=*/false), "<|0.00|>");
  EXPECT_EQ(tokenizer.Decode({begin + 7}, false), "<|0.14|>");
  EXPECT_EQ(tokenizer.Decode({begin + 1500}, false), "<|30.00|>");
  EXPECT_EQ(tokenizer.Decode({begin, 100, begin + 50}), tokenizer.Decode({100}));
  EXPECT_TRUE(tokenizer.IsSpecial(begin + 50));
  EXPECT_EQ(tokenizer.Encode("<|1.00|>"), std::vector<std::int64_t>{begin + 50});
  EXPECT_EQ(tokenizer.Find("<|29.98|>"), begin + 1499);

  // The HF fixture's tokenizer names its timestamps itself: nothing changes.
  WhisperTokenizer hf = WhisperTokenizer::Load(TestdataDir("whisper_tiny"));
  hf.AddTimestampTokens(483, 1984);
  EXPECT_EQ(hf.Decode({483 + 1500}, false), "<|30.00|>");
  EXPECT_EQ(hf.size(), 1984);
  // Ids that are some other token cannot be timestamps.
  WhisperTokenizer wrong = WhisperTokenizer::Load(dir);
  ExpectError([&] { wrong.AddTimestampTokens(400, 1984); }, ErrorCode::kInvalidArgument, {dir, "token 400", "timestamps"});
}

TEST(Ct2Whisper, TimestampRunsDecodeTheirSegments) {
  const auto transcriber = WhisperTranscriber::Load(TestdataDir("whisper_tiny_ct2_float16"));
  const auto tensors = SafetensorsFile::Open(TestdataDir("whisper_tiny") + "/reference.safetensors");
  const torch::Tensor audio = tensors->Load("audio_0");
  WhisperOptions o;
  o.language = "en";
  o.timestamps = true;
  o.max_new_tokens = 24;
  const WhisperResult result = transcriber->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
  const std::int64_t begin = transcriber->special().timestamp_begin;
  EXPECT_TRUE(std::any_of(result.sequence.begin(), result.sequence.end(), [&](std::int64_t id) { return id >= begin; }))
      << "the run emits timestamp tokens";
  EXPECT_FALSE(result.segments.empty());
  EXPECT_EQ(result.text.find("<|"), std::string::npos) << result.text;
}

TEST(Ct2Whisper, WithoutLangIdsTheFixtureIsEnglishOnly) {
  const ScratchDir dir;
  const std::string from = TestdataDir("whisper_tiny_ct2_float16");
  CopyTokenizerAndConfig(from, dir.path());
  WriteBytes(dir.File("model.bin"), ReadBytes(from + "/model.bin"));
  nlohmann::json config = ReadJsonFile(from + "/config.json");
  config.erase("lang_ids");
  WriteBytes(dir.File("config.json"), config.dump());
  const auto transcriber = WhisperTranscriber::Load(dir.path());
  EXPECT_FALSE(transcriber->multilingual());
  EXPECT_EQ(transcriber->Prompt("", {}), (std::vector<std::int64_t>{377, 482}));
}

TEST(Ct2Whisper, Int8WeightsRequantizeToTheStoredInt8) {
  // int8 weights are dequantized when loaded; --quantize int8 quantizes them
  // again as quantization.h does (scale = max|row| / 127), which gives back the
  // stored int8 values: the file's quantization is kept, not compounded.
  const auto checkpoint = Ct2Checkpoint::Open(TestdataDir("whisper_tiny_ct2_int8_float16"));
  int weights = 0;
  for (const std::string& name : checkpoint->Names()) {
    const Ct2Variable& v = checkpoint->Info(name);
    if (v.dtype != Ct2DType::kInt8 || v.shape.size() != 2) continue;
    const torch::Tensor dequantized = checkpoint->LoadWeight(name, v.shape, torch::TensorOptions().dtype(torch::kFloat));
    const LinearWeights requantized = QuantizeInt8(LinearWeights{dequantized, {}}, Int8Kernel::kDequantize);
    EXPECT_TRUE(torch::equal(requantized.weight, checkpoint->Load(name))) << name;
    ++weights;
  }
  EXPECT_EQ(weights, 2 * 4 + 2 * 7 + 1);  // encoder 4 linears a layer, decoder 7, the embeddings
  const auto plain = WhisperModel::Load(TestdataDir("whisper_tiny_ct2_int8_float16"));
  ModelOptions int8;
  int8.quantization = Quantization::kInt8;
  int8.int8_kernel = Int8Kernel::kDequantize;  // weight-only: the products see the same weights
  const auto quantized = WhisperModel::Load(TestdataDir("whisper_tiny_ct2_int8_float16"), int8);
  const torch::Tensor encoded = plain->Encode(torch::randn({1, 80, 3000}, torch::TensorOptions().dtype(torch::kFloat)) * 0.3);
  const torch::Tensor ids = torch::tensor({377, 378, 478, 482, 100}, torch::kLong).view({1, -1});
  EXPECT_LE(RelativeError(quantized->Logits(encoded, ids), plain->Logits(encoded, ids)), 1e-5);
}

// On a GPU (the GPU machine's build), in half precision: the CTranslate2 float16
// checkpoint placed there is the HF path's with the same weights, to the bit.
TEST(Ct2WhisperOnGpu, Float16OnCudaIsTheHfPathOnTheSameWeights) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: this test runs on the GPU machine";
  const ScratchDir scratch;
  WriteHfWithRoundedWeights(scratch.path(), Rounding::kFloat16);
  ModelOptions gpu;
  gpu.device = torch::Device(torch::kCUDA, 0);
  gpu.dtype = torch::kHalf;
  const auto ct2 = WhisperTranscriber::Load(TestdataDir("whisper_tiny_ct2_float16"), gpu);
  const auto hf = WhisperTranscriber::Load(scratch.path(), gpu);
  const auto tensors = SafetensorsFile::Open(TestdataDir("whisper_tiny") + "/reference.safetensors");
  const torch::Tensor audio = tensors->Load("audio_0");
  const torch::Tensor features = ct2->features().Compute(audio.data_ptr<float>(), audio.numel()).unsqueeze(0);
  const torch::Tensor encoded = ct2->model().Encode(features, EncoderPath::kEager);
  EXPECT_TRUE(torch::equal(encoded, hf->model().Encode(features, EncoderPath::kEager)));
  const torch::Tensor ids = torch::tensor({377, 378, 478, 482, 100, 622}, torch::kLong).view({1, -1});
  EXPECT_TRUE(torch::equal(ct2->model().Logits(encoded, ids), hf->model().Logits(encoded, ids)));
  WhisperOptions o;
  o.language = "en";
  o.timestamps = true;
  o.max_new_tokens = 24;
  const WhisperResult got = ct2->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
  EXPECT_EQ(got.sequence, hf->Transcribe(audio.data_ptr<float>(), audio.numel(), o).sequence);
  EXPECT_EQ(got.text.find("<|"), std::string::npos);
}

// The byte offsets of one variable's entry in a binary version 6 file.
struct EntryBytes {
  std::size_t name, dims, data;
};
EntryBytes EntryOf(const Ct2Checkpoint& checkpoint, const std::string& variable) {
  const Ct2Variable& v = checkpoint.Info(variable);
  const std::size_t dims = v.offset - 4 - 1 - 4 * v.shape.size();
  return {dims - 1 - (variable.size() + 1), dims, v.offset};
}

class BrokenCt2Whisper : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = TestdataDir("whisper_tiny_ct2_float16");
    CopyTokenizerAndConfig(source_, dir_.path());
    bytes_ = ReadBytes(source_ + "/model.bin");
    checkpoint_ = Ct2Checkpoint::Open(source_);
    model_ = dir_.File("model.bin");
  }
  void WriteModel(const std::string& bytes) const { WriteBytes(model_, bytes); }

  ScratchDir dir_;
  std::string source_, bytes_, model_;
  std::shared_ptr<const Ct2Checkpoint> checkpoint_;
};

TEST_F(BrokenCt2Whisper, AMissingVariableIsNamed) {
  const std::string gamma = "encoder/layer_norm/gamma";
  std::string damaged = bytes_;
  damaged[EntryOf(*checkpoint_, gamma).name + gamma.size() - 1] = 'b';  // "...gammb": gamma is gone
  WriteModel(damaged);
  ExpectError([&] { WhisperModel::Load(dir_.path()); }, ErrorCode::kNotFound,
              {model_, "no variable 'encoder/layer_norm/gamma'", "model.encoder.layer_norm.weight"});
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kNotFound, {model_, "'encoder/layer_norm/gamma'"});
}

TEST_F(BrokenCt2Whisper, AWrongShapeNamesTheVariableAndBothShapes) {
  // [64, 32] written as [32, 64]: the same bytes, the wrong shape.
  const std::string fc1 = "decoder/layer_1/ffn/linear_0/weight";
  std::string damaged = bytes_;
  const EntryBytes at = EntryOf(*checkpoint_, fc1);
  std::swap_ranges(damaged.begin() + static_cast<std::ptrdiff_t>(at.dims), damaged.begin() + static_cast<std::ptrdiff_t>(at.dims + 4),
                   damaged.begin() + static_cast<std::ptrdiff_t>(at.dims + 4));
  WriteModel(damaged);
  ExpectError([&] { WhisperModel::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {model_, "variable '" + fc1 + "'", "float16 [32, 64]", "expected shape [64, 32]"});
}

TEST_F(BrokenCt2Whisper, SettingsThisEngineDoesNotComputeAreRefused) {
  struct Case {
    std::string variable;
    std::uint8_t value;
    ErrorCode code;
    std::string message;
  };
  for (const Case& c : {Case{"decoder/activation", 0, ErrorCode::kUnimplemented, "activation 0"},
                        Case{"decoder/pre_norm", 0, ErrorCode::kUnimplemented, "post-norm"},
                        Case{"decoder/alibi", 1, ErrorCode::kUnimplemented, "ALiBi"},
                        Case{"decoder/scale_embeddings", 1, ErrorCode::kUnimplemented, "scales the embeddings"},
                        Case{"encoder/num_heads", 5, ErrorCode::kInvalidArgument, "not a divisor of d_model 32"}}) {
    SCOPED_TRACE(c.variable);
    std::string damaged = bytes_;
    damaged[checkpoint_->Info(c.variable).offset] = static_cast<char>(c.value);
    WriteModel(damaged);
    ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, c.code, {model_, "variable '" + c.variable + "'", c.message});
  }
}

TEST_F(BrokenCt2Whisper, AnotherSpecIsNotWhisper) {
  std::string damaged = bytes_;
  damaged.replace(6, 11, "Transformer");  // after the version (4) and the length (2)
  WriteModel(damaged);
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {model_, "a CTranslate2 Transformer checkpoint, not Whisper"});
}

TEST_F(BrokenCt2Whisper, ATruncatedCheckpointIsRefusedBeforeAnythingIsBuilt) {
  for (std::size_t size : {std::size_t{3}, std::size_t{40}, bytes_.size() / 2, bytes_.size() - 1}) {
    WriteModel(bytes_.substr(0, size));
    ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kDataLoss, {model_});
  }
}

TEST_F(BrokenCt2Whisper, TokenizerAndConfigMustBeThisModels) {
  WriteModel(bytes_);
  // A vocabulary.txt of another model.
  const std::string vocabulary = ReadBytes(source_ + "/vocabulary.txt");
  WriteBytes(dir_.File("vocabulary.txt"), vocabulary.substr(0, vocabulary.rfind('\n', vocabulary.size() - 2) + 1));
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {dir_.File("vocabulary.txt"), "1983 tokens", "1984 rows", "different models"});
  WriteBytes(dir_.File("vocabulary.txt"), vocabulary);
  // lang_ids naming a token that is not a language.
  nlohmann::json config = ReadJsonFile(source_ + "/config.json");
  config["lang_ids"].push_back(100);
  WriteBytes(dir_.File("config.json"), config.dump());
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {dir_.File("config.json"), "lang_ids holds 100"});
  config["lang_ids"].erase(config["lang_ids"].size() - 1);
  config["suppress_ids"].push_back(5000);
  WriteBytes(dir_.File("config.json"), config.dump());
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {dir_.File("config.json"), "\"suppress_ids\" holds 5000", "1984 rows"});
  WriteBytes(dir_.File("config.json"), ReadBytes(source_ + "/config.json"));
  // A tokenizer without <|notimestamps|>.
  nlohmann::json tokenizer = ReadJsonFile(source_ + "/tokenizer.json");
  auto& added = tokenizer["added_tokens"];
  added.erase(std::remove_if(added.begin(), added.end(), [](const nlohmann::json& t) { return t["content"] == "<|notimestamps|>"; }),
              added.end());
  WriteBytes(dir_.File("tokenizer.json"), tokenizer.dump());
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kNotFound,
              {dir_.File("tokenizer.json"), "<|notimestamps|>"});
}

// ---- The real models, when installed (scripts/install-deps.sh), on real speech.

std::string ModelsDir() {
  const char* from_env = std::getenv("LINGCAST_MODELS_DIR");
  return from_env != nullptr && *from_env != '\0' ? from_env : std::string(LINGCAST_SOURCE_DIR) + "/models";
}
std::string SpeechFile(const std::string& name) { return std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/" + name; }

// 16-bit PCM mono WAV at 16 kHz -> samples in [-1, 1).
std::vector<float> ReadWav16k(const std::string& path) {
  const std::string bytes = ReadBytes(path);
  auto u32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes.at(at))) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes.at(at + 1))) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes.at(at + 2))) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(bytes.at(at + 3))) << 24;
  };
  if (bytes.compare(0, 4, "RIFF") != 0 || bytes.compare(8, 4, "WAVE") != 0) throw std::runtime_error(path + ": not a WAV file");
  std::vector<float> samples;
  bool format_ok = false;
  for (std::size_t at = 12; at + 8 <= bytes.size();) {
    const std::string id = bytes.substr(at, 4);
    const std::uint32_t size = u32(at + 4);
    if (id == "fmt ") {
      const auto channels = static_cast<unsigned char>(bytes.at(at + 10));
      format_ok = channels == 1 && u32(at + 12) == 16000 && static_cast<unsigned char>(bytes.at(at + 22)) == 16;
    } else if (id == "data") {
      if (!format_ok) throw std::runtime_error(path + ": not 16-bit mono 16 kHz");
      for (std::size_t i = at + 8; i + 1 < at + 8 + size && i + 1 < bytes.size(); i += 2) {
        const auto v = static_cast<std::int16_t>(static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[i])) |
                                                 static_cast<std::uint16_t>(static_cast<unsigned char>(bytes[i + 1])) << 8);
        samples.push_back(static_cast<float>(v) / 32768.0f);
      }
      return samples;
    }
    at += 8 + size + (size & 1);
  }
  throw std::runtime_error(path + ": no data chunk");
}

// Lower case, letters, digits and single spaces: how English transcripts are compared.
std::string NormalizeEnglish(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The code points of `text` without ASCII and CJK punctuation and spaces: how
// Mandarin transcripts are compared.
std::u32string HanziOf(const std::string& text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const int extra = b < 0x80 ? 0 : b < 0xE0 ? 1 : b < 0xF0 ? 2 : 3;
    char32_t cp = extra == 0 ? b : extra == 1 ? (b & 0x1F) : extra == 2 ? (b & 0x0F) : (b & 0x07);
    for (int k = 1; k <= extra && i + static_cast<std::size_t>(k) < text.size(); ++k) cp = (cp << 6) | (text[i + k] & 0x3F);
    i += static_cast<std::size_t>(extra) + 1;
    const bool punctuation = (cp < 0x80 && !std::isalnum(static_cast<int>(cp))) || (cp >= 0x3000 && cp <= 0x303F) ||
                             (cp >= 0xFF00 && cp <= 0xFF0F);
    if (!punctuation) out += cp;
  }
  return out;
}

// Levenshtein distance between code point strings: characters substituted,
// dropped or added (the numerator of the character error rate).
std::size_t EditDistance(const std::u32string& a, const std::u32string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const char kJfk[] = "and so my fellow americans ask not what your country can do for you ask what you can do for your country";

class RealWhisper : public ::testing::Test {
 protected:
  // The installed model `name` and the recording `file`, or a skip saying which is absent.
  bool Have(const std::string& name, const std::string& file) {
    model_dir_ = ModelsDir() + "/" + name;
    audio_path_ = SpeechFile(file);
    if (!Exists(model_dir_ + "/config.json")) {
      skip_ = model_dir_ + " is not installed (scripts/install-deps.sh installs it; LINGCAST_MODELS_DIR points elsewhere)";
      return false;
    }
    if (!Exists(audio_path_)) {
      skip_ = audio_path_ + " is absent (../shared/data is not part of a clone)";
      return false;
    }
    return true;
  }
  std::string model_dir_, audio_path_, skip_;
};

TEST_F(RealWhisper, TinyEnHearsJfk) {
  if (!Have("whisper-tiny.en", "en-jfk.wav")) GTEST_SKIP() << skip_;
  const auto transcriber = WhisperTranscriber::Load(model_dir_);
  EXPECT_FALSE(transcriber->multilingual());
  EXPECT_EQ(transcriber->special().end_of_text, 50256);
  EXPECT_EQ(transcriber->special().start_of_transcript, 50257);
  EXPECT_EQ(transcriber->special().no_timestamps, 50362);
  EXPECT_EQ(transcriber->model().config().vocab_size, 51864);
  const std::vector<float> audio = ReadWav16k(audio_path_);
  WhisperOptions o;
  o.timestamps = true;  // timestamp ids past tokenizer.json's vocabulary, decoded
  const WhisperResult result = transcriber->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o);
  std::cout << "[ heard    ] tiny.en on JFK: " << result.text << "\n";
  EXPECT_EQ(NormalizeEnglish(result.text), kJfk) << result.text;
  ASSERT_FALSE(result.segments.empty());
  EXPECT_LE(result.segments.back().end, 11.5);
}

TEST_F(RealWhisper, BaseHearsJfkInEnglish) {
  if (!Have("whisper-base", "en-jfk.wav")) GTEST_SKIP() << skip_;
  const auto transcriber = WhisperTranscriber::Load(model_dir_);
  EXPECT_TRUE(transcriber->multilingual());
  EXPECT_EQ(transcriber->special().languages.size(), 99u);
  EXPECT_EQ(transcriber->special().languages.at("en"), 50259);
  EXPECT_EQ(transcriber->special().no_timestamps, 50363);
  const std::vector<float> audio = ReadWav16k(audio_path_);
  WhisperOptions o;  // the language detected
  o.timestamps = true;
  const WhisperResult result = transcriber->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o);
  std::cout << "[ heard    ] base on JFK: " << result.text << " (" << result.language << " " << result.language_probability << ")\n";
  EXPECT_EQ(result.language, "en");
  EXPECT_EQ(NormalizeEnglish(result.text), kJfk) << result.text;
  EXPECT_FALSE(result.segments.empty());
}

TEST_F(RealWhisper, BaseHearsAishellInMandarin) {
  if (!Have("whisper-base", "zh-aishell-BAC009S0764W0121.wav")) GTEST_SKIP() << skip_;
  const auto transcriber = WhisperTranscriber::Load(model_dir_);
  const std::vector<float> audio = ReadWav16k(audio_path_);
  const torch::Tensor features = transcriber->features().Compute(audio.data(), static_cast<std::int64_t>(audio.size())).unsqueeze(0);
  const auto detected = transcriber->DetectLanguage(transcriber->model().Encode(features));
  EXPECT_EQ(detected.front().first, "zh");
  WhisperOptions o;
  o.language = "zh";
  const WhisperResult result = transcriber->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o);
  std::cout << "[ heard    ] base on AISHELL: " << result.text << "\n";
  // The reference transcript in either script (Whisper writes either; turning
  // Traditional into Simplified is src/text's), at most one character off: on
  // these features greedy base hears 停止 for 停滞 (faster-whisper, on its own
  // features, 停制; our engine on faster-whisper's features gives its very tokens).
  const std::u32string heard = HanziOf(result.text);
  const std::size_t errors = std::min(EditDistance(heard, HanziOf("甚至出现交易几乎停滞的情况")),
                                      EditDistance(heard, HanziOf("甚至出現交易幾乎停滯的情況")));
  EXPECT_LE(errors, 1u) << result.text;
}

}  // namespace
}  // namespace lingcast::neural

namespace lingcast::neural {
namespace {

// A second task on the same audio reuses the first one's encoder output: the
// English of AISHELL is the same tokens as when it is encoded again.
TEST_F(RealWhisper, TheEncoderOutputOfOneDecodeServesTheNextTask) {
  if (!Have("whisper-base", "zh-aishell-BAC009S0764W0121.wav")) GTEST_SKIP() << skip_;
  const auto transcriber = WhisperTranscriber::Load(model_dir_);
  const std::vector<float> audio = ReadWav16k(audio_path_);
  const auto count = static_cast<std::int64_t>(audio.size());
  WhisperOptions o;
  o.language = "zh";
  o.timestamps = true;
  o.encode_heard_only = true;
  o.keep_encoder_output = true;
  const WhisperResult chinese = transcriber->Transcribe(audio.data(), count, o);
  ASSERT_TRUE(chinese.encoder_output.defined());
  o.keep_encoder_output = false;
  o.task = WhisperTask::kTranslate;
  const WhisperResult encoded_again = transcriber->Transcribe(audio.data(), count, o);
  o.encoder_output = chinese.encoder_output;
  const WhisperResult reused = transcriber->Transcribe(audio.data(), count, o);
  std::cout << "[ heard    ] base translating AISHELL: " << reused.text << "\n";
  EXPECT_FALSE(reused.text.empty());
  EXPECT_EQ(reused.tokens, encoded_again.tokens);
  EXPECT_FALSE(encoded_again.encoder_output.defined());  // kept only when asked
}

}  // namespace
}  // namespace lingcast::neural
