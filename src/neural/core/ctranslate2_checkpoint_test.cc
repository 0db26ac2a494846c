// The CTranslate2 reader on files made here (every dtype, every binary
// version, aliases, split parts) and on the committed tiny Whisper checkpoint
// (tools/neural/make_ct2_whisper_fixtures.py) cut and damaged at many places:
// each bad file is refused with one line naming the file and the variable,
// and nothing is read past an end.
#include "neural/core/ctranslate2_checkpoint.h"

#include <torch/torch.h>

#include <set>

#include "gtest/gtest.h"
#include "neural/core/ctranslate2_test_writer.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::Ct2Bytes;
using testing::Ct2TestFile;
using testing::Ct2TestVariable;
using testing::Ct2VariableOf;
using testing::ExpectError;
using testing::ReadBytes;
using testing::ScratchDir;
using testing::TestdataDir;
using testing::WriteBytes;

const torch::TensorOptions kFloat = torch::TensorOptions().dtype(torch::kFloat);

std::string FixtureModel() { return TestdataDir("whisper_tiny_ct2_float16") + "/model.bin"; }

// A small checkpoint with one variable of each kind the reader knows.
struct SmallFile {
  torch::Tensor f32 = torch::arange(6, torch::kFloat).view({2, 3}) / 4 - 0.5;
  torch::Tensor f16 = torch::tensor({0.5, -1.25, 3.0}).to(torch::kHalf);
  torch::Tensor bf16 = torch::tensor({1.5, -2.0}).to(torch::kBFloat16);
  torch::Tensor q8 = torch::tensor({127, -64, 0, 13, -127, 5}, torch::kChar).view({2, 3});
  torch::Tensor q8_scale = torch::tensor({127.0f / 2.5f, 127.0f / 0.75f});
  torch::Tensor q16 = torch::tensor({1000, -500, 250}, torch::kShort);
  torch::Tensor q16_scale = torch::tensor(2000.0f);
  torch::Tensor old_q16 = torch::tensor({1000, -3000}, torch::kShort);
  torch::Tensor heads = torch::tensor(6, torch::kShort);
  torch::Tensor flag = torch::tensor(1, torch::kChar);
  torch::Tensor ids = torch::tensor({7, 8}, torch::kInt);

  Ct2TestFile File(std::uint32_t version = 6) const {
    Ct2TestFile file;
    file.binary_version = version;
    file.variables = {Ct2VariableOf("a/f32", f32), Ct2VariableOf("a/heads", heads), Ct2VariableOf("a/flag", flag),
                      Ct2VariableOf("a/ids", ids)};
    if (version >= 4) {
      for (const auto& v : {Ct2VariableOf("b/f16", f16), Ct2VariableOf("b/bf16", bf16), Ct2VariableOf("c/q8/weight", q8),
                            Ct2VariableOf("c/q8/weight_scale", q8_scale), Ct2VariableOf("c/q16/weight", q16),
                            Ct2VariableOf("c/q16/weight_scale", q16_scale), Ct2VariableOf("c/old16/weight", old_q16)}) {
        file.variables.push_back(v);
      }
      file.aliases = {{"d/tied/weight", "c/q8/weight"}, {"d/chained/weight", "d/tied/weight"}, {"e/same", "a/f32"}};
    } else if (version == 3) {
      file.aliases = {{"e/same", "a/f32"}};
    }
    return file;
  }
};

std::shared_ptr<const Ct2Checkpoint> OpenBytes(const ScratchDir& dir, const std::string& bytes,
                                               const std::string& name = "model.bin") {
  WriteBytes(dir.File(name), bytes);
  return Ct2Checkpoint::Open(dir.path());
}

void ExpectEqual(const torch::Tensor& actual, const torch::Tensor& expected, const std::string& what) {
  EXPECT_EQ(actual.scalar_type(), expected.scalar_type()) << what;
  EXPECT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(torch::equal(actual, expected)) << what;
}

