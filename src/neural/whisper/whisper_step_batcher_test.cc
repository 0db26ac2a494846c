// The step batcher on the committed tiny checkpoint: decoders of different
// requests (their own encoder outputs, prompts and positions) stepped in one pass
// get the logits each gets alone, concurrent transcriptions the tokens each gets
// alone; a pass holds at most max_rows rows; a step that cannot run fails alone
// and a decoder that leaves stops the others waiting for it. The passes are
// made deterministic by a window longer than any test: a pass then forms only
// when every live decoder has a step waiting (or max_rows is reached).
#include <torch/torch.h>

#include <latch>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"
#include "neural/whisper/whisper_model.h"
#include "neural/whisper/whisper_transcriber.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;
using testing::RelativeError;
using testing::TestdataDir;

constexpr double kTolerance = 1e-4;

ModelOptions Batching(bool enabled, std::int64_t max_rows = 16) {
  ModelOptions options;
  options.step_batching.enabled = enabled;
  options.step_batching.window = std::chrono::minutes(10);
  options.step_batching.max_rows = max_rows;
  return options;
}

// Audio a tiny random model decodes into a few dozen tokens: a tone at
// `hertz` for `seconds`.
std::vector<float> Tone(double hertz, double seconds) {
  std::vector<float> samples(static_cast<std::size_t>(seconds * 16000));
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = 0.3f * std::sin(2 * M_PI * hertz * i / 16000.0);
  return samples;
}

// Each recording transcribed by `alone` one at a time, and by `joined` from a
// thread each, started together: {alone's results, joined's}.
std::pair<std::vector<WhisperResult>, std::vector<WhisperResult>> TranscribeAloneAndAtOnce(
    const WhisperTranscriber& alone, const WhisperTranscriber& joined, const std::vector<std::vector<float>>& audio,
    const WhisperOptions& options) {
  std::vector<WhisperResult> expected;
  for (const auto& samples : audio) {
    expected.push_back(alone.Transcribe(samples.data(), static_cast<std::int64_t>(samples.size()), options));
  }
  std::vector<WhisperResult> got(audio.size());
  std::latch start(static_cast<std::ptrdiff_t>(audio.size()));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < audio.size(); ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      got[i] = joined.Transcribe(audio[i].data(), static_cast<std::int64_t>(audio[i].size()), options);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return {std::move(expected), std::move(got)};
}

class WhisperStepBatcherTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = TestdataDir("whisper_tiny"); }

  // Encoder outputs of two different inputs, and two prompts of different lengths.
  struct Request {
    torch::Tensor encoded;
    std::vector<std::int64_t> prompt;
  };
  std::vector<Request> Requests(const WhisperTranscriber& transcriber) const {
    const WhisperModel& model = transcriber.model();
    std::vector<Request> requests;
    const double hertz[] = {220.0, 880.0, 440.0};
    for (int i = 0; i < 3; ++i) {
      const std::vector<float> tone = Tone(hertz[i], 1.0 + i);
      const torch::Tensor features = transcriber.features().Compute(tone.data(), static_cast<std::int64_t>(tone.size()));
      WhisperOptions options;
      options.language = "en";
      std::vector<std::int64_t> prompt = transcriber.Prompt("en", options);
      prompt.resize(prompt.size() - static_cast<std::size_t>(i));  // positions differ between decoders
      requests.push_back({model.Encode(features.narrow(1, 0, model.input_frames()).unsqueeze(0)),
                          prompt});
    }
    return requests;
  }

  void ExpectJoinedLogitsAreTheLoneOnes(torch::Device device) const;

  std::string dir_;
};

// Three decoders stepped from their own threads, joined and alone, on `device`.
void WhisperStepBatcherTest::ExpectJoinedLogitsAreTheLoneOnes(torch::Device device) const {
  ModelOptions alone_options = Batching(false), joined_options = Batching(true);
  alone_options.device = joined_options.device = device;
  const auto alone = WhisperTranscriber::Load(dir_, alone_options);
  const auto joined = WhisperTranscriber::Load(dir_, joined_options);
  const std::vector<Request> requests = Requests(*alone);
  constexpr int kSteps = 6;
  const std::int64_t token = alone->special().no_timestamps;

  // Alone: each decoder by itself.
  std::vector<std::vector<torch::Tensor>> expected(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto state = alone->model().StartDecoder(requests[i].encoded, 1, 64);
    state->Prefill(torch::tensor(requests[i].prompt, torch::kLong).view({1, -1}).to(device));
    for (int s = 0; s < kSteps; ++s) expected[i].push_back(state->Step(torch::full({1}, token + s, torch::dtype(torch::kLong).device(device))));
  }

  // Joined: every decoder live before any steps, each on its own thread.
  std::vector<std::unique_ptr<WhisperDecoderState>> states;
  for (const Request& request : requests) {
    states.push_back(joined->model().StartDecoder(request.encoded, 1, 64));
    states.back()->Prefill(torch::tensor(request.prompt, torch::kLong).view({1, -1}).to(device));
  }
  std::vector<std::vector<torch::Tensor>> got(requests.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int s = 0; s < kSteps; ++s) got[i].push_back(states[i]->Step(torch::full({1}, token + s, torch::dtype(torch::kLong).device(device))));
      states[i].reset();
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (int s = 0; s < kSteps; ++s) {
      EXPECT_LT(RelativeError(got[i][s], expected[i][s]), kTolerance) << "decoder " << i << " step " << s;
      EXPECT_EQ(got[i][s].argmax(-1).item<std::int64_t>(), expected[i][s].argmax(-1).item<std::int64_t>());
    }
  }
  const StepBatchingStats stats = joined->model().step_batching_stats();
  EXPECT_EQ(stats.steps, 3 * kSteps);
  EXPECT_EQ(stats.passes, kSteps);  // every pass waited for all three
  EXPECT_EQ(stats.joined_steps, 3 * kSteps);
  EXPECT_EQ(stats.largest_pass, 3);
  // Off: every step its own pass, counted all the same.
  const StepBatchingStats off = alone->model().step_batching_stats();
  EXPECT_EQ(off.steps, 3 * kSteps);
  EXPECT_EQ(off.passes, 3 * kSteps);
  EXPECT_EQ(off.joined_steps, 0);
  EXPECT_EQ(off.largest_pass, 1);
}

