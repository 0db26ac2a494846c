// Parity with transformers' Whisper (WhisperForConditionalGeneration, its
// tokenizer and feature extractor) on the committed tiny random-weight
// checkpoints (tools/neural/make_whisper_fixtures.py): mel features, hidden
// states and logits within 1e-4 of the reference relative to the tensor's largest
// magnitude (fp32), generated token sequences exactly equal; and every kind of
// broken checkpoint refused with the file and tensor named.
#include <sys/stat.h>
#include <unistd.h>

#include <torch/cuda.h>

#include <fstream>
#include <limits>

#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/whisper/whisper_features.h"
#include "neural/whisper/whisper_model.h"
#include "neural/whisper/whisper_tokenizer.h"
#include "neural/whisper/whisper_transcriber.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::ExpectError;
using testing::ReadJsonFile;
using testing::RelativeError;
using testing::TestdataDir;

constexpr double kTolerance = 1e-4;

// What the transcriber asks of greedy search for a run without timestamps,
// spelled out for WhisperModel::Generate.
GenerationOptions GreedyOptions(const WhisperTranscriber& transcriber, std::vector<std::int64_t> prompt,
                                std::int64_t max_new_tokens) {
  const WhisperConfig& c = transcriber.model().config();
  GenerationOptions g;
  g.prompt = std::move(prompt);
  g.start_token_id = transcriber.special().start_of_transcript;
  g.eos_token_id = transcriber.special().end_of_text;
  g.pad_token_id = c.pad_token_id;
  g.max_new_tokens = max_new_tokens;
  for (std::int64_t id : c.suppress_tokens) {
    if (id >= 0 && id < c.vocab_size) g.suppressed_tokens.push_back(id);
  }
  g.begin_suppressed_tokens = c.begin_suppress_tokens;
  return g;
}

class WhisperParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = TestdataDir(GetParam());
    transcriber_ = WhisperTranscriber::Load(dir_);
    reference_ = ReadJsonFile(dir_ + "/reference.json");
    tensors_ = SafetensorsFile::Open(dir_ + "/reference.safetensors");
  }

  // The reference's features of input `i`: its first frames, then the padding value.
  torch::Tensor ReferenceFeatures(std::size_t i) const {
    const torch::Tensor head = tensors_->Load("mel_head_" + std::to_string(i));
    torch::Tensor features = torch::full({head.size(0), transcriber_->model().input_frames()},
                                         reference_["inputs"][i]["mel_padding_value"].get<double>(), torch::kFloat);
    features.narrow(1, 0, head.size(1)).copy_(head);
    return features.unsqueeze(0);
  }

  static WhisperOptions Options(const nlohmann::json& params, std::int64_t max_new_tokens) {
    WhisperOptions o;
    o.language = params.value("language", std::string());
    o.task = params.value("task", std::string("transcribe")) == "translate" ? WhisperTask::kTranslate : WhisperTask::kTranscribe;
    o.timestamps = params.value("timestamps", false);
    o.num_beams = params.value("num_beams", 1);
    o.max_new_tokens = max_new_tokens;
    return o;
  }

  std::string dir_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
  nlohmann::json reference_;
  std::shared_ptr<const SafetensorsFile> tensors_;
};

TEST_P(WhisperParity, TokenizerEncodesAndDecodesAsTheReference) {
  for (const auto& c : reference_["tokenizer"]) {
    const std::string text = c["text"].get<std::string>();
    const auto ids = c["ids"].get<std::vector<std::int64_t>>();
    EXPECT_EQ(transcriber_->tokenizer().Encode(text), ids) << text;
    EXPECT_EQ(transcriber_->tokenizer().Decode(ids), c["decoded"].get<std::string>()) << text;
    EXPECT_EQ(transcriber_->tokenizer().Decode(ids, /*skip_special=*/false), c["decoded_special"].get<std::string>()) << text;
  }
}

TEST_P(WhisperParity, MelFeaturesMatch) {
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const torch::Tensor audio = tensors_->Load("audio_" + std::to_string(i));
    const torch::Tensor features = transcriber_->features().Compute(audio.data_ptr<float>(), audio.numel());
    const torch::Tensor expected = ReferenceFeatures(i)[0];
    ASSERT_EQ(features.sizes(), expected.sizes());
    EXPECT_LT(RelativeError(features, expected), kTolerance) << "input " << i;
  }
}

