#include "asr/streaming_recognizer.h"

#include <filesystem>

#include "asr/asr_test_data.h"
#include "asr/pocketsphinx_engine.h"
#include "asr/word_error_rate.h"
#include "audio/audio_decoder.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using Type = RecognizerEvent::Type;

const PocketsphinxModel& Model() {
  static const auto* model = [] {
    absl::StatusOr<std::shared_ptr<PocketsphinxModel>> loaded = PocketsphinxModel::Load({});
    EXPECT_OK(loaded);
    return new std::shared_ptr<PocketsphinxModel>(*loaded);
  }();
  return **model;
}

AudioBuffer Silence(MediaTime duration) {
  AudioBuffer pcm{kAsrSampleRate, 1, {}};
  pcm.samples.assign(static_cast<size_t>(duration.micros() * kAsrSampleRate / 1'000'000), 0.0f);
  return pcm;
}

// Silence, the recording, silence: pushed in pieces of `piece`.
std::vector<RecognizerEvent> Recognize(const AudioBuffer& speech, MediaTime piece,
                                       const StreamingRecognizerOptions& options = {}) {
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), options);
  EXPECT_OK(recognizer);
  AudioBuffer input = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), speech.samples.begin(), speech.samples.end());
  const AudioBuffer tail = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), tail.samples.begin(), tail.samples.end());
  const size_t step = static_cast<size_t>(piece.micros() * kAsrSampleRate / 1'000'000);
  std::vector<RecognizerEvent> events;
  for (size_t begin = 0; begin < input.samples.size(); begin += step) {
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(input.samples.begin() + begin, input.samples.begin() + std::min(input.samples.size(), begin + step));
    absl::StatusOr<std::vector<RecognizerEvent>> got = recognizer->Push(chunk);
    EXPECT_OK(got);
    if (got.ok()) events.insert(events.end(), got->begin(), got->end());
  }
  absl::StatusOr<std::vector<RecognizerEvent>> rest = recognizer->Flush();
  EXPECT_OK(rest);
  if (rest.ok()) events.insert(events.end(), rest->begin(), rest->end());
  return events;
}

std::vector<const RecognizerEvent*> Finals(const std::vector<RecognizerEvent>& events) {
  std::vector<const RecognizerEvent*> finals;
  for (const RecognizerEvent& e : events) {
    if (e.type == Type::kFinal && !e.hypothesis.text.empty()) finals.push_back(&e);
  }
  return finals;
}

#define LOAD_SPEECH_OR_SKIP(var, recording)                                            \
  const std::string var##_path = SpeechPath((recording).file);                         \
  if (!std::filesystem::exists(var##_path)) GTEST_SKIP() << NoDataMessage(var##_path); \
  absl::StatusOr<AudioBuffer> var = DecodeAudioFile(var##_path, kAsrSampleRate);       \
  ASSERT_OK(var) << var.status()

TEST(StreamingRecognizerTest, SilenceGivesNoEvents) {
  EXPECT_TRUE(Recognize(Silence(MediaTime::Seconds(2)), MediaTime::Millis(20)).empty());
}

TEST(StreamingRecognizerTest, RecordingGivesStartPartialsAndFinalInOrder) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  const std::vector<RecognizerEvent> events = Recognize(*jfk, MediaTime::Millis(20));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().type, Type::kSpeechStart);
  // The speech starts after the leading second of silence.
  EXPECT_GE(events.front().hypothesis.start, MediaTime::Millis(900));
  int partials = 0;
  MediaTime last_decided;
  bool open = false;
  for (const RecognizerEvent& e : events) {
    EXPECT_GE(e.decided_at, last_decided) << "events come in input order";
    last_decided = e.decided_at;
    if (e.type == Type::kSpeechStart) {
      EXPECT_FALSE(open);
      open = true;
    } else if (e.type == Type::kPartial) {
      EXPECT_TRUE(open);
      EXPECT_FALSE(e.hypothesis.final);
      EXPECT_LE(e.hypothesis.end, e.decided_at);
      ++partials;
    } else {
      EXPECT_TRUE(open);
      open = false;
      EXPECT_TRUE(e.hypothesis.final);
      // The endpoint is decided after the hangover that follows the speech.
      EXPECT_GE(e.decided_at, e.hypothesis.end);
    }
  }
  EXPECT_FALSE(open) << "every utterance is finished";
  EXPECT_GE(partials, 3);
  std::string heard;
  for (const RecognizerEvent* final : Finals(events)) heard += final->hypothesis.text + " ";
  EXPECT_LT(CountWordErrors(kJfk.transcript, heard).rate(), 0.5) << heard;
}

// With endpoint_hypothesis, each utterance's final is preceded by the streaming
// hypothesis of all of it, handed to the sink before the final pass runs.
TEST(StreamingRecognizerTest, TheEndpointHypothesisComesBeforeTheFinalPass) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  StreamingRecognizerOptions options;
  options.endpoint_hypothesis = true;
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), options);
  ASSERT_OK(recognizer);
  AudioBuffer input = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), jfk->samples.begin(), jfk->samples.end());
  const AudioBuffer tail = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), tail.samples.begin(), tail.samples.end());
  std::vector<RecognizerEvent> events;
  // The sink sees the session mid-push: at the endpoint event the utterance is
  // not finished yet, so the recognizer still reports speech ended (VAD) but
  // no final has come.
  int endpoints = 0, finals = 0;
  auto sink = [&](RecognizerEvent event) {
    if (event.type == Type::kEndpoint) {
      ++endpoints;
      EXPECT_EQ(endpoints, finals + 1) << "one endpoint before each final";
      EXPECT_FALSE(event.hypothesis.final);
      EXPECT_LE(event.hypothesis.end, event.decided_at);
    }
    if (event.type == Type::kFinal) ++finals;
    events.push_back(std::move(event));
    return absl::OkStatus();
  };
  ASSERT_OK(recognizer->Push(input, sink));
  ASSERT_OK(recognizer->Flush(sink));
  ASSERT_GE(finals, 1);
  EXPECT_EQ(endpoints, finals);
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    if (events[i].type != Type::kEndpoint) continue;
    EXPECT_EQ(events[i + 1].type, Type::kFinal);
    EXPECT_EQ(events[i].decided_at, events[i + 1].decided_at);
    EXPECT_EQ(events[i].hypothesis.start, events[i + 1].hypothesis.start);
    EXPECT_FALSE(events[i].hypothesis.text.empty()) << "the streaming pass heard words";
  }
  // Without the option there is none (the default).
  for (const RecognizerEvent& e : Recognize(*jfk, MediaTime::Millis(20))) EXPECT_NE(e.type, Type::kEndpoint);
}

