// Word timestamps against transformers (generate(return_token_timestamps=True)
// and its ASR pipeline's word grouping) on the committed tiny checkpoint
// (tools/neural/make_whisper_word_timestamp_fixtures.py): token times within one
// encoder frame (20 ms) of the reference, word texts equal, word spans within a
// frame; the alignment steps on hand-made inputs; checkpoints without (or with
// bad) alignment heads refused naming generation_config.json.
#include "neural/whisper/whisper_word_timestamps.h"

#include <cmath>
#include <fstream>

#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/whisper/whisper_transcriber.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::ReadJsonFile;
using testing::ScratchDir;
using testing::TestdataDir;

// One encoder frame, and a little for the float rounding of 0.02 multiples.
constexpr double kFrame = 0.02 + 1e-6;

std::vector<std::int64_t> Ids(const nlohmann::json& list) { return list.get<std::vector<std::int64_t>>(); }

TEST(WhisperWordTimestamps, MedianFilterMirrorsTheEdges) {
  // Padded as 5 1 5 2 8 3 8: medians of each three.
  const torch::Tensor x = torch::tensor({1.0f, 5.0f, 2.0f, 8.0f, 3.0f}).view({1, 1, 5});
  const torch::Tensor filtered = MedianFilterFrames(x, 3).flatten();
  const std::vector<float> expected = {5, 2, 5, 3, 8};
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_EQ(filtered[i].item<float>(), expected[static_cast<std::size_t>(i)]) << i;
  // Too few frames to filter: unchanged.
  const torch::Tensor two = torch::tensor({1.0f, 9.0f}).view({1, 1, 2});
  EXPECT_TRUE(torch::equal(MedianFilterFrames(two, 7), two));
  ExpectError([&] { MedianFilterFrames(x, 4); }, ErrorCode::kInvalidArgument, {"median_filter_width", "4", "odd"});
}

TEST(WhisperWordTimestamps, AlignmentFollowsTheCheapCells) {
  // Three tokens over six frames; cheap cells (0) trace token 0 at frames 0-1,
  // token 1 at 2-3, token 2 at 4-5.
  const torch::Tensor cost = torch::tensor({0.0, 0.0, 9.0, 9.0, 9.0, 9.0,  //
                                            9.0, 9.0, 0.0, 0.0, 9.0, 9.0,  //
                                            9.0, 9.0, 9.0, 9.0, 0.0, 0.0})
                                 .view({3, 6});
  EXPECT_EQ(AlignTokenStarts(cost), (std::vector<std::int64_t>{0, 2, 4}));
  // One token: it starts at the first frame whatever the costs.
  EXPECT_EQ(AlignTokenStarts(torch::tensor({5.0, -3.0, 1.0}).view({1, 3})), (std::vector<std::int64_t>{0}));
}

TEST(WhisperWordTimestamps, TokenTimesMarkPromptZeroAndRepeatTheLast) {
  // Prompt of 2, then 3 tokens: 2 attention rows (the last token has none).
  // The first row attends to frames 0-3, the second to frames 4-9.
  const torch::Tensor first = torch::tensor({0.9f, 0.9f, 0.9f, 0.6f, 0.4f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f});
  const torch::Tensor attention = torch::stack({first, 1.0f - first}).unsqueeze(0);
  const std::vector<double> times = TokenTimestamps(attention, 2, 5, 1);
  ASSERT_EQ(times.size(), 5u);
  EXPECT_EQ(times[0], 0.0);
  EXPECT_EQ(times[1], 0.0);
  EXPECT_EQ(times[2], 0.0);  // the path always starts at frame 0
  EXPECT_NEAR(times[3], 4 * kSecondsPerEncoderFrame, 1e-6);
  EXPECT_EQ(times[4], times[3]);
  // Nothing generated after the first token: all zeros.
  EXPECT_EQ(TokenTimestamps(torch::Tensor(), 4, 5, 7), std::vector<double>(5, 0.0));
}

class WhisperWordParity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TestdataDir("whisper_tiny");
    transcriber_ = WhisperTranscriber::Load(dir_);
    reference_ = ReadJsonFile(dir_ + "/reference_word_timestamps.json");
    tensors_ = SafetensorsFile::Open(dir_ + "/reference.safetensors");
  }

  torch::Tensor Encoded(const nlohmann::json& input) const {
    const torch::Tensor audio = tensors_->Load(input["audio"].get<std::string>()).contiguous();
    const torch::Tensor features = transcriber_->features().Compute(audio.data_ptr<float>(), audio.numel()).unsqueeze(0);
    return transcriber_->model().Encode(features);
  }

  static void ExpectWordsMatch(const std::vector<WhisperWordTiming>& words, const nlohmann::json& expected,
                               const std::string& what) {
    ASSERT_EQ(words.size(), expected.size()) << what;
    for (std::size_t w = 0; w < words.size(); ++w) {
      const nlohmann::json& e = expected[w];
      EXPECT_EQ(words[w].text, e["text"].get<std::string>()) << what << " word " << w;
      EXPECT_EQ(words[w].token_indices, e["tokens"].get<std::vector<std::size_t>>()) << what << " word " << w;
      if (e.contains("start")) {
        EXPECT_NEAR(words[w].start, e["start"].get<double>(), kFrame) << what << " word " << w;
        EXPECT_NEAR(words[w].end, e["end"].get<double>(), kFrame) << what << " word " << w;
      }
    }
  }

  std::string dir_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
  nlohmann::json reference_;
  std::shared_ptr<const SafetensorsFile> tensors_;
};