TEST_P(WhisperParity, EncoderOutputMatches) {
  const torch::Tensor out = transcriber_->model().Encode(ReferenceFeatures(0));
  EXPECT_LT(RelativeError(out[0], tensors_->Load("encoder_hidden_0")), kTolerance);
}

// On a CPU the default path is the eager one: no graph, the same bits.
TEST_P(WhisperParity, EncoderDefaultPathOnTheCpuIsTheEagerPath) {
  const WhisperModel& model = transcriber_->model();
  const torch::Tensor features = ReferenceFeatures(0);
  EXPECT_TRUE(torch::equal(model.Encode(features), model.Encode(features, EncoderPath::kEager)));
  const GraphCacheStats stats = model.encoder_graph_stats();
  EXPECT_EQ(stats.captured + stats.replayed + stats.failed, 0);
}

TEST_P(WhisperParity, TeacherForcedLogitsMatchAtOnceAndStepByStep) {
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const auto ids = reference_["inputs"][i]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
    const torch::Tensor decoder_ids = torch::tensor(ids, torch::kLong).view({1, -1});
    const torch::Tensor expected = tensors_->Load("teacher_forced_logits_" + std::to_string(i));
    const torch::Tensor encoded = transcriber_->model().Encode(ReferenceFeatures(i));
    EXPECT_LT(RelativeError(transcriber_->model().Logits(encoded, decoder_ids)[0], expected), kTolerance) << "input " << i;
    auto state = transcriber_->model().StartDecoder(encoded, 1, decoder_ids.size(1));
    for (std::int64_t t = 0; t < decoder_ids.size(1); ++t) {
      const torch::Tensor logits = state->Step(decoder_ids.select(1, t));
      EXPECT_LT(RelativeError(logits[0], expected[t]), kTolerance) << "input " << i << " position " << t;
    }
  }
}

// A decoder over one audio keeps its cross-attention keys once however many
// rows Select() makes (beams, scored openings); its rows decode what rows over
// copies of that audio decode, each with its own tokens.
TEST_P(WhisperParity, RowsOfOneAudioDecodeAsRowsOverItsCopies) {
  const WhisperModel& model = transcriber_->model();
  const torch::Tensor encoded = model.Encode(ReferenceFeatures(0));
  constexpr std::int64_t kRows = 4;
  auto shared = model.StartDecoder(encoded, 1, 8);
  shared->Select(torch::zeros({kRows}, torch::kLong));
  auto copies = model.StartDecoder(encoded.expand({kRows, -1, -1}).contiguous(), 1, 8);
  const auto ids = reference_["inputs"][0]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
  ASSERT_GE(ids.size(), 4u);
  // Each row its own three tokens: the reference's, rotated by the row.
  std::vector<std::int64_t> fed;
  for (std::int64_t r = 0; r < kRows; ++r) {
    for (std::int64_t t = 0; t < 3; ++t) fed.push_back(ids[static_cast<std::size_t>((r + t) % 4)]);
  }
  const torch::Tensor tokens = torch::tensor(fed, torch::kLong).view({kRows, 3});
  const torch::Tensor expected = copies->PrefillAll(tokens);
  EXPECT_LT(RelativeError(shared->PrefillAll(tokens), expected), kTolerance);
  // A step after the prefill, on the same path the beams take.
  const torch::Tensor next = tokens.select(1, 0);
  EXPECT_LT(RelativeError(shared->Step(next), copies->Step(next)), kTolerance);
}

