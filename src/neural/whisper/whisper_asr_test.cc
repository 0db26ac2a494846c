// WhisperAsrModel / WhisperAsrSession (the AsrEngine adapter) on the tiny
// checkpoint: a session's final is what the transcriber hears in the same audio;
// bad input is refused (streaming partials: whisper_streaming_test.cc).
#include "neural/whisper/whisper_asr.h"

#include <cmath>
#include <fstream>

#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/safetensors.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::TestdataDir;

AudioBuffer Mono16k(const float* samples, std::size_t count) {
  AudioBuffer buffer;
  buffer.sample_rate = kAsrSampleRate;
  buffer.channels = 1;
  buffer.samples.assign(samples, samples + count);
  return buffer;
}

class WhisperAsr : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.model_dir = TestdataDir("whisper_tiny");
    options_.language = "en";
    auto model = WhisperAsrModel::Load(options_);
    ASSERT_OK(model);
    model_ = *model;
    audio_ = SafetensorsFile::Open(options_.model_dir + "/reference.safetensors")->Load("audio_0").contiguous();
  }
  const float* samples() const { return audio_.data_ptr<float>(); }
  std::size_t count() const { return static_cast<std::size_t>(audio_.numel()); }

  WhisperAsrOptions options_;
  std::shared_ptr<WhisperAsrModel> model_;
  torch::Tensor audio_;
};

TEST_F(WhisperAsr, FinalIsWhatTheTranscriberHearsWithWordsInsideTheUtterance) {
  auto session = *model_->NewSession();
  const MediaTime start = MediaTime::Millis(2000);
  for (std::size_t at = 0; at < count(); at += 1600) {
    ASSERT_TRUE(session->AcceptAudio(Mono16k(samples() + at, std::min<std::size_t>(1600, count() - at)),
                                     at == 0 ? start : session->position()).ok());
  }
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  WhisperOptions o;
  o.language = "en";
  o.timestamps = true;  // as the session decodes
  o.encode_heard_only = true;
  const WhisperResult direct = model_->transcriber().Transcribe(samples(), static_cast<std::int64_t>(count()), o);
  ASSERT_FALSE(final->text.empty());
  EXPECT_TRUE(final->final);
  // The same words, joined by single spaces.
  std::string joined;
  for (const auto& w : final->words) joined += (joined.empty() ? "" : " ") + w.text;
  EXPECT_EQ(final->text, joined);
  EXPECT_NE(direct.text.find(final->words.front().text), std::string::npos);
  EXPECT_EQ(final->start, start);
  EXPECT_EQ(final->end, start + MediaTime::FromSamples(static_cast<std::int64_t>(count()), kAsrSampleRate));
  MediaTime previous = final->start;
  for (const auto& w : final->words) {
    EXPECT_GE(w.start, previous);
    EXPECT_GE(w.end, w.start);
    EXPECT_LE(w.end, final->end);
    previous = w.end;
  }
  // The session is ready for the next utterance: nothing is open.
  EXPECT_FALSE(session->Partial().has_value());
}

// Word times come from the alignment heads (whisper_word_timestamps.h): the
// final's words start where the transcriber's word timestamps put them.
TEST_F(WhisperAsr, FinalWordsTakeTheAlignmentTimes) {
  auto session = *model_->NewSession();
  const MediaTime start = MediaTime::Millis(1500);
  ASSERT_OK(session->AcceptAudio(Mono16k(samples(), count()), start));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  WhisperOptions o;
  o.language = "en";
  o.timestamps = true;  // as the session decodes
  o.encode_heard_only = true;
  o.word_timestamps = true;
  const WhisperResult direct = model_->transcriber().Transcribe(samples(), static_cast<std::int64_t>(count()), o);
  ASSERT_FALSE(direct.words.empty());
  // Words the grouping split off without a space join the word before them.
  std::vector<std::pair<MediaTime, MediaTime>> expected;
  for (const WhisperWordTiming& w : direct.words) {
    const MediaTime word_start = start + MediaTime::Micros(std::llround(w.start * 1e6));
    const MediaTime word_end = start + MediaTime::Micros(std::llround(w.end * 1e6));
    if (!expected.empty() && w.text.front() != ' ') {
      expected.back().second = std::max(expected.back().second, word_end);
    } else {
      expected.emplace_back(word_start, word_end);
    }
  }
  ASSERT_EQ(final->words.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(final->words[i].start, std::min(expected[i].first, final->end)) << i;
    EXPECT_EQ(final->words[i].end, std::min(expected[i].second, final->end)) << i;
  }
}

