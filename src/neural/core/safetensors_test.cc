#include "neural/core/safetensors.h"

#include <fstream>

#include "gtest/gtest.h"
#include "neural/core/neural_error.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ScratchDir;
using testing::ExpectError;
using testing::TestdataDir;
using testing::WriteRawSafetensors;
using testing::WriteSafetensors;

TEST(SafetensorsFile, ReadsWhatThePythonPackageWrote) {
  auto file = SafetensorsFile::Open(TestdataDir("marian_tiny") + "/reference.safetensors");
  const torch::Tensor f32 = file->Load("probe_f32");
  ASSERT_EQ(f32.scalar_type(), torch::kFloat);
  ASSERT_EQ(f32.sizes().vec(), (std::vector<std::int64_t>{2, 4}));
  EXPECT_FLOAT_EQ(f32[0][2].item<float>(), -2.5f);
  EXPECT_FLOAT_EQ(f32[1][0].item<float>(), 0.1f);
  // F16 and BF16 hold the F32 values rounded to their precision.
  EXPECT_TRUE(file->Load("probe_f16").to(torch::kFloat).equal(f32.to(torch::kHalf).to(torch::kFloat)));
  EXPECT_TRUE(file->Load("probe_bf16").to(torch::kFloat).equal(f32.to(torch::kBFloat16).to(torch::kFloat)));
  const torch::Tensor i64 = file->Load("probe_i64");
  ASSERT_EQ(i64.scalar_type(), torch::kLong);
  EXPECT_EQ(i64[2].item<std::int64_t>(), std::int64_t{1} << 40);
  EXPECT_EQ(i64[1].item<std::int64_t>(), -2);
  // transformers' save_pretrained writes the metadata the format allows.
  EXPECT_EQ(SafetensorsFile::Open(TestdataDir("marian_tiny") + "/model.safetensors")->metadata().at("format"), "pt");
}

TEST(SafetensorsFile, TensorsAreViewsOnTheMappingThatOutliveTheFileObject) {
  ScratchDir dir;
  const torch::Tensor values = torch::arange(12, torch::kFloat).view({3, 4});
  WriteSafetensors(dir.File("a.safetensors"), {{"w", values}});
  torch::Tensor loaded;
  {
    auto file = SafetensorsFile::Open(dir.File("a.safetensors"));
    loaded = file->Load("w");
    EXPECT_EQ(loaded.data_ptr(), file->Load("w").data_ptr()) << "a second load should see the same bytes, not a copy";
  }
  EXPECT_TRUE(loaded.equal(values));
  // Writing to a view changes neither the file nor a later load.
  loaded.mul_(2);
  EXPECT_TRUE(SafetensorsFile::Open(dir.File("a.safetensors"))->Load("w").equal(values));
}

TEST(SafetensorsFile, MisalignedTensorIsCopiedWithTheRightValues) {
  ScratchDir dir;
  const float value = 1.5f;
  std::string data(1, '\x07');
  data.append(reinterpret_cast<const char*>(&value), 4);
  WriteRawSafetensors(dir.File("m.safetensors"),
                      R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"f":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})",
                      data);
  auto file = SafetensorsFile::Open(dir.File("m.safetensors"));
  EXPECT_EQ(file->Load("b")[0].item<std::uint8_t>(), 7);
  EXPECT_FLOAT_EQ(file->Load("f")[0].item<float>(), 1.5f);
}

TEST(SafetensorsFile, TruncatedFileNamesFileAndTensor) {
  ScratchDir dir;
  WriteSafetensors(dir.File("t.safetensors"), {{"a", torch::ones({4})}, {"b", torch::ones({8})}});
  const auto size = testing::FileSize(dir.File("t.safetensors"));
  testing::TruncateFile(dir.File("t.safetensors"), size - 4);
  ExpectError([&] { SafetensorsFile::Open(dir.File("t.safetensors")); }, ErrorCode::kDataLoss,
              {"t.safetensors", "'b'", "truncated"});
}

TEST(SafetensorsFile, ShortOrNonSafetensorsFilesAreDataLoss) {
  ScratchDir dir;
  std::ofstream(dir.File("short")) << "abc";
  ExpectError([&] { SafetensorsFile::Open(dir.File("short")); }, ErrorCode::kDataLoss, {"short", "too short"});
  std::ofstream(dir.File("text.safetensors")) << "this is a text file, not tensors at all";
  ExpectError([&] { SafetensorsFile::Open(dir.File("text.safetensors")); }, ErrorCode::kDataLoss,
              {"text.safetensors", "header length"});
  WriteRawSafetensors(dir.File("json.safetensors"), "{\"a\": [1, 2", "");
  ExpectError([&] { SafetensorsFile::Open(dir.File("json.safetensors")); }, ErrorCode::kDataLoss,
              {"json.safetensors", "not valid JSON"});
  ExpectError([&] { SafetensorsFile::Open(dir.File("missing.safetensors")); }, ErrorCode::kNotFound,
              {"missing.safetensors"});
}