TEST(Ct2Checkpoint, EveryDtypeReadsBackAsWritten) {
  const ScratchDir dir;
  const SmallFile small;
  const auto checkpoint = OpenBytes(dir, Ct2Bytes(small.File()));
  EXPECT_EQ(checkpoint->binary_version(), 6u);
  EXPECT_EQ(checkpoint->spec_name(), "WhisperSpec");
  EXPECT_EQ(checkpoint->spec_revision(), 3u);
  EXPECT_EQ(checkpoint->name(), dir.File("model.bin"));
  ExpectEqual(checkpoint->Load("a/f32"), small.f32, "float32");
  ExpectEqual(checkpoint->Load("b/f16"), small.f16, "float16");
  ExpectEqual(checkpoint->Load("b/bf16"), small.bf16, "bfloat16");
  ExpectEqual(checkpoint->Load("c/q8/weight"), small.q8, "int8");
  ExpectEqual(checkpoint->Load("c/q16/weight"), small.q16, "int16");
  ExpectEqual(checkpoint->Load("a/ids"), small.ids, "int32");
  EXPECT_EQ(checkpoint->LoadInt("a/heads"), 6);
  EXPECT_EQ(checkpoint->LoadInt("a/flag"), 1);
  EXPECT_EQ(checkpoint->Info("b/f16").dtype, Ct2DType::kFloat16);
  EXPECT_EQ(checkpoint->Names().size(), 11u);
}

TEST(Ct2Checkpoint, WeightsComeInTheAskedDtypeAndQuantizedOnesDequantized) {
  const ScratchDir dir;
  const SmallFile small;
  const auto checkpoint = OpenBytes(dir, Ct2Bytes(small.File()));
  ExpectEqual(checkpoint->LoadWeight("b/f16", {3}, kFloat), small.f16.to(torch::kFloat), "float16 -> float32");
  ExpectEqual(checkpoint->LoadWeight("a/f32", {2, 3}, torch::TensorOptions().dtype(torch::kBFloat16)),
              small.f32.to(torch::kBFloat16), "float32 -> bfloat16");
  // int8: q / scale per row, as CTranslate2 dequantizes (q times the reciprocal).
  const torch::Tensor int8_weight = small.q8.to(torch::kFloat) * small.q8_scale.reciprocal().unsqueeze(1);
  ExpectEqual(checkpoint->LoadWeight("c/q8/weight", {2, 3}, kFloat), int8_weight, "int8");
  EXPECT_NEAR(checkpoint->LoadWeight("c/q8/weight", {2, 3}, kFloat)[0][0].item<float>(), 2.5f, 1e-6);
  // int16: one scale for the whole weight; 1000 when an old file saved none.
  ExpectEqual(checkpoint->LoadWeight("c/q16/weight", {3}, kFloat), small.q16.to(torch::kFloat) * (1.0f / 2000.0f), "int16");
  ExpectEqual(checkpoint->LoadWeight("c/old16/weight", {2}, kFloat), small.old_q16.to(torch::kFloat) * (1.0f / 1000.0f),
              "int16 without a scale");
  // Rows of a weight read alone, with their own scales.
  ExpectEqual(checkpoint->LoadWeightRows("c/q8/weight", {2, 3}, 1, 1, kFloat), int8_weight.narrow(0, 1, 1), "row 1 of int8");
  ExpectEqual(checkpoint->LoadWeightRows("a/f32", {2, 3}, 1, 1, kFloat), small.f32.narrow(0, 1, 1), "row 1 of float32");
}

TEST(Ct2Checkpoint, AliasesResolveToTheirVariableAndItsScale) {
  const ScratchDir dir;
  const SmallFile small;
  const auto checkpoint = OpenBytes(dir, Ct2Bytes(small.File()));
  EXPECT_TRUE(checkpoint->Contains("d/tied/weight"));
  EXPECT_EQ(checkpoint->Resolve("d/tied/weight"), "c/q8/weight");
  EXPECT_EQ(checkpoint->Resolve("d/chained/weight"), "c/q8/weight");  // an alias of an alias
  EXPECT_EQ(checkpoint->Resolve("a/f32"), "a/f32");
  // The alias has no scale of its own: CTranslate2 aliases it to the target's.
  ExpectEqual(checkpoint->LoadWeight("d/chained/weight", {2, 3}, kFloat), checkpoint->LoadWeight("c/q8/weight", {2, 3}, kFloat),
              "int8 through two aliases");
  ExpectEqual(checkpoint->Load("e/same"), small.f32, "float32 alias");
  const std::vector<std::string> names = checkpoint->Names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "e/same"), 0) << "Names() lists variables, not aliases";
  ExpectError([&] { checkpoint->Resolve("no/such"); }, ErrorCode::kNotFound, {dir.File("model.bin"), "'no/such'"});
}

