#include "neural/marian/marian_batcher.h"

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::ReadJsonFile;
using testing::TestdataDir;
using Tokens = std::vector<std::int64_t>;

// A window no test reaches: a batch leaves when it is full, so which requests
// share a decode does not depend on timing.
constexpr std::chrono::hours kForever{1};

std::shared_ptr<const MarianModel> TinyModel() { return MarianModel::Load(TestdataDir("marian_tiny")); }

GenerationOptions Greedy(const MarianModel& model, DecodePath path) {
  GenerationOptions options = model.DefaultGenerationOptions();
  options.max_new_tokens = 16;
  options.num_beams = 1;
  options.path = path;
  return options;
}

// The reference lines without their padding, and some of other lengths.
std::vector<Tokens> SourceLines() {
  const auto reference = ReadJsonFile(TestdataDir("marian_tiny") + "/reference.json");
  const auto ids = testing::IdLists(reference["input_ids"]);
  const auto mask = testing::IdLists(reference["attention_mask"]);
  std::vector<Tokens> lines;
  for (std::size_t r = 0; r < ids.size(); ++r) {
    Tokens line;
    for (std::size_t t = 0; t < ids[r].size(); ++t) {
      if (mask[r][t] != 0) line.push_back(ids[r][t]);
    }
    lines.push_back(line);
  }
  lines.push_back({7, 0});
  lines.push_back({40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 0});
  lines.push_back({300, 2, 0});
  lines.push_back({12, 99, 150, 0});
  return lines;
}

Tokens Alone(const MarianModel& model, const Tokens& line, const GenerationOptions& options) {
  const auto length = static_cast<std::int64_t>(line.size());
  const torch::Tensor ids = torch::tensor(line, torch::kLong).view({1, length});
  return model.Generate(ids, torch::ones({1, length}, torch::kLong), options).front();
}

class MarianBatcherPaths : public ::testing::TestWithParam<DecodePath> {};