// Scored openings (WhisperTranscriber::ScoreOpenings: the prompt fed once, then
// each opening's tokens on a copy of its cache) are the reference's
// teacher-forced log-probabilities of the same tokens: each opening the first
// 1-3 tokens after a prefix of the reference's ids, all in one call, with an
// empty one among them.
TEST_P(WhisperParity, ScoredOpeningsAreTheReferencesTeacherForcedLogProbabilities) {
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const auto ids = reference_["inputs"][i]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
    ASSERT_GE(ids.size(), 5u);
    const torch::Tensor expected =
        torch::log_softmax(tensors_->Load("teacher_forced_logits_" + std::to_string(i)).to(torch::kDouble), -1);
    const torch::Tensor encoded = transcriber_->model().Encode(ReferenceFeatures(i));
    const std::size_t prompt_length = 2;
    const std::vector<std::int64_t> prompt(ids.begin(), ids.begin() + prompt_length);
    std::vector<std::vector<std::int64_t>> openings;
    for (std::size_t length : {3, 1, 0, 2}) {
      openings.emplace_back(ids.begin() + prompt_length, ids.begin() + prompt_length + length);
    }
    const std::vector<double> scores = transcriber_->ScoreOpenings(encoded, prompt, openings, 3);
    ASSERT_EQ(scores.size(), openings.size());
    for (std::size_t o = 0; o < openings.size(); ++o) {
      if (openings[o].empty()) {
        EXPECT_EQ(scores[o], -std::numeric_limits<double>::infinity());
        continue;
      }
      double sum = 0;
      for (std::size_t t = 0; t < openings[o].size(); ++t) {
        sum += expected[static_cast<std::int64_t>(prompt_length + t) - 1][openings[o][t]].item<double>();
      }
      EXPECT_NEAR(scores[o], sum / static_cast<double>(openings[o].size()), 1e-3) << "input " << i << " opening " << o;
    }
  }
}

TEST_P(WhisperParity, LanguageProbabilitiesMatch) {
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const auto& entry = reference_["inputs"][i];
    const auto detected = transcriber_->DetectLanguage(transcriber_->model().Encode(ReferenceFeatures(i)));
    ASSERT_EQ(detected.size(), entry["language_probs"].size());
    for (const auto& [code, p] : detected) EXPECT_NEAR(p, entry["language_probs"][code].get<double>(), 1e-5) << code;
    EXPECT_EQ(transcriber_->special().languages.at(detected.front().first), entry["detected_language_id"].get<std::int64_t>());
  }
}

TEST_P(WhisperParity, GeneratedSequencesMatchForEveryRun) {
  const auto max_new_tokens = reference_["max_new_tokens"].get<std::int64_t>();
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const auto& entry = reference_["inputs"][i];
    const torch::Tensor features = ReferenceFeatures(i);
    for (const auto& run : entry["generate"]) {
      const WhisperResult result = transcriber_->TranscribeFeatures(features, Options(run["params"], max_new_tokens));
      EXPECT_EQ(result.sequence, run["sequence"].get<std::vector<std::int64_t>>()) << "input " << i << " " << run["params"];
      EXPECT_EQ(result.text, run["text"].get<std::string>()) << run["params"];
      EXPECT_NEAR(result.no_speech_probability, entry["no_speech_prob"].get<double>(), 1e-5);
    }
  }
}

// end_loops on the random checkpoints, which loop: every decode that the
// reference runs to a loop stops at the loop's third copy and keeps the phrase
// once, a prefix of the reference's tokens with no loop left in it.
TEST_P(WhisperParity, EndingLoopsKeepsAPrefixWithoutTheLoop) {
  const auto max_new_tokens = reference_["max_new_tokens"].get<std::int64_t>();
  int ended = 0;
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const torch::Tensor features = ReferenceFeatures(i);
    for (const auto& run : reference_["inputs"][i]["generate"]) {
      WhisperOptions options = Options(run["params"], max_new_tokens);
      if (options.num_beams > 1 || options.word_timestamps) continue;
      const WhisperResult whole = transcriber_->TranscribeFeatures(features, options);
      options.end_loops = true;
      const WhisperResult ended_early = transcriber_->TranscribeFeatures(features, options);
      ASSERT_LE(ended_early.tokens.size(), whole.tokens.size());
      EXPECT_TRUE(std::equal(ended_early.tokens.begin(), ended_early.tokens.end(), whole.tokens.begin()));
      std::vector<std::int64_t> text;
      for (std::int64_t id : ended_early.tokens) {
        if (id < transcriber_->special().end_of_text) text.push_back(id);
      }
      EXPECT_EQ(LoopedTokens(text), 0u) << run["params"];
      if (ended_early.tokens.size() < whole.tokens.size()) ++ended;
    }
  }
  RecordProperty("decodes_ended", ended);
}