TEST(SafetensorsFile, HeaderThatContradictsItselfIsRejected) {
  ScratchDir dir;
  WriteRawSafetensors(dir.File("size.safetensors"), R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
                      std::string(20, '\0'));
  ExpectError([&] { SafetensorsFile::Open(dir.File("size.safetensors")); }, ErrorCode::kDataLoss,
              {"size.safetensors", "'w'", "[2, 3]", "needs 24 bytes", "span 20"});
  WriteRawSafetensors(dir.File("overlap.safetensors"),
                      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                      std::string(12, '\0'));
  ExpectError([&] { SafetensorsFile::Open(dir.File("overlap.safetensors")); }, ErrorCode::kDataLoss,
              {"'a'", "'b'", "overlap"});
  WriteRawSafetensors(dir.File("shape.safetensors"), R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                      std::string(4, '\0'));
  ExpectError([&] { SafetensorsFile::Open(dir.File("shape.safetensors")); }, ErrorCode::kDataLoss, {"'w'", "shape"});
}

TEST(SafetensorsFile, UnsupportedDtypeFailsOnlyWhenThatTensorIsLoaded) {
  ScratchDir dir;
  WriteRawSafetensors(dir.File("f8.safetensors"),
                      R"({"ok":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"q":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[4,8]}})",
                      std::string(8, '\0'));
  auto file = SafetensorsFile::Open(dir.File("f8.safetensors"));
  EXPECT_EQ(file->Load("ok").numel(), 1);
  ExpectError([&] { file->Load("q"); }, ErrorCode::kUnimplemented, {"f8.safetensors", "'q'", "F8_E4M3", "BF16"});
  ExpectError([&] { file->Load("nope"); }, ErrorCode::kNotFound, {"f8.safetensors", "'nope'"});
}

TEST(Checkpoint, ShardedCheckpointHasEveryTensorOfTheIndex) {
  const std::string dir = TestdataDir("marian_tiny_sharded");
  auto checkpoint = Checkpoint::Open(dir);
  const auto index = testing::ReadJsonFile(dir + "/model.safetensors.index.json");
  ASSERT_EQ(checkpoint.Names().size(), index["weight_map"].size());
  for (const auto& [name, shard] : index["weight_map"].items()) {
    EXPECT_EQ(testing::BaseName(checkpoint.FileOf(name)), shard.get<std::string>());
    EXPECT_GT(checkpoint.Load(name).numel(), 0) << name;
  }
}

TEST(Checkpoint, IndexNamingAMissingShardIsNotFound) {
  ScratchDir dir;
  testing::CopyDir(TestdataDir("marian_tiny_sharded"), dir.path());
  const auto index = testing::ReadJsonFile(dir.File("model.safetensors.index.json"));
  const std::string shard = index["weight_map"]["final_logits_bias"].get<std::string>();
  testing::RemoveFile(dir.File(shard));
  ExpectError([&] { Checkpoint::Open(dir.path()); }, ErrorCode::kNotFound,
              {"model.safetensors.index.json", shard, "missing"});
}

TEST(Checkpoint, DirectoryWithoutWeightsIsNotACheckpoint) {
  ScratchDir dir;
  ExpectError([&] { Checkpoint::Open(dir.path()); }, ErrorCode::kNotFound, {dir.path(), "model.safetensors"});
  std::ofstream(dir.File("pytorch_model.bin")) << "pickle";
  ExpectError([&] { Checkpoint::Open(dir.path()); }, ErrorCode::kUnimplemented, {"pytorch_model.bin", "safetensors"});
  ExpectError([&] { Checkpoint::Open(dir.File("nowhere")); }, ErrorCode::kNotFound, {"nowhere"});
}

TEST(Checkpoint, LoadWeightChecksShapeAndKind) {
  ScratchDir dir;
  WriteSafetensors(dir.File("model.safetensors"), {{"w", torch::ones({2, 3})}, {"ids", torch::ones({3}, torch::kLong)},
                                                   {"h", torch::ones({3}, torch::kHalf)}});
  auto checkpoint = Checkpoint::Open(dir.path());
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  EXPECT_EQ(checkpoint.LoadWeight("w", {2, 3}, f32).sum().item<float>(), 6.0f);
  EXPECT_EQ(checkpoint.LoadWeight("h", {3}, f32).scalar_type(), torch::kFloat);
  ExpectError([&] { checkpoint.LoadWeight("w", {3, 2}, f32); }, ErrorCode::kInvalidArgument,
              {"model.safetensors", "'w'", "[2, 3]", "expected [3, 2]"});
  ExpectError([&] { checkpoint.LoadWeight("ids", {3}, f32); }, ErrorCode::kInvalidArgument, {"'ids'", "I64"});
  ExpectError([&] { checkpoint.LoadWeight("gone", {3}, f32); }, ErrorCode::kNotFound, {dir.path(), "'gone'"});
}

}  // namespace
}  // namespace lingcast::neural