// With join_above_live_decoders 3: three live decoders each step alone; a
// fourth makes every step wait for a pass of all four (the window outlasts the test).
TEST_F(WhisperStepBatcherTest, StepsJoinOnlyWhileMoreDecodersAreLiveThanTheThreshold) {
  ModelOptions options = Batching(true);
  options.step_batching.join_above_live_decoders = 3;
  const auto model = WhisperTranscriber::Load(dir_, options);
  const std::vector<Request> requests = Requests(*model);
  ASSERT_GE(requests.size(), 3u);
  constexpr int kSteps = 4;
  const std::int64_t token = model->special().no_timestamps;
  auto step_all_at_once = [&](std::size_t decoders) {
    std::vector<std::unique_ptr<WhisperDecoderState>> states;
    for (std::size_t i = 0; i < decoders; ++i) {
      const Request& request = requests[i % requests.size()];
      states.push_back(model->model().StartDecoder(request.encoded, 1, 64));
      states.back()->Prefill(torch::tensor(request.prompt, torch::kLong).view({1, -1}));
    }
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < decoders; ++i) {
      threads.emplace_back([&, i] {
        for (int s = 0; s < kSteps; ++s) states[i]->Step(torch::full({1}, token + s, torch::kLong));
      });
    }
    for (std::thread& thread : threads) thread.join();
  };

  step_all_at_once(3);
  StepBatchingStats stats = model->model().step_batching_stats();
  EXPECT_EQ(stats.steps, 3 * kSteps);
  EXPECT_EQ(stats.passes, 3 * kSteps) << "three live decoders: every step alone";
  EXPECT_EQ(stats.joined_steps, 0);
  EXPECT_EQ(stats.largest_pass, 1);

  step_all_at_once(4);
  stats = model->model().step_batching_stats();
  EXPECT_EQ(stats.steps, 7 * kSteps);
  EXPECT_EQ(stats.passes, 3 * kSteps + kSteps) << "four live decoders: each pass waited for all four";
  EXPECT_EQ(stats.joined_steps, 4 * kSteps);
  EXPECT_EQ(stats.largest_pass, 4);
}

TEST_F(WhisperStepBatcherTest, DecodersSteppedInOnePassGetTheLogitsEachGetsAlone) {
  ExpectJoinedLogitsAreTheLoneOnes(torch::kCPU);
}

// On CUDA the eager step (beam search's) goes through the batcher too.
TEST_F(WhisperStepBatcherTest, OnCudaDecodersSteppedInOnePassGetTheLogitsEachGetsAlone) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA test runs on the GPU machine";
  ExpectJoinedLogitsAreTheLoneOnes(torch::kCUDA);
}

// Concurrent beam searches on CUDA: the tokens each gets alone.
TEST_F(WhisperStepBatcherTest, OnCudaConcurrentBeamSearchesGetTheTokensEachGetsAlone) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device: the CUDA test runs on the GPU machine";
  ModelOptions alone_options = Batching(false), joined_options = Batching(true);
  alone_options.device = joined_options.device = torch::kCUDA;
  const auto alone = WhisperTranscriber::Load(dir_, alone_options);
  const auto joined = WhisperTranscriber::Load(dir_, joined_options);
  const std::vector<std::vector<float>> audio = {Tone(300, 2.0), Tone(1200, 3.5), Tone(600, 1.0)};
  WhisperOptions options;
  options.language = "en";
  options.num_beams = 2;
  options.max_new_tokens = 24;
  const auto [expected, got] = TranscribeAloneAndAtOnce(*alone, *joined, audio, options);
  for (std::size_t i = 0; i < audio.size(); ++i) EXPECT_EQ(got[i].sequence, expected[i].sequence) << "request " << i;
  EXPECT_GT(joined->model().step_batching_stats().steps, 0);
}