TEST_P(WhisperParity, AudioInAllTheWayGivesTheReferenceSequence) {
  const auto& entry = reference_["inputs"][0];
  const auto& run = entry["generate"][0];
  const torch::Tensor audio = tensors_->Load("audio_0");
  const WhisperResult result = transcriber_->Transcribe(audio.data_ptr<float>(), audio.numel(),
                                                        Options(run["params"], reference_["max_new_tokens"].get<std::int64_t>()));
  EXPECT_EQ(result.sequence, run["sequence"].get<std::vector<std::int64_t>>());
  EXPECT_EQ(result.language, run["params"]["language"].get<std::string>());
}

// The static path (caches preallocated and written in place, suppression as
// on-device masks: what a CUDA graph replays) on the CPU: the same logits
// through the caches, and the reference's greedy sequences and no-speech
// probability for every greedy run without timestamps.
TEST_P(WhisperParity, StaticDecoderStepByStepMatchesTeacherForcing) {
  const auto ids = reference_["inputs"][0]["teacher_forced_ids"].get<std::vector<std::int64_t>>();
  const torch::Tensor decoder_ids = torch::tensor(ids, torch::kLong).view({1, -1});
  const torch::Tensor expected = tensors_->Load("teacher_forced_logits_0");
  auto state = transcriber_->model().StartStaticDecoder(transcriber_->model().Encode(ReferenceFeatures(0)),
                                                        decoder_ids.size(1) + 5);
  // The prompt's first two tokens at once, then one at a time.
  const torch::Tensor head = state->Forward(decoder_ids.narrow(1, 0, 2), torch::arange(2, torch::kLong));
  EXPECT_LT(RelativeError(head[0], expected.narrow(0, 0, 2)), kTolerance);
  for (std::int64_t t = 2; t < decoder_ids.size(1); ++t) {
    const torch::Tensor logits = state->Forward(decoder_ids.narrow(1, t, 1), torch::full({1}, t, torch::kLong));
    EXPECT_LT(RelativeError(logits[0][0], expected[t]), kTolerance) << "position " << t;
  }
}