TEST(Ct2Checkpoint, EveryBinaryVersionReadsTheSameVariables) {
  const SmallFile small;
  for (std::uint32_t version = 1; version <= 6; ++version) {
    SCOPED_TRACE("binary version " + std::to_string(version));
    const ScratchDir dir;
    const auto checkpoint = OpenBytes(dir, Ct2Bytes(small.File(version)));
    EXPECT_EQ(checkpoint->binary_version(), version);
    EXPECT_EQ(checkpoint->spec_name(), version >= 2 ? "WhisperSpec" : "");
    EXPECT_EQ(checkpoint->spec_revision(), version >= 2 ? 3u : 1u);
    ExpectEqual(checkpoint->Load("a/f32"), small.f32, "float32");
    // Before version 4 a 4-byte item is float32 (CTranslate2's old rule): the
    // int32 variable comes back as its bits.
    const torch::Tensor ids = checkpoint->Load("a/ids");
    ExpectEqual(version >= 4 ? ids : ids.view(torch::kInt), small.ids, "int32");
    EXPECT_EQ(checkpoint->LoadInt("a/heads"), 6);  // 2-byte items: int16 in every version
    EXPECT_EQ(checkpoint->Contains("e/same"), version >= 3);
  }
}

TEST(Ct2Checkpoint, ANewerOrForeignVersionIsRefused) {
  const SmallFile small;
  {
    const ScratchDir dir;
    Ct2TestFile file = small.File();
    file.binary_version = 7;
    ExpectError([&] { OpenBytes(dir, Ct2Bytes(file)); }, ErrorCode::kUnimplemented,
                {dir.File("model.bin"), "binary version 7", "1 .. 6"});
  }
  // A safetensors file, a zip (a wheel), version 0: not CTranslate2 files at all.
  for (const std::string& start : {std::string("\x40\x02\x00\x00\x00\x00\x00\x00{\"a\":1}", 15), std::string("PK\x03\x04 rest"),
                                   std::string(8, '\0')}) {
    const ScratchDir dir;
    ExpectError([&] { OpenBytes(dir, start); }, ErrorCode::kInvalidArgument, {dir.File("model.bin"), "not a CTranslate2 model.bin"});
  }
  const ScratchDir dir;
  ExpectError([&] { OpenBytes(dir, "ab"); }, ErrorCode::kDataLoss, {dir.File("model.bin"), "2 bytes", "too short"});
  const ScratchDir empty;
  ExpectError([&] { Ct2Checkpoint::Open(empty.path()); }, ErrorCode::kNotFound, {empty.path(), "no model.bin"});
}

TEST(Ct2Checkpoint, AnUnknownDtypeCodeNamesTheVariable) {
  const ScratchDir dir;
  Ct2TestFile file = SmallFile().File();
  file.variables[1].dtype_code = 9;
  ExpectError([&] { OpenBytes(dir, Ct2Bytes(file)); }, ErrorCode::kUnimplemented,
              {dir.File("model.bin"), "variable 'a/heads'", "dtype code 9"});
}

TEST(Ct2Checkpoint, AByteCountThatDisagreesWithTheShapeIsRefused) {
  for (std::int64_t count : {0, 23, 25, 1 << 30}) {
    const ScratchDir dir;
    Ct2TestFile file = SmallFile().File();
    file.variables[0].byte_count = count;  // a/f32 is float32 [2, 3]: 24 bytes
    ExpectError([&] { OpenBytes(dir, Ct2Bytes(file)); }, ErrorCode::kDataLoss,
                {dir.File("model.bin"), "variable 'a/f32'", "float32 [2, 3]", "24 bytes", "says " + std::to_string(count)});
  }
}