// On a pause the recognizer reports what it heard and the audio so far, well
// before the VAD's endpoint; the audio can be scored on the second session
// while the first goes on with the utterance.
TEST(StreamingRecognizerTest, APauseIsReportedBeforeTheEndpointWithTheAudioSoFar) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  StreamingRecognizerOptions options;
  options.endpoint_hypothesis = true;
  options.pause_hypothesis_after = MediaTime::Millis(150);
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), options);
  ASSERT_OK(recognizer);
  AudioBuffer input = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), jfk->samples.begin(), jfk->samples.end());
  const AudioBuffer tail = Silence(MediaTime::Seconds(1));
  input.samples.insert(input.samples.end(), tail.samples.begin(), tail.samples.end());
  std::optional<RecognizerEvent> last_pause;
  int endpoints = 0;
  std::vector<std::string> scored;  // the best alternative of each endpoint's last pause
  auto sink = [&](RecognizerEvent event) -> absl::Status {
    if (event.type == Type::kSpeechStart) last_pause.reset();
    if (event.type == Type::kPause) {
      EXPECT_FALSE(last_pause && last_pause->decided_at == event.decided_at) << "one report per pause";
      last_pause = std::move(event);
      return absl::OkStatus();
    }
    if (event.type != Type::kEndpoint) return absl::OkStatus();
    ++endpoints;
    if (!last_pause) {
      ADD_FAILURE() << "an endpoint without a pause before it";
      return absl::OkStatus();
    }
    // Reported once the speech had paused 150 ms, so about 350 ms before the
    // endpoint (the 500 ms hangover; the VAD counts 10 ms frames), with the
    // words heard up to the pause (the decoder may still revise the last one).
    EXPECT_TRUE(event.after_reported_pause);
    EXPECT_LE(last_pause->decided_at + MediaTime::Millis(330), event.decided_at);
    EXPECT_FALSE(last_pause->hypothesis.text.empty());
    EXPECT_EQ(last_pause->hypothesis.start, event.hypothesis.start);
    EXPECT_LE(last_pause->audio_start, last_pause->hypothesis.start);
    EXPECT_EQ(last_pause->audio_start + last_pause->audio.duration(), last_pause->decided_at);
    // The first session still has the utterance open: the second scores it.
    absl::StatusOr<AlternativesScore> score = recognizer->ScoreAudio(
        last_pause->audio, {"the price of this dress is low", last_pause->hypothesis.text});
    std::printf("pause at %s: \"%s\", endpoint \"%s\"\n", last_pause->decided_at.ToString().c_str(),
                last_pause->hypothesis.text.c_str(), event.hypothesis.text.c_str());
    EXPECT_OK(score);
    if (score.ok()) scored.push_back(score->best == 1 ? "heard" : "other");
    return absl::OkStatus();
  };
  // In 20 ms pieces, as live audio comes: each event is decided at the end of its piece.
  constexpr size_t kPiece = kAsrSampleRate / 50;
  for (size_t begin = 0; begin < input.samples.size(); begin += kPiece) {
    AudioBuffer piece{kAsrSampleRate, 1, {}};
    piece.samples.assign(input.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                         input.samples.begin() + static_cast<std::ptrdiff_t>(std::min(input.samples.size(), begin + kPiece)));
    ASSERT_OK(recognizer->Push(piece, sink));
  }
  ASSERT_OK(recognizer->Flush(sink));
  ASSERT_GE(endpoints, 2);
  EXPECT_EQ(scored, std::vector<std::string>(static_cast<size_t>(endpoints), "heard"));

  // Off (the default): no pauses, and no second session to score with.
  for (const RecognizerEvent& e : Recognize(*jfk, MediaTime::Millis(20))) EXPECT_NE(e.type, Type::kPause);
  absl::StatusOr<StreamingRecognizer> plain = StreamingRecognizer::Create(Model(), {});
  ASSERT_OK(plain);
  EXPECT_EQ(plain->ScoreAudio(*jfk, {"and so my fellow americans"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(StreamingRecognizerTest, ASinkErrorStopsThePush) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), {});
  ASSERT_OK(recognizer);
  int calls = 0;
  const absl::Status status = recognizer->Push(*jfk, [&](RecognizerEvent) {
    ++calls;
    return absl::CancelledError("the consumer went away");
  });
  EXPECT_TRUE(absl::IsCancelled(status)) << status;
  EXPECT_EQ(calls, 1);
}

