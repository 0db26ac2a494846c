#include "neural/marian/marian_tokenizer.h"

#include <fstream>

#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::ReadJsonFile;
using testing::TestdataDir;

// Ids and texts transformers' MarianTokenizer produced on the same files.
class MarianTokenizerParity : public ::testing::Test {
 protected:
  MarianTokenizer tokenizer_ = MarianTokenizer::Load(TestdataDir("marian_tiny"));
  nlohmann::json reference_ = ReadJsonFile(TestdataDir("marian_tiny") + "/reference.json");
};

TEST_F(MarianTokenizerParity, SourceTextGivesTheReferenceIds) {
  ASSERT_EQ(reference_["tokenizer"], "MarianTokenizer");
  for (const auto& c : reference_["tokenizer_cases"]) {
    EXPECT_EQ(tokenizer_.Encode(c["text"].get<std::string>()), c["ids"].get<std::vector<std::int64_t>>())
        << c["text"];
  }
}

TEST_F(MarianTokenizerParity, TargetTextGivesTheReferenceIds) {
  for (const auto& c : reference_["target_cases"]) {
    EXPECT_EQ(tokenizer_.EncodeTarget(c["text"].get<std::string>()), c["ids"].get<std::vector<std::int64_t>>())
        << c["text"];
  }
}

TEST_F(MarianTokenizerParity, GeneratedIdsDecodeToTheReferenceText) {
  for (const auto& [run, entry] : reference_["generate"].items()) {
    const auto sequences = testing::IdLists(entry["batch"]);
    for (std::size_t i = 0; i < sequences.size(); ++i) {
      EXPECT_EQ(tokenizer_.Decode(sequences[i]), entry["text"][i].get<std::string>()) << run << " " << i;
    }
  }
}

TEST_F(MarianTokenizerParity, SpecialIdsComeFromVocabJson) {
  EXPECT_EQ(tokenizer_.eos_id(), 0);
  EXPECT_EQ(tokenizer_.unk_id(), 1);
  EXPECT_EQ(tokenizer_.pad_id(), reference_["pad_token_id"].get<std::int64_t>());
  EXPECT_EQ(tokenizer_.Decode({tokenizer_.pad_id(), tokenizer_.eos_id()}), "");
}

TEST(MarianTokenizer, MissingFilesAreNamed) {
  testing::ScratchDir dir;
  ExpectError([&] { MarianTokenizer::Load(dir.path()); }, ErrorCode::kNotFound, {dir.path(), "source.spm"});
  testing::CopyFile(TestdataDir("marian_tiny") + "/source.spm", dir.File("source.spm"));
  testing::CopyFile(TestdataDir("marian_tiny") + "/target.spm", dir.File("target.spm"));
  ExpectError([&] { MarianTokenizer::Load(dir.path()); }, ErrorCode::kNotFound, {dir.path(), "vocab.json"});
  std::ofstream(dir.File("vocab.json")) << R"({"</s>": 0, "<unk>": 1})";
  ExpectError([&] { MarianTokenizer::Load(dir.path()); }, ErrorCode::kInvalidArgument, {"vocab.json", "<pad>"});
}

TEST(MarianTokenizer, CorruptSentencePieceModelIsNamed) {
  testing::ScratchDir dir;
  testing::CopyDir(TestdataDir("marian_tiny"), dir.path());
  std::ofstream(dir.File("target.spm"), std::ios::trunc) << "not a model";
  ExpectError([&] { MarianTokenizer::Load(dir.path()); }, ErrorCode::kInvalidArgument,
              {"target.spm", "not a SentencePiece model"});
}

}  // namespace
}  // namespace lingcast::neural