TEST_F(WhisperWordParity, ReadsTheAlignmentHeads) {
  const WhisperConfig& c = transcriber_->model().config();
  std::vector<std::pair<std::int64_t, std::int64_t>> expected;
  for (const auto& pair : reference_["alignment_heads"]) expected.emplace_back(pair[0].get<std::int64_t>(), pair[1].get<std::int64_t>());
  EXPECT_EQ(c.alignment_heads, expected);
  EXPECT_EQ(c.median_filter_width, reference_["median_filter_width"].get<std::int64_t>());
  EXPECT_TRUE(transcriber_->has_word_timestamps());
}

// Every run's token times (greedy, text-only English and Chinese, with
// timestamp tokens, 3 beams) from the reference's own sequence.
TEST_F(WhisperWordParity, TokenAndWordTimesMatchTheReference) {
  const std::int64_t eot = transcriber_->special().end_of_text;
  std::size_t tokens = 0, exact = 0;
  double worst = 0.0;
  for (const auto& input : reference_["inputs"]) {
    const torch::Tensor encoded = Encoded(input);
    for (const auto& run : input["runs"]) {
      const std::string what = input["audio"].get<std::string>() + " " + run["params"].dump();
      const std::vector<std::int64_t> sequence = Ids(run["sequence"]);
      const std::string language = run["params"]["language"].get<std::string>();
      const WhisperWordTimes times =
          AlignWords(transcriber_->model(), transcriber_->tokenizer(), encoded, sequence,
                     run["prompt_length"].get<std::int64_t>(), input["num_frames"].get<std::int64_t>(), language, eot);
      const auto expected = run["token_timestamps"].get<std::vector<double>>();
      ASSERT_EQ(times.token_timestamps.size(), expected.size()) << what;
      for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(times.token_timestamps[i], expected[i], kFrame) << what << " position " << i;
        worst = std::max(worst, std::abs(times.token_timestamps[i] - expected[i]));
        exact += std::abs(times.token_timestamps[i] - expected[i]) < 1e-6;
        ++tokens;
      }
      ExpectWordsMatch(times.words, run["words"], what);
    }
  }
  std::cout << "token times: " << exact << " of " << tokens << " equal to the reference, worst difference " << worst
            << " s\n";
  EXPECT_GT(tokens, 200u);
}

TEST_F(WhisperWordParity, GroupsWordsAsTheReference) {
  for (const auto& c : reference_["grouping"]) {
    const std::vector<std::int64_t> ids = Ids(c["tokens"]);
    EXPECT_EQ(transcriber_->tokenizer().Encode(c["text"].get<std::string>()), ids);
    std::vector<std::pair<double, double>> spans;
    for (std::size_t i = 0; i < ids.size(); ++i) spans.emplace_back(0.1 * static_cast<double>(i), 0.1 * static_cast<double>(i + 1));
    const std::vector<WhisperWordTiming> words =
        GroupWords(transcriber_->tokenizer(), ids, spans, c["language"].get<std::string>());
    ExpectWordsMatch(words, c["words"], c["text"].get<std::string>());
    // A word runs from its first token's start to its last token's end.
    for (const WhisperWordTiming& w : words) {
      EXPECT_NEAR(w.start, 0.1 * static_cast<double>(w.token_indices.front()), 1e-9);
      EXPECT_NEAR(w.end, 0.1 * static_cast<double>(w.token_indices.back() + 1), 1e-9);
    }
  }
}