TEST_P(MarianBatcherPaths, ConcurrentCallersGetExactlyTheTokensTheyWouldAlone) {
  auto model = TinyModel();
  const GenerationOptions options = Greedy(*model, GetParam());
  const std::vector<Tokens> lines = SourceLines();
  std::vector<Tokens> expected;
  for (const Tokens& line : lines) expected.push_back(Alone(*model, line, options));

  MarianBatcher batcher(model, options, {.window = kForever, .max_batch = static_cast<std::int64_t>(lines.size())});
  std::vector<Tokens> got(lines.size());
  {
    std::vector<std::jthread> sessions;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      sessions.emplace_back([&, i] { got[i] = batcher.Translate(lines[i]); });
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "line " << i;
  const MarianBatcherStats stats = batcher.stats();
  EXPECT_EQ(stats.batches, 1);  // all of them in one decode
  EXPECT_EQ(stats.largest_batch, static_cast<std::int64_t>(lines.size()));
  EXPECT_EQ(stats.retried_alone, 0);
  // The static path decodes at padded buckets with a kept decoder.
  EXPECT_EQ(model->KeptDecoderStats().decodes, GetParam() == DecodePath::kStatic ? 1 : 0);
}

INSTANTIATE_TEST_SUITE_P(EagerAndStatic, MarianBatcherPaths, ::testing::Values(DecodePath::kEager, DecodePath::kStatic),
                         [](const auto& info) { return info.param == DecodePath::kEager ? "Eager" : "Static"; });

TEST(MarianBatcher, MoreRequestsThanOneBatchAreSplitAndAllAnswered) {
  auto model = TinyModel();
  const GenerationOptions options = Greedy(*model, DecodePath::kEager);
  const std::vector<Tokens> lines = SourceLines();
  MarianBatcher batcher(model, options, {.window = kForever, .max_batch = 4});
  std::vector<std::future<Tokens>> futures;
  for (const Tokens& line : lines) futures.push_back(batcher.Submit(line));  // 8 lines: two full batches
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(futures[i].get(), Alone(*model, lines[i], options));
  EXPECT_EQ(batcher.stats().batches, 2);
  EXPECT_EQ(batcher.stats().largest_batch, 4);
}

TEST(MarianBatcher, ALoneRequestIsDecodedAfterItsWindow) {
  auto model = TinyModel();
  const GenerationOptions options = Greedy(*model, DecodePath::kEager);
  MarianBatcher batcher(model, options, {.window = std::chrono::microseconds(0), .max_batch = 32});
  const Tokens line = SourceLines().front();
  EXPECT_EQ(batcher.Translate(line), Alone(*model, line, options));
}

TEST(MarianBatcher, ABadLineFailsAloneAndItsBatchIsStillTranslated) {
  auto model = TinyModel();
  const GenerationOptions options = Greedy(*model, DecodePath::kEager);
  const std::vector<Tokens> lines = SourceLines();
  MarianBatcher batcher(model, options, {.window = kForever, .max_batch = 4});
  auto first = batcher.Submit(lines[0]);
  auto out_of_vocabulary = batcher.Submit({5, 100000, 0});
  auto too_long = batcher.Submit(Tokens(65, 5));  // the tiny model holds 64 positions
  auto last = batcher.Submit(lines[1]);
  EXPECT_EQ(first.get(), Alone(*model, lines[0], options));
  EXPECT_EQ(last.get(), Alone(*model, lines[1], options));
  ExpectError([&] { out_of_vocabulary.get(); }, ErrorCode::kInvalidArgument, {"100000", "vocabulary"});
  ExpectError([&] { too_long.get(); }, ErrorCode::kInvalidArgument, {"65 tokens", "max_position_embeddings"});
  EXPECT_EQ(batcher.stats().retried_alone, 1);
}

TEST(MarianBatcher, AnEmptyLineIsRefusedAtOnce) {
  MarianBatcher batcher(TinyModel(), Greedy(*TinyModel(), DecodePath::kEager));
  ExpectError([&] { batcher.Translate({}); }, ErrorCode::kInvalidArgument, {"no tokens"});
  EXPECT_EQ(batcher.stats().batches, 0);
}

TEST(MarianBatcher, ACancelledRequestFailsAloneAndTheOthersAreTranslated) {
  auto model = TinyModel();
  const GenerationOptions options = Greedy(*model, DecodePath::kEager);
  const std::vector<Tokens> lines = SourceLines();
  MarianBatcher batcher(model, options, {.window = kForever, .max_batch = 2});
  std::stop_source cancel;
  cancel.request_stop();
  auto cancelled = batcher.Submit(lines[0], cancel.get_token());
  auto kept = batcher.Submit(lines[1]);
  ExpectError([&] { cancelled.get(); }, ErrorCode::kCancelled, {"cancelled"});
  EXPECT_EQ(kept.get(), Alone(*model, lines[1], options));
}

TEST(MarianBatcher, ShutdownCancelsQueuedRequests) {
  auto model = TinyModel();
  std::vector<std::future<Tokens>> futures;
  {
    MarianBatcher batcher(model, Greedy(*model, DecodePath::kEager), {.window = kForever, .max_batch = 8});
    for (const Tokens& line : SourceLines()) {
      futures.push_back(batcher.Submit(line));
      if (futures.size() == 3) break;  // fewer than a batch: they wait for the window
    }
  }  // the destructor fails them and joins its thread
  for (auto& future : futures) ExpectError([&] { future.get(); }, ErrorCode::kCancelled, {"shut down"});
}

TEST(MarianBatcher, BadOptionsAreRefused) {
  ExpectError([] { MarianBatcher(TinyModel(), GenerationOptions{}, {.max_batch = 0}); }, ErrorCode::kInvalidArgument,
              {"max_batch", "0"});
}

}  // namespace
}  // namespace lingcast::neural