TEST(Ct2Checkpoint, WrongShapesAndUnusableWeightsNameTheVariable) {
  const ScratchDir dir;
  const auto checkpoint = OpenBytes(dir, Ct2Bytes(SmallFile().File()));
  const std::string file = dir.File("model.bin");
  ExpectError([&] { checkpoint->LoadWeight("a/f32", {3, 2}, kFloat); }, ErrorCode::kInvalidArgument,
              {file, "variable 'a/f32'", "float32 [2, 3]", "expected shape [3, 2]"});
  ExpectError([&] { checkpoint->LoadWeight("e/same", {6}, kFloat); }, ErrorCode::kInvalidArgument,
              {file, "variable 'e/same' (alias of 'a/f32')"});
  ExpectError([&] { checkpoint->LoadWeight("a/ids", {2}, kFloat); }, ErrorCode::kInvalidArgument,
              {file, "variable 'a/ids'", "int32", "not a weight"});
  ExpectError([&] { checkpoint->LoadInt("a/f32"); }, ErrorCode::kInvalidArgument, {file, "'a/f32'", "integer scalar"});
  ExpectError([&] { checkpoint->LoadWeight("missing", {1}, kFloat); }, ErrorCode::kNotFound, {file, "'missing'"});
}

TEST(Ct2Checkpoint, QuantizedWeightsNeedASoundScale) {
  const SmallFile small;
  struct Case {
    std::string why;
    Ct2TestVariable scale;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"missing", {}, "without its scale 'c/q8/weight_scale'"},
      {"one per row", Ct2VariableOf("c/q8/weight_scale", torch::ones({3})), "[2] (one per row) or a scalar"},
      {"zero", Ct2VariableOf("c/q8/weight_scale", torch::tensor({1.0f, 0.0f})), "not a positive number"},
      {"integer", Ct2VariableOf("c/q8/weight_scale", torch::tensor({1, 2}, torch::kInt)), "expected the float scale"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    Ct2TestFile file;
    file.variables = {Ct2VariableOf("c/q8/weight", small.q8)};
    if (!c.scale.name.empty()) file.variables.push_back(c.scale);
    const ScratchDir dir;
    const auto checkpoint = OpenBytes(dir, Ct2Bytes(file));
    ExpectError([&] { checkpoint->LoadWeight("c/q8/weight", {2, 3}, kFloat); }, ErrorCode::kInvalidArgument,
                {dir.File("model.bin"), "'c/q8/weight", c.message});
  }
}

TEST(Ct2Checkpoint, CorruptTablesAreRefusedNamingWhatIsWrong) {
  const SmallFile small;
  auto refused = [&](Ct2TestFile file, const std::vector<std::string>& parts, const std::string& suffix = "") {
    const ScratchDir dir;
    std::vector<std::string> expected = parts;
    expected.push_back(dir.File("model.bin"));
    ExpectError([&] { OpenBytes(dir, Ct2Bytes(file) + suffix); }, ErrorCode::kDataLoss, expected);
  };
  Ct2TestFile twice = small.File();
  twice.variables.push_back(twice.variables[0]);
  refused(twice, {"variable 'a/f32' is stored twice"});
  Ct2TestFile dangling = small.File();
  dangling.aliases.emplace_back("x/alias", "x/nothing");
  refused(dangling, {"alias 'x/alias'", "'x/nothing'", "does not hold"});
  Ct2TestFile shadowing = small.File();
  shadowing.aliases.emplace_back("a/f32", "b/f16");
  refused(shadowing, {"alias 'a/f32'", "already there"});
  Ct2TestFile high_rank = small.File();
  high_rank.variables[0].shape = std::vector<std::uint32_t>(9, 1);
  refused(high_rank, {"variable 'a/f32'", "rank 9"});
  Ct2TestFile bad_name = small.File();
  bad_name.variables[2].name = "a/fl\nag";
  refused(bad_name, {"variable 3 of 11's name", "not a NUL-terminated name"});
  refused(small.File(), {"5 bytes after the alias table"}, "extra");
}