TEST_P(WhisperParity, StaticPathGivesTheReferenceGreedySequences) {
  const auto max_new_tokens = reference_["max_new_tokens"].get<std::int64_t>();
  const auto prompt_length = transcriber_->Prompt("en", WhisperOptions{}).size();
  int runs = 0;
  for (std::size_t i = 0; i < reference_["inputs"].size(); ++i) {
    const auto& entry = reference_["inputs"][i];
    const torch::Tensor encoded = transcriber_->model().Encode(ReferenceFeatures(i));
    for (const auto& run : entry["generate"]) {
      const auto& params = run["params"];
      if (params.value("num_beams", 1) != 1 || params.value("timestamps", false)) continue;
      const auto expected = run["sequence"].get<std::vector<std::int64_t>>();
      GenerationOptions g = GreedyOptions(
          *transcriber_, std::vector<std::int64_t>(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(prompt_length)),
          max_new_tokens);
      g.path = DecodePath::kStatic;
      torch::Tensor first;
      StaticSearchReport report;
      const auto sequences = transcriber_->model().Generate(encoded, g, 0, first, &report);
      EXPECT_EQ(sequences.at(0), expected) << "input " << i << " " << params;
      ASSERT_TRUE(first.defined());
      EXPECT_NEAR(torch::softmax(first[0], 0)[transcriber_->special().no_speech].item<double>(),
                  entry["no_speech_prob"].get<double>(), 1e-5);
      EXPECT_FALSE(report.cuda_graph);
      ++runs;
    }
  }
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(TinyCheckpoints, WhisperParity, ::testing::Values("whisper_tiny", "whisper_tiny_v3"));

TEST(WhisperFeatures, MelFilterBankHasSlaneyAreaNormalizedTriangles) {
  const WhisperFeatures features(WhisperFeatureOptions{});
  const torch::Tensor bank = features.mel_filters();
  ASSERT_EQ(bank.sizes(), (std::vector<std::int64_t>{201, 80}));
  // Every filter is a non-negative triangle, none empty; the 8 kHz top edge and
  // the 0 Hz bottom edge carry no weight.
  EXPECT_GE(bank.min().item<double>(), 0.0);
  EXPECT_GT(std::get<0>(bank.max(0)).min().item<double>(), 0.0);
  EXPECT_EQ(bank[0].abs().sum().item<double>(), 0.0);
  EXPECT_LT(bank[200].abs().sum().item<double>(), 1e-6);
  // Above 1 kHz the filters widen: the last one spans far more bins than the first.
  EXPECT_GT((bank.select(1, 79) > 0).sum().item<std::int64_t>(), 4 * (bank.select(1, 0) > 0).sum().item<std::int64_t>());
}

TEST(WhisperFeatures, SilenceIsTheFloorEverywhere) {
  const WhisperFeatures features(WhisperFeatureOptions{128});
  const torch::Tensor mel = features.Compute(nullptr, 0);
  ASSERT_EQ(mel.sizes(), (std::vector<std::int64_t>{128, 3000}));
  // log10(1e-10) = -10, scaled: (-10 + 4) / 4.
  EXPECT_NEAR(mel.min().item<double>(), -1.5, 1e-6);
  EXPECT_NEAR(mel.max().item<double>(), -1.5, 1e-6);
}

TEST(WhisperTranscriber, UnknownLanguageAndTooLongAudioAreRefused) {
  auto transcriber = WhisperTranscriber::Load(TestdataDir("whisper_tiny"));
  WhisperOptions options;
  options.language = "xx";
  ExpectError([&] { transcriber->Transcribe(nullptr, 0, options); }, ErrorCode::kInvalidArgument, {"\"xx\"", "language"});
  std::vector<float> long_audio(16000 * 31, 0.0f);
  ExpectError([&] { transcriber->Transcribe(long_audio.data(), static_cast<std::int64_t>(long_audio.size()), {}); },
              ErrorCode::kInvalidArgument, {"496000 samples", "window"});
  ExpectError([&] { transcriber->model().Encode(torch::zeros({1, 80, 101})); }, ErrorCode::kInvalidArgument,
              {"(batch, 80, frames)", "even number of frames up to 3000", "[1, 80, 101]"});
  ExpectError([&] { transcriber->model().Encode(torch::zeros({1, 80, 3002})); }, ErrorCode::kInvalidArgument,
              {"up to 3000", "[1, 80, 3002]"});
}

TEST(WhisperTranscriber, NotACheckpointDirectory) {
  ScratchDir dir;
  ExpectError([&] { WhisperTranscriber::Load(dir.path()); }, ErrorCode::kNotFound, {dir.path()});
}

TEST(WhisperTranscriber, AMarianCheckpointIsTheWrongArchitecture) {
  ExpectError([&] { WhisperModel::Load(TestdataDir("marian_tiny")); }, ErrorCode::kInvalidArgument,
              {"config.json", "\"marian\"", "not a Whisper checkpoint"});
}

class BrokenWhisperCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override { testing::CopyDir(TestdataDir("whisper_tiny"), dir_.path()); }

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

TEST_F(BrokenWhisperCheckpoint, MissingTokenizerNamesTheFilesItNeeds) {
  // POSIX calls rather than std::filesystem: pip's libtorch exports broken copies of
  // some std::filesystem functions (the GPU machine's run of this test crashed in one).
  for (const char* name : {"vocab.json", "merges.txt"}) ASSERT_EQ(::unlink(dir_.File(name).c_str()), 0);
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kNotFound,
              {dir_.path(), "vocab.json + merges.txt", "tokenizer.json"});
}

TEST_F(BrokenWhisperCheckpoint, MissingTensorNamesCheckpointAndTensor) {
  EditWeights([](auto& t) { t.erase("model.decoder.layers.1.encoder_attn.v_proj.weight"); });
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kNotFound,
              {dir_.path(), "model.decoder.layers.1.encoder_attn.v_proj.weight"});
}

TEST_F(BrokenWhisperCheckpoint, WrongShapeNamesTensorAndBothShapes) {
  EditWeights([](auto& t) { t["model.encoder.conv1.weight"] = torch::zeros({32, 128, 3}); });
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {"model.safetensors", "model.encoder.conv1.weight", "[32, 128, 3]", "[32, 80, 3]"});
}

TEST_F(BrokenWhisperCheckpoint, TruncatedSafetensorsNamesTheFile) {
  const std::string path = dir_.File("model.safetensors");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  ASSERT_EQ(::truncate(path.c_str(), info.st_size / 2), 0);
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kDataLoss, {path});
}