// Chinese: one word per character run (as the grouping gives them), none joined.
TEST_F(WhisperAsr, ChineseFinalWordsAreTheGroupedPieces) {
  WhisperAsrOptions zh = options_;
  zh.language = "zh";
  // The random model never says <|endoftext|>: both decodes stop at the same cap.
  zh.max_new_tokens = 64;
  zh.max_tokens_per_second = 0;
  auto model = WhisperAsrModel::Load(zh);
  ASSERT_OK(model);
  auto session = *(*model)->NewSession();
  ASSERT_OK(session->AcceptAudio(Mono16k(samples(), count()), MediaTime::Zero()));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  WhisperOptions o;
  o.language = "zh";
  o.timestamps = true;
  o.encode_heard_only = true;
  o.word_timestamps = true;
  o.max_new_tokens = zh.max_new_tokens;
  const WhisperResult direct = (*model)->transcriber().Transcribe(samples(), static_cast<std::int64_t>(count()), o);
  std::vector<const WhisperWordTiming*> spoken;
  for (const WhisperWordTiming& w : direct.words) {
    if (w.text.find_first_not_of(" \t\n") != std::string::npos) spoken.push_back(&w);
  }
  ASSERT_FALSE(spoken.empty());
  ASSERT_EQ(final->words.size(), spoken.size());
  for (std::size_t i = 0; i < spoken.size(); ++i) {
    EXPECT_EQ(final->words[i].start, std::min(MediaTime::Micros(std::llround(spoken[i]->start * 1e6)), final->end)) << i;
  }
}

TEST_F(WhisperAsr, ADecodeIsCutWhereSpeechOfItsLengthCouldNotReach) {
  // The random model never says <|endoftext|>: it loops as a real one does on a
  // breath, and the cap (10 + 15 tokens a second) stops it there.
  WhisperAsrOptions capped = options_;
  capped.language = "zh";
  WhisperAsrOptions uncapped = capped;
  uncapped.max_tokens_per_second = 0;
  const std::size_t samples_heard = std::min<std::size_t>(count(), 8000);  // half a second
  std::size_t words[2] = {0, 0};
  int i = 0;
  for (const WhisperAsrOptions& options : {capped, uncapped}) {
    auto model = WhisperAsrModel::Load(options);
    ASSERT_OK(model);
    auto session = *(*model)->NewSession();
    ASSERT_OK(session->AcceptAudio(Mono16k(samples(), samples_heard), MediaTime::Zero()));
    const absl::StatusOr<AsrHypothesis> final = session->Finish();
    ASSERT_OK(final);
    words[i++] = final->words.size();
  }
  const double seconds = static_cast<double>(samples_heard) / 16000.0;
  EXPECT_LE(words[0], static_cast<std::size_t>(10 + 15.0 * seconds));
  EXPECT_GT(words[1], words[0]);
}

TEST_F(WhisperAsr, ProportionalWordTimesWhenAskedOrWithoutAlignmentHeads) {
  WhisperAsrOptions proportional = options_;
  proportional.word_times = WhisperWordTimeSource::kProportional;
  auto model = WhisperAsrModel::Load(proportional);
  ASSERT_OK(model);
  auto session = *(*model)->NewSession();
  ASSERT_OK(session->AcceptAudio(Mono16k(samples(), count()), MediaTime::Zero()));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  ASSERT_FALSE(final->words.empty());
  // By length: the first word starts with the utterance, the last ends with it.
  EXPECT_EQ(final->words.front().start, final->start);
  EXPECT_EQ(final->words.back().end, final->end);
}