TEST(Ct2Checkpoint, SplitPartsReadAsOneFileWhereverTheCutsFall) {
  const std::string whole = ReadBytes(FixtureModel());
  const ScratchDir reference_dir;
  const auto reference = OpenBytes(reference_dir, whole);
  const std::vector<std::string> names = reference->Names();
  const std::string embeddings = "decoder/embeddings/weight";
  const Ct2Variable& table = reference->Info(embeddings);
  // Cuts at odd places: in the header, in a name, in the middle of the largest
  // variable's data (an odd byte, so inside a float16), one byte from each end.
  const std::vector<std::vector<std::size_t>> cut_lists = {
      {1}, {7}, {table.offset + table.bytes / 2 + 1}, {whole.size() - 1}, {3, 101, whole.size() / 2 + 1},
      {table.offset + 1, table.offset + 3, table.offset + table.bytes - 1}};
  for (const auto& cuts : cut_lists) {
    SCOPED_TRACE("cuts at " + std::to_string(cuts.front()) + " (" + std::to_string(cuts.size() + 1) + " parts)");
    const ScratchDir dir;
    std::size_t begin = 0;
    for (std::size_t k = 0; k <= cuts.size(); ++k) {
      const std::size_t end = k < cuts.size() ? cuts[k] : whole.size();
      WriteBytes(dir.File("model.bin.part" + std::to_string(k + 1)), whole.substr(begin, end - begin));
      begin = end;
    }
    const auto split = Ct2Checkpoint::Open(dir.path());
    EXPECT_EQ(split->name(), dir.File("model.bin.part1") + " .. model.bin.part" + std::to_string(cuts.size() + 1));
    ASSERT_EQ(split->Names(), names);
    for (const std::string& name : names) ExpectEqual(split->Load(name), reference->Load(name), name);
    EXPECT_EQ(split->Resolve("decoder/projection/weight"), embeddings);
    // Errors about a variable name the part that holds its first byte.
    const std::size_t part = std::upper_bound(cuts.begin(), cuts.end(), table.offset) - cuts.begin();
    EXPECT_EQ(split->FileOf(embeddings), dir.File("model.bin.part" + std::to_string(part + 1)));
  }
}

TEST(Ct2Checkpoint, ASplitCheckpointNeedsEveryPart) {
  const std::string whole = ReadBytes(FixtureModel());
  const ScratchDir dir;
  WriteBytes(dir.File("model.bin.part1"), whole.substr(0, 1000));
  WriteBytes(dir.File("model.bin.part3"), whole.substr(2000));
  ExpectError([&] { Ct2Checkpoint::Open(dir.path()); }, ErrorCode::kNotFound, {dir.path(), "no model.bin.part2"});
  // A part short of its bytes: what follows it is misread, and refused.
  WriteBytes(dir.File("model.bin.part2"), whole.substr(1000, 500));
  ExpectError([&] { Ct2Checkpoint::Open(dir.path()); }, ErrorCode::kDataLoss, {dir.path() + "/model.bin.part"});
  WriteBytes(dir.File("model.bin.part2"), whole.substr(1000, 1000));
  const ScratchDir whole_dir;
  EXPECT_EQ(Ct2Checkpoint::Open(dir.path())->Names(), OpenBytes(whole_dir, whole)->Names());
  // model.bin, where there is one, is the checkpoint.
  WriteBytes(dir.File("model.bin"), whole);
  EXPECT_EQ(Ct2Checkpoint::Open(dir.path())->name(), dir.File("model.bin"));
}

// The variable whose entry is cut by a file of `size` bytes after its name was
// read whole (the reader knows the name then), if any. An entry of binary
// version 4 or later: name length (2), name and NUL, rank (1), dimensions
// (4 each), dtype (1), byte count (4), data.
std::string VariableCutAfterItsName(const Ct2Checkpoint& checkpoint, std::uint64_t size) {
  for (const std::string& name : checkpoint.Names()) {
    const Ct2Variable& v = checkpoint.Info(name);
    const std::uint64_t name_end = v.offset - 4 - 1 - 4 * v.shape.size() - 1;
    if (size >= name_end && size < v.offset + v.bytes) return name;
  }
  return "";
}