TEST_F(BrokenWhisperCheckpoint, TokenizerFromAnotherModelIsRefused) {
  nlohmann::json config = ReadJsonFile(dir_.File("config.json"));
  config["vocab_size"] = 1000;
  std::ofstream(dir_.File("config.json"), std::ios::trunc) << config.dump(1);
  EditWeights([](auto& t) {
    t["model.decoder.embed_tokens.weight"] = t["model.decoder.embed_tokens.weight"].narrow(0, 0, 1000).contiguous();
  });
  ExpectError([&] { WhisperTranscriber::Load(dir_.path()); }, ErrorCode::kInvalidArgument,
              {"vocab_size is 1000", "different models"});
}

// Greedy search replayed from a CUDA graph against the eager path on the same
// GPU: exactly the same tokens in fp32; in fp16 every token the graph path picks
// is within fp16's tolerance of the eager logits' best.
struct WhisperGpuCase {
  torch::ScalarType dtype;
  double tolerance;
  const char* name;
};

class WhisperOnGpu : public ::testing::TestWithParam<WhisperGpuCase> {};

TEST_P(WhisperOnGpu, CudaGraphPathMatchesTheEagerPath) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA graph test runs on the GPU machine";
  const std::string dir = TestdataDir("whisper_tiny");
  auto transcriber = WhisperTranscriber::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const WhisperModel& model = transcriber->model();
  const auto reference = ReadJsonFile(dir + "/reference.json");
  auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  const auto max_new_tokens = reference["max_new_tokens"].get<std::int64_t>();
  const std::vector<std::int64_t> prompt = transcriber->Prompt("en", WhisperOptions{});
  const auto prompt_length = static_cast<std::int64_t>(prompt.size());
  for (std::size_t i = 0; i < reference["inputs"].size(); ++i) {
    const torch::Tensor audio = tensors->Load("audio_" + std::to_string(i));
    const torch::Tensor features = transcriber->features().Compute(audio.data_ptr<float>(), audio.numel()).unsqueeze(0);
    const torch::Tensor encoded = model.Encode(features);
    GenerationOptions g = GreedyOptions(*transcriber, prompt, max_new_tokens);
    g.path = DecodePath::kEager;
    const auto eager = model.Generate(encoded, g);
    g.path = DecodePath::kStatic;
    torch::Tensor first;
    StaticSearchReport report;
    const auto graphed = model.Generate(encoded, g, 0, first, &report);
    EXPECT_TRUE(report.cuda_graph) << "the decode step was not captured (see the log line above)";
    if (GetParam().dtype == torch::kFloat) {
      EXPECT_EQ(graphed, eager) << "input " << i;
      // The transcriber takes the same path: the reference's greedy sequences.
      for (const auto& run : reference["inputs"][i]["generate"]) {
        const auto& params = run["params"];
        if (params.value("num_beams", 1) != 1 || params.value("timestamps", false)) continue;
        WhisperOptions o;
        o.language = params.value("language", std::string());
        o.task = params.value("task", std::string("transcribe")) == "translate" ? WhisperTask::kTranslate : WhisperTask::kTranscribe;
        o.max_new_tokens = max_new_tokens;
        EXPECT_EQ(transcriber->Transcribe(audio.data_ptr<float>(), audio.numel(), o).sequence,
                  run["sequence"].get<std::vector<std::int64_t>>())
            << "input " << i << " " << params;
      }
      continue;
    }
    const auto& seq = graphed.at(0);
    const auto fed = static_cast<std::int64_t>(seq.size()) - 1;
    ASSERT_GE(fed, prompt_length);
    const torch::Tensor decoder_ids = torch::tensor(seq, torch::kLong).narrow(0, 0, fed).view({1, fed});
    torch::Tensor logits = model.Logits(encoded, decoder_ids)[0].to(torch::kFloat).narrow(0, prompt_length - 1, fed - prompt_length + 1);
    const float minus_inf = -std::numeric_limits<float>::infinity();
    for (std::int64_t id : g.suppressed_tokens) logits.select(1, id).fill_(minus_inf);
    for (std::int64_t id : g.begin_suppressed_tokens) logits[0][id].fill_(minus_inf);
    testing::ExpectNearArgmax(logits, std::vector<std::int64_t>(seq.begin() + prompt_length, seq.end()), GetParam().tolerance,
                              "input " + std::to_string(i));
  }
}