TEST_F(WhisperStepBatcherTest, ConcurrentTranscriptionsGetTheTokensEachGetsAlone) {
  const auto alone = WhisperTranscriber::Load(dir_, Batching(false));
  const auto joined = WhisperTranscriber::Load(dir_, Batching(true));
  const std::vector<std::vector<float>> audio = {Tone(300, 2.0), Tone(1200, 3.5), Tone(600, 1.0), Tone(150, 2.5)};
  WhisperOptions options;  // the language detected: one more decoder per request
  options.max_new_tokens = 24;
  options.timestamps = true;
  const auto [expected, got] = TranscribeAloneAndAtOnce(*alone, *joined, audio, options);
  for (std::size_t i = 0; i < audio.size(); ++i) {
    EXPECT_EQ(got[i].sequence, expected[i].sequence) << "request " << i;
    EXPECT_EQ(got[i].language, expected[i].language) << "request " << i;
  }
  EXPECT_GT(joined->model().step_batching_stats().steps, 0);
}

TEST_F(WhisperStepBatcherTest, APassHoldsAtMostMaxRows) {
  const auto alone = WhisperTranscriber::Load(dir_, Batching(false));
  const auto joined = WhisperTranscriber::Load(dir_, Batching(true, /*max_rows=*/2));
  const std::vector<Request> requests = Requests(*alone);
  constexpr int kSteps = 5;
  const std::int64_t token = alone->special().no_timestamps;
  std::vector<torch::Tensor> expected;
  for (const Request& request : requests) {
    auto state = alone->model().StartDecoder(request.encoded, 1, 64);
    state->Prefill(torch::tensor(request.prompt, torch::kLong).view({1, -1}));
    for (int s = 0; s < kSteps; ++s) expected.push_back(state->Step(torch::full({1}, token, torch::kLong)));
  }
  std::vector<std::unique_ptr<WhisperDecoderState>> states;
  for (const Request& request : requests) {
    states.push_back(joined->model().StartDecoder(request.encoded, 1, 64));
    states.back()->Prefill(torch::tensor(request.prompt, torch::kLong).view({1, -1}));
  }
  std::vector<torch::Tensor> got(requests.size() * kSteps);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int s = 0; s < kSteps; ++s) got[i * kSteps + s] = states[i]->Step(torch::full({1}, token, torch::kLong));
      states[i].reset();  // leaves: the others stop waiting for its steps
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_LT(RelativeError(got[k], expected[k]), kTolerance) << k;
  const StepBatchingStats stats = joined->model().step_batching_stats();
  EXPECT_EQ(stats.steps, 3 * kSteps);
  EXPECT_EQ(stats.largest_pass, 2);
  EXPECT_GE(stats.passes, 8);  // two rows a pass at most: 15 steps take at least 8
}

TEST_F(WhisperStepBatcherTest, AStepThatCannotRunFailsAloneAndALeavingDecoderStopsTheWait) {
  const auto alone = WhisperTranscriber::Load(dir_, Batching(false));
  const auto joined = WhisperTranscriber::Load(dir_, Batching(true));
  const std::vector<Request> requests = Requests(*joined);
  const std::int64_t token = joined->special().no_timestamps;
  const std::int64_t vocab = joined->model().config().vocab_size;

  auto full = joined->model().StartDecoder(requests[0].encoded, 1, 1);
  full->Step(torch::full({1}, token, torch::kLong));  // its only position; the only live decoder: alone
  auto open = joined->model().StartDecoder(requests[1].encoded, 1, 8);
  // Both fail on the caller's thread, before any pass (none would form: the
  // other live decoder has no step waiting, and the window is 10 minutes).
  ExpectError([&] { full->Step(torch::full({1}, token, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"holds 1 positions", "cannot add 1 after 1"});
  ExpectError([&] { open->Step(torch::full({1}, vocab, torch::kLong)); }, ErrorCode::kInvalidArgument,
              {"outside the vocabulary"});
  ExpectError([&] { open->Step(torch::full({2}, token, torch::kLong)); }, ErrorCode::kInvalidArgument, {"1 rows"});
  EXPECT_EQ(joined->model().step_batching_stats().passes, 1);

  // `open` waits for `full`'s next step, which never comes: `full` leaving ends the wait.
  torch::Tensor got;
  std::thread stepper([&] { got = open->Step(torch::full({1}, token, torch::kLong)); });
  full.reset();
  stepper.join();

  auto reference = alone->model().StartDecoder(requests[1].encoded, 1, 8);
  EXPECT_LT(RelativeError(got, reference->Step(torch::full({1}, token, torch::kLong))), kTolerance);
  const StepBatchingStats stats = joined->model().step_batching_stats();
  EXPECT_EQ(stats.steps, 2);
  EXPECT_EQ(stats.joined_steps, 0);
}

}  // namespace
}  // namespace lingcast::neural