TEST(Ct2Checkpoint, ATruncatedCheckpointIsRefusedWhereverItEnds) {
  const std::string whole = ReadBytes(FixtureModel());
  const ScratchDir reference_dir;
  const auto reference = OpenBytes(reference_dir, whole);
  // Every byte of the header and the first entries, the alias table's, and a
  // stride through everything else (the data of every variable is cut somewhere).
  std::uint64_t variables_end = 0;
  for (const std::string& name : reference->Names()) {
    variables_end = std::max(variables_end, reference->Info(name).offset + reference->Info(name).bytes);
  }
  std::set<std::size_t> sizes;
  for (std::size_t n = 0; n < 600; ++n) sizes.insert(n);
  for (std::size_t n = whole.size() - 120; n < whole.size(); ++n) sizes.insert(n);
  for (std::size_t n = 600; n < whole.size(); n += 997) sizes.insert(n);
  for (const std::string& name : reference->Names()) {
    const Ct2Variable& v = reference->Info(name);
    sizes.insert(v.offset - 1);
    sizes.insert(v.offset + v.bytes / 2);
  }
  const ScratchDir dir;
  const std::string path = dir.File("model.bin");
  for (std::size_t size : sizes) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " of " + std::to_string(whole.size()) + " bytes");
    WriteBytes(path, whole.substr(0, size));
    try {
      Ct2Checkpoint::Open(dir.path());
      ADD_FAILURE() << "a truncated checkpoint was accepted";
    } catch (const NeuralError& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << message;
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
      const std::string variable = VariableCutAfterItsName(*reference, size);
      if (!variable.empty()) { EXPECT_NE(message.find("variable '" + variable + "'"), std::string::npos) << message; }
      if (size >= variables_end) { EXPECT_NE(message.find("alias"), std::string::npos) << message; }
    }
  }
}

TEST(Ct2Checkpoint, ABitFlippedLengthIsRefusedNamingTheVariable) {
  const std::string whole = ReadBytes(FixtureModel());
  const ScratchDir reference_dir;
  const auto reference = OpenBytes(reference_dir, whole);
  const ScratchDir dir;
  int refused = 0;
  for (const std::string& name : reference->Names()) {
    const Ct2Variable& v = reference->Info(name);
    // The byte count's four bytes sit just before the data; the name's length
    // before the name, which precedes rank, dimensions, dtype and byte count.
    const std::size_t byte_count_at = v.offset - 4;
    const std::size_t name_length_at = v.offset - 4 - 1 - 4 * v.shape.size() - 1 - (name.size() + 1) - 2;
    for (const auto& [at, bit, what] : {std::tuple{byte_count_at, 0, "byte count"}, std::tuple{byte_count_at + 3, 7, "byte count"},
                                        std::tuple{name_length_at, 0, "name length"}, std::tuple{name_length_at + 1, 6, "name length"}}) {
      SCOPED_TRACE(std::string(what) + " of " + name);
      std::string damaged = whole;
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
      WriteBytes(dir.File("model.bin"), damaged);
      try {
        Ct2Checkpoint::Open(dir.path());
        ADD_FAILURE() << "a damaged checkpoint was accepted";
      } catch (const NeuralError& e) {
        ++refused;
        const std::string message = e.what();
        EXPECT_EQ(e.code(), ErrorCode::kDataLoss) << message;
        EXPECT_NE(message.find(dir.File("model.bin")), std::string::npos) << message;
        // A damaged byte count is this variable's; a damaged name length takes the
        // name with it, so the entry is named by its place in the table.
        if (std::string(what) == "byte count") { EXPECT_NE(message.find("'" + name + "'"), std::string::npos) << message; }
        if (std::string(what) == "name length") { EXPECT_NE(message.find("variable"), std::string::npos) << message; }
      }
    }
  }
  EXPECT_EQ(refused, 4 * static_cast<int>(reference->Names().size()));
}

}  // namespace
}  // namespace lingcast::neural