// The encoder replayed from its CUDA graph gives what the eager encoder gives:
// on the first call (eager), the second (recorded) and later ones (replayed), at
// two batch sizes; a result handed out stays as it was when the graph runs again.
TEST_P(WhisperOnGpu, EncoderGraphMatchesTheEagerEncoder) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA graph test runs on the GPU machine";
  const std::string dir = TestdataDir("whisper_tiny");
  auto transcriber = WhisperTranscriber::Load(dir, ModelOptions{torch::kCUDA, GetParam().dtype});
  const WhisperModel& model = transcriber->model();
  auto tensors = SafetensorsFile::Open(dir + "/reference.safetensors");
  std::vector<torch::Tensor> inputs;
  for (int i = 0; i < 2; ++i) {
    const torch::Tensor audio = tensors->Load("audio_" + std::to_string(i));
    inputs.push_back(transcriber->features().Compute(audio.data_ptr<float>(), audio.numel()).unsqueeze(0));
  }
  const double tolerance = GetParam().dtype == torch::kFloat ? 1e-5 : 1e-3;
  for (const torch::Tensor& features : {inputs[0], torch::cat(inputs)}) {
    const torch::Tensor eager = model.Encode(features, EncoderPath::kEager).to(torch::kFloat);
    for (int call = 0; call < 3; ++call) {
      const torch::Tensor graphed = model.Encode(features);
      ASSERT_EQ(graphed.sizes(), eager.sizes());
      EXPECT_LT(RelativeError(graphed.to(torch::kFloat), eager), tolerance) << "batch " << features.size(0) << ", call " << call;
    }
  }
  const torch::Tensor kept = model.Encode(inputs[0]);
  const torch::Tensor kept_copy = kept.clone();
  model.Encode(inputs[1]);  // replays batch 1's graph over its buffers
  EXPECT_TRUE(torch::equal(kept, kept_copy));
  EXPECT_LT(RelativeError(model.Encode(inputs[1]).to(torch::kFloat), model.Encode(inputs[1], EncoderPath::kEager).to(torch::kFloat)),
            tolerance);
  const GraphCacheStats stats = model.encoder_graph_stats();
  EXPECT_EQ(stats.failed, 0) << "an encoder capture failed (see the log line above)";
  EXPECT_EQ(stats.captured, 2);  // batch 1 and batch 2
  EXPECT_EQ(stats.replayed, 5);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, WhisperOnGpu,
                         ::testing::Values(WhisperGpuCase{torch::kFloat, 1e-4, "fp32"}, WhisperGpuCase{torch::kHalf, 3e-2, "fp16"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lingcast::neural

namespace lingcast::neural {
namespace {

TEST(WhisperLoopGuard, APhraseSaidThreeTimesInARowIsALoop) {
  // "of the current generation" (4 tokens) three times after a start: two copies to drop.
  const std::vector<std::int64_t> looped = {9, 8, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4};
  EXPECT_EQ(LoopedTokens(looped), 8u);
  // A loop is a loop whatever token it is cut at: "3 4 1 2" four times here.
  std::vector<std::int64_t> longer = looped;
  longer.insert(longer.end(), {1, 2, 3, 4, 1, 2});
  EXPECT_EQ(LoopedTokens(longer), 12u);
}

TEST(WhisperLoopGuard, ShortRepeatsOfRealSpeechAreKept) {
  EXPECT_EQ(LoopedTokens({}), 0u);
  EXPECT_EQ(LoopedTokens({5, 6, 5, 6, 5, 6}), 0u) << "\"buy now, buy now, buy now\": 6 tokens, under 12";
  EXPECT_EQ(LoopedTokens({1, 2, 3, 1, 2, 3}), 0u) << "said twice";
  EXPECT_EQ(LoopedTokens(std::vector<std::int64_t>(11, 7)), 0u) << "one token 11 times";
  EXPECT_EQ(LoopedTokens(std::vector<std::int64_t>(12, 7)), 11u) << "one token 12 times";
  EXPECT_EQ(LoopedTokens({1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 5}), 0u) << "the third copy differs";
}

}  // namespace
}  // namespace lingcast::neural
