// VitsTokenizer against transformers' VitsTokenizer on the fixtures' cases
// (tools/neural/make_vits_fixtures.py): the same ids for every text, and each
// character token pointing at the bytes it came from.
#include "neural/vits/vits_tokenizer.h"

#include <fstream>

#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::CopyDir;
using testing::ExpectError;
using testing::ReadJsonFile;
using testing::TestdataDir;

TEST(VitsTokenizer, IdsMatchTheReference) {
  for (const std::string fixture : {"vits_tiny", "vits_tiny_deterministic"}) {
    const std::string dir = TestdataDir(fixture);
    const VitsTokenizer tokenizer = VitsTokenizer::Load(dir);
    // Kept in a variable: a range-for over a member of a temporary reads freed memory.
    const auto reference = ReadJsonFile(dir + "/reference.json");
    for (const auto& c : reference["tokenizer_cases"]) {
      const std::string text = c["text"].get<std::string>();
      EXPECT_EQ(tokenizer.Encode(text).ids, c["ids"].get<std::vector<std::int64_t>>()) << "text: \"" << text << "\"";
    }
    EXPECT_EQ(tokenizer.language(), "eng");
  }
}

TEST(VitsTokenizer, CharacterTokensPointAtTheirSourceBytes) {
  const VitsTokenizer tokenizer = VitsTokenizer::Load(TestdataDir("vits_tiny"));
  const std::string text = "Café, OK!";  // é is not in the vocabulary: dropped
  const VitsEncoding e = tokenizer.Encode(text);
  std::string spoken;
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    if (e.source_offset[i] < 0) {
      EXPECT_EQ(e.ids[i], 0) << "only blanks have no source";
      continue;
    }
    spoken += text.substr(static_cast<std::size_t>(e.source_offset[i]), static_cast<std::size_t>(e.source_length[i])) + "|";
  }
  EXPECT_EQ(spoken, "C|a|f| |O|K|");
}

class VitsTokenizerFiles : public ::testing::Test {
 protected:
  void SetUp() override { CopyDir(TestdataDir("vits_tiny"), scratch_.path()); }
  std::string File(const std::string& name) const { return scratch_.path() + "/" + name; }
  ScratchDir scratch_;
};

TEST_F(VitsTokenizerFiles, MissingVocabularyIsNamed) {
  testing::RemoveFile(File("vocab.json"));
  ExpectError([&] { VitsTokenizer::Load(scratch_.path()); }, ErrorCode::kNotFound, {File("vocab.json"), "missing"});
}

TEST_F(VitsTokenizerFiles, MissingSettingsAreNamed) {
  testing::RemoveFile(File("tokenizer_config.json"));
  ExpectError([&] { VitsTokenizer::Load(scratch_.path()); }, ErrorCode::kNotFound, {File("tokenizer_config.json")});
}

TEST_F(VitsTokenizerFiles, CorruptVocabularyIsNamed) {
  std::ofstream(File("vocab.json")) << "{\"a\": ";
  ExpectError([&] { VitsTokenizer::Load(scratch_.path()); }, ErrorCode::kInvalidArgument, {File("vocab.json"), "not valid JSON"});
  std::ofstream(File("vocab.json")) << "{\"a\": \"one\"}";
  ExpectError([&] { VitsTokenizer::Load(scratch_.path()); }, ErrorCode::kInvalidArgument, {File("vocab.json"), "\"a\""});
}

TEST_F(VitsTokenizerFiles, PhonemizingTokenizerIsRefused) {
  nlohmann::json config = ReadJsonFile(File("tokenizer_config.json"));
  config["phonemize"] = true;
  std::ofstream(File("tokenizer_config.json")) << config.dump();
  ExpectError([&] { VitsTokenizer::Load(scratch_.path()); }, ErrorCode::kUnimplemented, {"phonemize is true"});
}

TEST_F(VitsTokenizerFiles, UromanCheckpointRefusesNonLatinText) {
  nlohmann::json config = ReadJsonFile(File("tokenizer_config.json"));
  config["is_uroman"] = true;
  std::ofstream(File("tokenizer_config.json")) << config.dump();
  const VitsTokenizer tokenizer = VitsTokenizer::Load(scratch_.path());
  EXPECT_FALSE(tokenizer.Encode("latin text").ids.empty());
  ExpectError([&] { tokenizer.Encode("한국어"); }, ErrorCode::kUnimplemented, {"uroman"});
}

TEST(VitsTokenizer, InvalidUtf8IsRefused) {
  const VitsTokenizer tokenizer = VitsTokenizer::Load(TestdataDir("vits_tiny"));
  ExpectError([&] { tokenizer.Encode("ab\xC3"); }, ErrorCode::kInvalidArgument, {"not valid UTF-8"});
  ExpectError([&] { tokenizer.Encode("\xFF"); }, ErrorCode::kInvalidArgument, {"not valid UTF-8"});
}

}  // namespace
}  // namespace lingcast::neural