TEST(WhisperAsrModel, RequiredWordTimesNeedAlignmentHeads) {
  testing::ScratchDir scratch;
  testing::CopyDir(TestdataDir("whisper_tiny"), scratch.path());
  nlohmann::json generation = testing::ReadJsonFile(scratch.File("generation_config.json"));
  generation.erase("alignment_heads");
  std::ofstream(scratch.File("generation_config.json")) << generation.dump(2);
  WhisperAsrOptions options;
  options.model_dir = scratch.path();
  options.language = "en";
  options.word_times = WhisperWordTimeSource::kRequired;
  const absl::StatusOr<std::shared_ptr<WhisperAsrModel>> refused = WhisperAsrModel::Load(options);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find(scratch.File("generation_config.json")), std::string::npos) << refused.status();
  EXPECT_NE(refused.status().message().find("alignment_heads"), std::string::npos) << refused.status();
  // kAuto loads it and falls back to proportional times.
  options.word_times = WhisperWordTimeSource::kAuto;
  const absl::StatusOr<std::shared_ptr<WhisperAsrModel>> loaded = WhisperAsrModel::Load(options);
  ASSERT_OK(loaded);
  const torch::Tensor audio = SafetensorsFile::Open(options.model_dir + "/reference.safetensors")->Load("audio_0").contiguous();
  auto session = *(*loaded)->NewSession();
  ASSERT_OK(session->AcceptAudio(Mono16k(audio.data_ptr<float>(), static_cast<std::size_t>(audio.numel())), MediaTime::Zero()));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  ASSERT_FALSE(final->words.empty());
  EXPECT_EQ(final->words.back().end, final->end);
}

TEST_F(WhisperAsr, UtteranceLongerThanAWindowIsDecodedWindowByWindow) {
  auto session = *model_->NewSession();
  std::vector<float> long_audio(static_cast<std::size_t>(31 * kAsrSampleRate), 0.0f);
  std::copy(samples(), samples() + count(), long_audio.begin());
  std::copy(samples(), samples() + count(), long_audio.end() - static_cast<std::ptrdiff_t>(count()));
  ASSERT_OK(session->AcceptAudio(Mono16k(long_audio.data(), long_audio.size()), MediaTime::Zero()));
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  EXPECT_FALSE(final->text.empty());
  EXPECT_EQ(final->end, MediaTime::Millis(31000));
}

TEST_F(WhisperAsr, EmptyUtteranceGivesAnEmptyFinal) {
  auto session = *model_->NewSession();
  const absl::StatusOr<AsrHypothesis> final = session->Finish();
  ASSERT_OK(final);
  EXPECT_TRUE(final->final);
  EXPECT_TRUE(final->text.empty());
  EXPECT_TRUE(final->words.empty());
}

TEST_F(WhisperAsr, BadAudioIsRefusedAndNothingIsLost) {
  auto session = *model_->NewSession();
  ASSERT_OK(session->AcceptAudio(Mono16k(samples(), 1600), MediaTime::Millis(1000)));
  AudioBuffer stereo = Mono16k(samples(), 1600);
  stereo.channels = 2;
  const absl::Status wrong_format = session->AcceptAudio(stereo, session->position());
  EXPECT_EQ(wrong_format.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong_format.message().find("2 channel"), std::string::npos) << wrong_format;
  const absl::Status backwards = session->AcceptAudio(Mono16k(samples(), 1600), MediaTime::Millis(500));
  EXPECT_EQ(backwards.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session->position(), MediaTime::Millis(1100));
}

TEST(WhisperAsrModel, ProblemsAreOneLineNamingWhatIsWrong) {
  WhisperAsrOptions options;
  options.model_dir = TestdataDir("no-such-checkpoint");
  absl::StatusOr<std::shared_ptr<WhisperAsrModel>> missing = WhisperAsrModel::Load(options);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no-such-checkpoint"), std::string::npos) << missing.status();

  options.model_dir = TestdataDir("whisper_tiny");
  options.language = "xx";
  absl::StatusOr<std::shared_ptr<WhisperAsrModel>> language = WhisperAsrModel::Load(options);
  EXPECT_EQ(language.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(language.status().message().find("<|xx|>"), std::string::npos) << language.status();

  options.model_dir = TestdataDir("marian_tiny");
  options.language = "";
  absl::StatusOr<std::shared_ptr<WhisperAsrModel>> marian = WhisperAsrModel::Load(options);
  EXPECT_EQ(marian.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(marian.status().message().find("not a Whisper checkpoint"), std::string::npos) << marian.status();
}

}  // namespace
}  // namespace lingcast::neural
