#include "neural/marian/marian_translator.h"


#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::ReadJsonFile;
using testing::TestdataDir;

MarianTranslatorOptions TinyOptions(const std::string& dir) {
  MarianTranslatorOptions options;
  options.model_dir = dir;
  options.max_new_tokens = 16;  // as the reference was generated
  return options;
}

TEST(MarianTranslator, TranslatesAsTheReferenceDoes) {
  auto translator = MarianTranslator::Create(TinyOptions(TestdataDir("marian_tiny")));
  ASSERT_OK(translator);
  const auto reference = ReadJsonFile(TestdataDir("marian_tiny") + "/reference.json");
  const auto sources = reference["sentences"].get<std::vector<std::string>>();
  const auto expected = reference["generate"]["greedy"]["text"].get<std::vector<std::string>>();
  auto batch = (*translator)->TranslateBatch(sources);
  ASSERT_OK(batch);
  EXPECT_EQ(*batch, expected);

  TranslationRequest request;
  request.source = sources[0];
  std::string partial;
  auto one = (*translator)->Translate(request, {}, [&](std::string_view text) { partial = std::string(text); });
  ASSERT_OK(one);
  EXPECT_EQ(one->engine, "marian");
  EXPECT_EQ(one->text, expected[0]);
  EXPECT_EQ(partial, one->text);
}

TEST(MarianTranslator, OtherDirectionIsNotFoundSoTheChainMovesOn) {
  auto translator = MarianTranslator::Create(TinyOptions(TestdataDir("marian_tiny")));
  ASSERT_OK(translator);
  TranslationRequest request;
  request.source = "Hello";
  request.from = Language::kEn;
  request.to = Language::kZh;
  EXPECT_EQ((*translator)->Translate(request).status().code(), absl::StatusCode::kNotFound);
}

TEST(MarianTranslator, DirectionMustAgreeWithTheCheckpoint) {
  MarianTranslatorOptions options = TinyOptions(TestdataDir("marian_tiny"));
  options.from = Language::kEn;
  options.to = Language::kZh;
  auto translator = MarianTranslator::Create(options);
  ASSERT_EQ(translator.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(translator.status().message().find("tokenizer_config.json"), std::string::npos) << translator.status();
  EXPECT_NE(translator.status().message().find("zh -> en"), std::string::npos) << translator.status();
}

TEST(MarianTranslator, MissingTokenizerIsNamed) {
  ScratchDir dir;
  testing::CopyDir(TestdataDir("marian_tiny"), dir.path());
  testing::RemoveFile(dir.File("source.spm"));
  auto translator = MarianTranslator::Create(TinyOptions(dir.path()));
  ASSERT_EQ(translator.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(translator.status().message().find("source.spm"), std::string::npos) << translator.status();
}

TEST(MarianTranslator, TruncatedWeightsAreBadInputNamingTheFile) {
  ScratchDir dir;
  testing::CopyDir(TestdataDir("marian_tiny"), dir.path());
  testing::TruncateFile(dir.File("model.safetensors"), testing::FileSize(dir.File("model.safetensors")) / 2);
  auto translator = MarianTranslator::Create(TinyOptions(dir.path()));
  ASSERT_EQ(translator.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(translator.status().message().find("model.safetensors"), std::string::npos) << translator.status();
  EXPECT_NE(translator.status().message().find("truncated"), std::string::npos) << translator.status();
}

TEST(MarianTranslator, StopRequestedBeforehandCancels) {
  auto translator = MarianTranslator::Create(TinyOptions(TestdataDir("marian_tiny")));
  ASSERT_OK(translator);
  std::stop_source stop;
  stop.request_stop();
  TranslationRequest request;
  request.source = "你好";
  EXPECT_EQ((*translator)->Translate(request, stop.get_token()).status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace lingcast::neural