TEST(StreamingRecognizerTest, FinalsDoNotDependOnChunking) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  const auto small = Recognize(*jfk, MediaTime::Millis(20));
  const auto large = Recognize(*jfk, MediaTime::Millis(130));
  const auto small_finals = Finals(small), large_finals = Finals(large);
  ASSERT_EQ(small_finals.size(), large_finals.size());
  for (size_t i = 0; i < small_finals.size(); ++i) {
    EXPECT_EQ(small_finals[i]->hypothesis.text, large_finals[i]->hypothesis.text);
    EXPECT_EQ(small_finals[i]->hypothesis.start, large_finals[i]->hypothesis.start);
  }
}

TEST(StreamingRecognizerTest, AnOpenUtteranceIsFinishedByFlush) {
  LOAD_SPEECH_OR_SKIP(jfk, kJfk);
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), {});
  ASSERT_OK(recognizer);
  // The input ends in the middle of a word: feed 20 ms pieces until a second of
  // speech has been heard, then stop.
  size_t fed = 0;
  const size_t step = kAsrSampleRate / 50;
  while (fed + step <= jfk->samples.size() && !(recognizer->in_speech() && fed > kAsrSampleRate * 2)) {
    AudioBuffer chunk{kAsrSampleRate, 1, {}};
    chunk.samples.assign(jfk->samples.begin() + fed, jfk->samples.begin() + fed + step);
    ASSERT_OK(recognizer->Push(chunk));
    fed += step;
  }
  ASSERT_TRUE(recognizer->in_speech());
  absl::StatusOr<std::vector<RecognizerEvent>> rest = recognizer->Flush();
  ASSERT_OK(rest);
  ASSERT_FALSE(rest->empty());
  EXPECT_EQ(rest->back().type, Type::kFinal);
  EXPECT_FALSE(rest->back().hypothesis.text.empty());
  // Decided where the input ended (a live pipeline measures from there).
  const MediaTime input_end = MediaTime::FromSamples(static_cast<int64_t>(fed), kAsrSampleRate);
  EXPECT_EQ(rest->back().decided_at, input_end);
  EXPECT_LE(rest->back().hypothesis.end, input_end);
  EXPECT_FALSE(recognizer->in_speech());
}

TEST(StreamingRecognizerTest, AudioOfAnotherRateIsRefusedWithoutLosingState) {
  absl::StatusOr<StreamingRecognizer> recognizer = StreamingRecognizer::Create(Model(), {});
  ASSERT_OK(recognizer);
  ASSERT_OK(recognizer->Push(Silence(MediaTime::Millis(500))));
  AudioBuffer wrong{48000, 1, std::vector<float>(480, 0.0f)};
  absl::StatusOr<std::vector<RecognizerEvent>> refused = recognizer->Push(wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("48000"), std::string::npos) << refused.status();
  EXPECT_EQ(recognizer->position(), MediaTime::Millis(500));
}

TEST(StreamingRecognizerTest, BadOptionsAreRefused) {
  StreamingRecognizerOptions options;
  options.partial_interval = MediaTime::Millis(1);
  absl::StatusOr<StreamingRecognizer> bad = StreamingRecognizer::Create(Model(), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("partial interval"), std::string::npos) << bad.status();
  options = {};
  options.vad.aggressiveness = 7;
  EXPECT_EQ(StreamingRecognizer::Create(Model(), options).status().code(), absl::StatusCode::kInvalidArgument);
  // A pause as long as the hangover is an endpoint, never a pause.
  options = {};
  options.pause_hypothesis_after = options.vad.hangover;
  bad = StreamingRecognizer::Create(Model(), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("shorter than the VAD hangover"), std::string::npos) << bad.status();
  options.pause_hypothesis_after = MediaTime::Millis(-1);
  EXPECT_EQ(StreamingRecognizer::Create(Model(), options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace lingcast