// Through the transcriber: the plain greedy run, which our decoder generates too.
TEST_F(WhisperWordParity, TranscribeGivesTheReferenceTimes) {
  for (const auto& input : reference_["inputs"]) {
    const nlohmann::json& run = input["runs"][0];
    ASSERT_EQ(run["params"].dump(), R"({"language":"en"})");
    const torch::Tensor audio = tensors_->Load(input["audio"].get<std::string>()).contiguous();
    WhisperOptions o;
    o.language = "en";
    o.max_new_tokens = static_cast<std::int64_t>(run["sequence"].size()) - run["prompt_length"].get<std::int64_t>();
    o.word_timestamps = true;
    const WhisperResult r = transcriber_->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
    ASSERT_EQ(r.sequence, Ids(run["sequence"]));
    const auto expected = run["token_timestamps"].get<std::vector<double>>();
    ASSERT_EQ(r.token_timestamps.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(r.token_timestamps[i], expected[i], kFrame) << i;
    ExpectWordsMatch(r.words, run["words"], input["audio"].get<std::string>());
    // Without word timestamps: the same decode, no times.
    o.word_timestamps = false;
    const WhisperResult plain = transcriber_->Transcribe(audio.data_ptr<float>(), audio.numel(), o);
    EXPECT_EQ(plain.sequence, r.sequence);
    EXPECT_TRUE(plain.token_timestamps.empty());
    EXPECT_TRUE(plain.words.empty());
  }
}

// The cross keys and values a decode projected (greedy and 3 beams) give the
// same attention as projecting them again.
TEST_F(WhisperWordParity, DecodeCrossKeysAndValuesGiveTheSameAttention) {
  const nlohmann::json& input = reference_["inputs"][0];
  const torch::Tensor encoded = Encoded(input);
  const WhisperConfig& c = transcriber_->model().config();
  for (std::int64_t beams : {1, 3}) {
    GenerationOptions g;
    g.prompt = Ids(input["runs"][0]["sequence"]);
    g.prompt.resize(4);
    g.start_token_id = transcriber_->special().start_of_transcript;
    g.eos_token_id = transcriber_->special().end_of_text;
    g.pad_token_id = c.pad_token_id;
    g.max_new_tokens = 8;
    g.num_beams = beams;
    torch::Tensor logits;
    std::vector<CrossKv> cross;
    const std::vector<std::int64_t> sequence = transcriber_->model().Generate(encoded, g, 0, logits, nullptr, &cross).front();
    ASSERT_EQ(cross.size(), static_cast<std::size_t>(c.decoder_layers));
    const torch::Tensor own = transcriber_->model().CrossAttentionWeights(encoded, sequence, c.alignment_heads);
    const torch::Tensor shared = transcriber_->model().CrossAttentionWeights(encoded, sequence, c.alignment_heads, &cross);
    EXPECT_EQ(own.sizes(), shared.sizes());
    EXPECT_LT(testing::RelativeError(shared, own), 1e-6) << beams << " beams";
  }
}

// A copy of the checkpoint whose generation_config.json is `edit`ed.
std::string CopyWithGenerationConfig(const ScratchDir& scratch, const std::function<void(nlohmann::json&)>& edit) {
  const std::string from = TestdataDir("whisper_tiny");
  testing::CopyDir(from, scratch.path());
  nlohmann::json generation = ReadJsonFile(from + "/generation_config.json");
  edit(generation);
  std::ofstream(scratch.File("generation_config.json")) << generation.dump(2);
  return scratch.path();
}

TEST(WhisperWordTimestampsErrors, NoAlignmentHeadsNamesGenerationConfig) {
  ScratchDir scratch;
  const std::string dir = CopyWithGenerationConfig(scratch, [](nlohmann::json& g) { g.erase("alignment_heads"); });
  const auto transcriber = WhisperTranscriber::Load(dir);
  EXPECT_FALSE(transcriber->has_word_timestamps());
  std::vector<float> audio(16000, 0.0f);
  for (std::size_t i = 0; i < audio.size(); ++i) audio[i] = 0.3f * std::sin(0.05f * static_cast<float>(i));
  WhisperOptions o;
  o.language = "en";
  o.max_new_tokens = 4;
  o.word_timestamps = true;
  ExpectError([&] { transcriber->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o); },
              ErrorCode::kInvalidArgument, {dir + "/generation_config.json", "alignment_heads"});
  // The checkpoint still transcribes without them.
  o.word_timestamps = false;
  EXPECT_FALSE(transcriber->Transcribe(audio.data(), static_cast<std::int64_t>(audio.size()), o).sequence.empty());
}

TEST(WhisperWordTimestampsErrors, BadAlignmentHeadsRefusedAtLoad) {
  for (const char* heads : {"[[2, 0]]", "[[0, 4]]", "[[0]]", "\"all\"", "[[-1, 0]]"}) {
    ScratchDir scratch;
    const std::string dir =
        CopyWithGenerationConfig(scratch, [&](nlohmann::json& g) { g["alignment_heads"] = nlohmann::json::parse(heads); });
    ExpectError([&] { WhisperTranscriber::Load(dir); }, ErrorCode::kInvalidArgument,
                {dir + "/generation_config.json", "alignment_heads"});
  }
}

TEST(WhisperWordTimestampsErrors, EvenMedianFilterWidthRefusedAtLoad) {
  ScratchDir scratch;
  const std::string from = TestdataDir("whisper_tiny");
  testing::CopyDir(from, scratch.path());
  nlohmann::json config = ReadJsonFile(from + "/config.json");
  config["median_filter_width"] = 6;
  std::ofstream(scratch.File("config.json")) << config.dump(2);
  ExpectError([&] { WhisperTranscriber::Load(scratch.path()); }, ErrorCode::kInvalidArgument,
              {scratch.File("config.json"), "median_filter_width", "6"});
}

}  // namespace
}  // namespace lingcast::neural
