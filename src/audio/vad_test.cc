#include "audio/vad.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "audio/audio_decoder.h"
#include "audio/test_audio.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using ::lingcast::testing::SpeechFile;
using ::testing::HasSubstr;

constexpr int kRate = 16000;

// One utterance as the events describe it.
struct Utterance {
  MediaTime start;        // kSpeechStart.time
  MediaTime end;          // kSpeechEnd.time
  MediaTime audio_start;  // kSpeechStart.audio_start
  bool forced = false;
  std::vector<float> streamed;  // the kSpeechAudio pieces, joined
  std::vector<float> audio;     // kSpeechEnd.audio
};

std::vector<VadEvent> RunVad(VoiceActivityDetector& vad, const std::vector<float>& samples,
                             size_t chunk) {
  std::vector<VadEvent> events;
  AudioBuffer piece;
  piece.sample_rate = kRate;
  for (size_t i = 0; i < samples.size(); i += chunk) {
    piece.samples.assign(samples.begin() + static_cast<std::ptrdiff_t>(i),
                         samples.begin() + static_cast<std::ptrdiff_t>(std::min(samples.size(), i + chunk)));
    auto out = vad.Push(piece);
    EXPECT_OK(out);
    if (!out.ok()) return events;
    for (auto& e : *out) events.push_back(std::move(e));
  }
  for (auto& e : vad.Flush()) events.push_back(std::move(e));
  return events;
}

// Checks the event grammar (start, audio..., end) and the audio bookkeeping.
std::vector<Utterance> Utterances(const std::vector<VadEvent>& events) {
  std::vector<Utterance> out;
  bool open = false;
  for (const VadEvent& e : events) {
    switch (e.type) {
      case VadEvent::Type::kSpeechStart:
        EXPECT_FALSE(open) << "start inside an utterance at " << e.time.ToString();
        open = true;
        out.push_back(Utterance{e.time, MediaTime::Zero(), e.audio_start});
        EXPECT_LE(e.audio_start, e.time);
        EXPECT_TRUE(e.audio.empty());
        break;
      case VadEvent::Type::kSpeechAudio: {
        EXPECT_TRUE(open) << "audio outside an utterance at " << e.time.ToString();
        if (!open) break;
        Utterance& u = out.back();
        EXPECT_EQ(e.audio.sample_rate, kRate);
        EXPECT_EQ(e.audio_start,
                  u.audio_start + MediaTime::FromSamples(static_cast<int64_t>(u.streamed.size()), kRate));
        u.streamed.insert(u.streamed.end(), e.audio.samples.begin(), e.audio.samples.end());
        break;
      }
      case VadEvent::Type::kSpeechEnd:
        EXPECT_TRUE(open) << "end outside an utterance at " << e.time.ToString();
        if (!open) break;
        open = false;
        out.back().end = e.time;
        out.back().forced = e.forced;
        out.back().audio = e.audio.samples;
        EXPECT_EQ(e.audio_start, out.back().audio_start);
        EXPECT_GT(e.time, out.back().start);
        EXPECT_EQ(out.back().audio, out.back().streamed);  // the pieces add up to the whole
        break;
    }
  }
  EXPECT_FALSE(open) << "Flush left an utterance open";
  return out;
}

std::vector<float> Decode(const std::string& path) {
  auto audio = DecodeAudioFile(path);
  EXPECT_OK(audio);
  return audio.ok() ? audio->samples : std::vector<float>{};
}

std::vector<float> Silence(MediaTime duration) {
  return std::vector<float>(static_cast<size_t>(duration.ToSamples(kRate)), 0.0f);
}

std::vector<float> Concat(std::initializer_list<std::vector<float>> parts) {
  std::vector<float> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

VoiceActivityDetector MakeVad(const VadConfig& config = {}) {
  auto vad = VoiceActivityDetector::Create(config);
  EXPECT_OK(vad);
  return std::move(vad).value();
}

#define REQUIRE_SPEECH_DATA(path)                                                          \
  if ((path).empty()) GTEST_SKIP() << "../shared/data/speech is absent (a clone without " \
                                      "shared data): no real recordings to test on"

TEST(VadTest, SilenceGivesNoEvents) {
  VoiceActivityDetector vad = MakeVad();
  EXPECT_TRUE(Utterances(RunVad(vad, Silence(MediaTime::Seconds(5)), 1600)).empty());
  EXPECT_EQ(vad.voiced_frames(), 0);
}

TEST(VadTest, QuietHumGivesNoEvents) {
  // A steady 50 Hz hum at -40 dBFS is not speech.
  VoiceActivityDetector vad = MakeVad();
  EXPECT_TRUE(Utterances(RunVad(vad, testing::Sine(50.0, 0.01, kRate, 5 * kRate), 1600)).empty());
}

TEST(VadTest, FindsSpeechInEveryRecording) {
  for (const char* name : {"en-jfk.wav", "en-librispeech-6930-75918-0000.flac", "zh-IT0011W0001.wav",
                           "zh-aishell-BAC009S0764W0121.wav"}) {
    const std::string path = SpeechFile(name);
    REQUIRE_SPEECH_DATA(path);
    const std::vector<float> samples = Decode(path);
    const MediaTime length = MediaTime::FromSamples(static_cast<int64_t>(samples.size()), kRate);
    VoiceActivityDetector vad = MakeVad();
    const std::vector<Utterance> utterances = Utterances(RunVad(vad, samples, 1600));
    ASSERT_FALSE(utterances.empty()) << name;
    EXPECT_LT(utterances.front().start, MediaTime::Seconds(1)) << name;
    EXPECT_GT(utterances.back().end, length - MediaTime::Seconds(1)) << name;
    EXPECT_LE(utterances.back().end, length) << name;
    for (const Utterance& u : utterances) EXPECT_FALSE(u.forced) << name;
  }
}

TEST(VadTest, JfkPausesSplitTheSpeech) {
  // "And so, my fellow Americans ... ask not what your country can do for you ...
  // ask what you can do for your country": the pauses of 0.5 s and more separate them.
  const std::string path = SpeechFile("en-jfk.wav");
  REQUIRE_SPEECH_DATA(path);
  VoiceActivityDetector vad = MakeVad();
  const std::vector<Utterance> utterances = Utterances(RunVad(vad, Decode(path), 1600));
  EXPECT_GE(utterances.size(), 2u);
  EXPECT_LE(utterances.size(), 5u);
  for (size_t i = 1; i < utterances.size(); ++i) {
    EXPECT_GE(utterances[i].start - utterances[i - 1].end, MediaTime::Millis(500));
  }
}

TEST(VadTest, LongPauseBetweenRecordingsMakesTwoUtterances) {
  const std::string first_path = SpeechFile("zh-IT0011W0001.wav");
  const std::string second_path = SpeechFile("en-librispeech-6930-75918-0000.flac");
  REQUIRE_SPEECH_DATA(first_path);
  const std::vector<float> first = Decode(first_path);
  const std::vector<float> second = Decode(second_path);
  const MediaTime first_length = MediaTime::FromSamples(static_cast<int64_t>(first.size()), kRate);
  const MediaTime second_begins = first_length + MediaTime::Seconds(2);

  VoiceActivityDetector vad = MakeVad();
  const std::vector<Utterance> utterances =
      Utterances(RunVad(vad, Concat({first, Silence(MediaTime::Seconds(2)), second}), 3200));
  ASSERT_EQ(utterances.size(), 2u);
  EXPECT_LT(utterances[0].start, MediaTime::Seconds(1));
  EXPECT_GT(utterances[0].end, first_length - MediaTime::Seconds(1));
  EXPECT_LE(utterances[0].end, first_length + MediaTime::Millis(50));
  // Decisions are per 10 ms frame, so an edge is known to within one frame.
  EXPECT_GE(utterances[1].start, second_begins - MediaTime::Millis(10));
  EXPECT_LT(utterances[1].start, second_begins + MediaTime::Seconds(1));
  // The second utterance's pre-roll reaches back into the pause, not into the first.
  EXPECT_EQ(utterances[1].audio_start, utterances[1].start - MediaTime::Millis(300));
}

TEST(VadTest, PreRollIsIncludedInTheUtteranceAudio) {
  const std::string path = SpeechFile("zh-aishell-BAC009S0764W0121.wav");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> samples = Concat({Silence(MediaTime::Seconds(1)), Decode(path)});
  for (MediaTime pre_roll : {MediaTime::Zero(), MediaTime::Millis(300), MediaTime::Millis(750)}) {
    VadConfig config;
    config.pre_roll = pre_roll;
    VoiceActivityDetector vad = MakeVad(config);
    const std::vector<Utterance> utterances = Utterances(RunVad(vad, samples, 1600));
    ASSERT_FALSE(utterances.empty());
    const Utterance& u = utterances.front();
    EXPECT_GE(u.start, MediaTime::Seconds(1));
    EXPECT_EQ(u.audio_start, u.start - pre_roll);
    // The audio is the input from audio_start on, sample for sample.
    const size_t offset = static_cast<size_t>(u.audio_start.ToSamples(kRate));
    ASSERT_LE(offset + u.audio.size(), samples.size());
    EXPECT_TRUE(std::equal(u.audio.begin(), u.audio.end(), samples.begin() + static_cast<std::ptrdiff_t>(offset)));
    // It runs past the end of speech by the hangover (the time the end took to decide).
    const MediaTime audio_end =
        u.audio_start + MediaTime::FromSamples(static_cast<int64_t>(u.audio.size()), kRate);
    EXPECT_GE(audio_end, u.end);
  }
}

TEST(VadTest, PreRollStopsAtTheStartOfTheStream) {
  const std::string path = SpeechFile("zh-IT0011W0001.wav");
  REQUIRE_SPEECH_DATA(path);
  VoiceActivityDetector vad = MakeVad();
  const std::vector<Utterance> utterances = Utterances(RunVad(vad, Decode(path), 1600));
  ASSERT_FALSE(utterances.empty());
  EXPECT_LT(utterances[0].start, MediaTime::Millis(300));
  EXPECT_EQ(utterances[0].audio_start, MediaTime::Zero());
}

TEST(VadTest, MaxUtteranceForcesEndsWithoutLosingAudio) {
  const std::string path = SpeechFile("en-librispeech-6930-75918-0000.flac");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> samples = Decode(path);
  VadConfig config;
  config.max_utterance = MediaTime::Seconds(1);
  VoiceActivityDetector vad = MakeVad(config);
  const std::vector<Utterance> utterances = Utterances(RunVad(vad, samples, 1600));
  ASSERT_GE(utterances.size(), 3u);  // 3.5 s of continuous speech, cut every second
  int forced = 0;
  for (size_t i = 0; i < utterances.size(); ++i) {
    const Utterance& u = utterances[i];
    EXPECT_LE(u.end - u.start, MediaTime::Seconds(1)) << i;
    forced += u.forced ? 1 : 0;
    if (i > 0 && utterances[i - 1].forced) {
      // Speech that goes on after a cut starts again where the last audio ended:
      // no gap, no overlap.
      const Utterance& previous = utterances[i - 1];
      EXPECT_EQ(u.audio_start,
                previous.audio_start + MediaTime::FromSamples(static_cast<int64_t>(previous.audio.size()), kRate));
    }
  }
  EXPECT_GE(forced, 2);
  EXPECT_FALSE(utterances.back().forced);
}

TEST(VadTest, BurstsShorterThanMinSpeechAreDiscarded) {
  const std::string path = SpeechFile("en-librispeech-6930-75918-0000.flac");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> speech = Decode(path);
  // 120 ms from the middle of continuous speech, between two seconds of silence.
  const std::vector<float> burst(speech.begin() + 24000, speech.begin() + 24000 + 1920);
  const std::vector<float> samples =
      Concat({Silence(MediaTime::Seconds(2)), burst, Silence(MediaTime::Seconds(2))});

  VoiceActivityDetector strict = MakeVad();  // min_speech 200 ms
  EXPECT_TRUE(Utterances(RunVad(strict, samples, 1600)).empty());
  EXPECT_GT(strict.voiced_frames(), 0);  // it was heard, and judged too short

  VadConfig config;
  config.min_speech = MediaTime::Zero();
  VoiceActivityDetector eager = MakeVad(config);
  EXPECT_EQ(Utterances(RunVad(eager, samples, 1600)).size(), 1u);
}

TEST(VadTest, ChunkSizeDoesNotChangeTheEvents) {
  const std::string a = SpeechFile("en-jfk.wav");
  const std::string b = SpeechFile("zh-aishell-BAC009S0764W0121.wav");
  REQUIRE_SPEECH_DATA(a);
  const std::vector<float> samples = Concat({Decode(a), Silence(MediaTime::Seconds(2)), Decode(b)});
  VadConfig config;
  config.max_utterance = MediaTime::Seconds(3);  // forced ends must not depend on chunking either
  VoiceActivityDetector small = MakeVad(config);
  VoiceActivityDetector large = MakeVad(config);
  const std::vector<Utterance> by_7ms = Utterances(RunVad(small, samples, 112));
  const std::vector<Utterance> by_1s = Utterances(RunVad(large, samples, 16000));
  ASSERT_EQ(by_7ms.size(), by_1s.size());
  ASSERT_GE(by_7ms.size(), 3u);
  for (size_t i = 0; i < by_7ms.size(); ++i) {
    EXPECT_EQ(by_7ms[i].start, by_1s[i].start) << i;
    EXPECT_EQ(by_7ms[i].end, by_1s[i].end) << i;
    EXPECT_EQ(by_7ms[i].audio_start, by_1s[i].audio_start) << i;
    EXPECT_EQ(by_7ms[i].forced, by_1s[i].forced) << i;
    EXPECT_EQ(by_7ms[i].audio, by_1s[i].audio) << i;
  }
}

TEST(VadTest, AudioIsStreamedWhileSpeechContinues) {
  const std::string path = SpeechFile("en-librispeech-6930-75918-0000.flac");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> samples = Decode(path);
  VoiceActivityDetector vad = MakeVad();
  AudioBuffer piece;
  piece.sample_rate = kRate;
  bool started = false;
  int audio_events_before_end = 0;
  for (size_t i = 0; i + 1600 <= samples.size(); i += 1600) {
    piece.samples.assign(samples.begin() + static_cast<std::ptrdiff_t>(i),
                         samples.begin() + static_cast<std::ptrdiff_t>(i + 1600));
    auto events = vad.Push(piece);
    ASSERT_OK(events);
    for (const VadEvent& e : *events) {
      started |= e.type == VadEvent::Type::kSpeechStart;
      ASSERT_NE(e.type, VadEvent::Type::kSpeechEnd) << "ended inside continuous speech";
      if (e.type == VadEvent::Type::kSpeechAudio) {
        ++audio_events_before_end;
        // Each piece arrives with the push that completes it: never more than
        // the chunk plus one 10 ms frame held back, or the pre-roll at the start.
        EXPECT_LE(e.audio.frames(), 1600 + 160 + MediaTime::Millis(300).ToSamples(kRate));
      }
    }
  }
  EXPECT_TRUE(started);
  EXPECT_GT(audio_events_before_end, 20);  // one per 100 ms push while speech goes on
}

// A consumer may start its end-of-utterance work on a pause: each piece says
// how long the audio has been unvoiced at its end, which grows through the
// hangover to the endpoint and drops to 0 when speech is voiced again.
TEST(VadTest, PiecesSayHowLongTheSpeechHasPaused) {
  const std::string path = SpeechFile("en-librispeech-6930-75918-0000.flac");
  REQUIRE_SPEECH_DATA(path);
  const VadConfig config;
  VoiceActivityDetector vad = MakeVad(config);
  const std::vector<float> input = Concat({Decode(path), Silence(MediaTime::Seconds(1))});
  AudioBuffer piece;
  piece.sample_rate = kRate;
  std::vector<MediaTime> tails;      // of the pieces of the first utterance, in order
  std::vector<MediaTime> durations;  // of those pieces
  bool ended = false;
  for (size_t i = 0; i + 320 <= input.size() && !ended; i += 320) {
    piece.samples.assign(input.begin() + static_cast<std::ptrdiff_t>(i),
                         input.begin() + static_cast<std::ptrdiff_t>(i + 320));
    absl::StatusOr<std::vector<VadEvent>> events = vad.Push(piece);
    ASSERT_OK(events);
    for (const VadEvent& e : *events) {
      if (e.type == VadEvent::Type::kSpeechAudio) {
        tails.push_back(e.unvoiced_tail);
        durations.push_back(e.audio.duration());
      }
      ended |= e.type == VadEvent::Type::kSpeechEnd;
    }
  }
  ASSERT_TRUE(ended);
  ASSERT_GT(tails.size(), 30u);
  EXPECT_NE(std::count(tails.begin(), tails.end(), MediaTime::Zero()), 0) << "voiced pieces say 0";
  // The piece that ends the utterance has been unvoiced for the hangover, and
  // the pieces before it count up to it without a break.
  EXPECT_EQ(tails.back(), config.hangover);
  for (size_t k = tails.size() - 20; k + 1 < tails.size(); ++k) {
    EXPECT_EQ(tails[k + 1], tails[k] + durations[k + 1]) << "piece " << k;
  }
}

TEST(VadTest, FlushResetsForANewStream) {
  const std::string path = SpeechFile("zh-aishell-BAC009S0764W0121.wav");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> samples = Decode(path);
  VoiceActivityDetector vad = MakeVad();
  const std::vector<Utterance> first = Utterances(RunVad(vad, samples, 1600));
  EXPECT_EQ(vad.position(), MediaTime::Zero());
  const std::vector<Utterance> second = Utterances(RunVad(vad, samples, 1600));
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].start, second[i].start);
    EXPECT_EQ(first[i].end, second[i].end);
  }
}

TEST(VadTest, MoreAggressiveCallsLessSpeech) {
  const std::string path = SpeechFile("en-jfk.wav");
  REQUIRE_SPEECH_DATA(path);
  const std::vector<float> samples = Decode(path);
  VadConfig config;
  config.aggressiveness = 0;
  VoiceActivityDetector gentle = MakeVad(config);
  RunVad(gentle, samples, 1600);
  config.aggressiveness = 3;
  VoiceActivityDetector aggressive = MakeVad(config);
  RunVad(aggressive, samples, 1600);
  EXPECT_GT(gentle.voiced_frames(), 0);
  EXPECT_GE(gentle.voiced_frames(), aggressive.voiced_frames());
}

TEST(VadTest, WrongRateOrChannelsIsInvalidArgument) {
  VoiceActivityDetector vad = MakeVad();
  AudioBuffer wrong_rate = AudioBuffer::Silence(MediaTime::Millis(100), 48000);
  auto rate = vad.Push(wrong_rate);
  ASSERT_FALSE(rate.ok());
  EXPECT_EQ(rate.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rate.status().message(),
            "vad: input is 48000 Hz with 1 channel(s); the VAD takes 16000 Hz mono (resample first)");
  AudioBuffer stereo = AudioBuffer::Silence(MediaTime::Millis(100), 16000, 2);
  EXPECT_EQ(vad.Push(stereo).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(vad.position(), MediaTime::Zero());  // nothing consumed
}

TEST(VadTest, BadConfigIsInvalidArgumentNamingTheField) {
  struct Case {
    VadConfig config;
    const char* field;
  };
  std::vector<Case> cases(5);
  cases[0].config.aggressiveness = 4;
  cases[0].field = "aggressiveness 4";
  cases[1].config.pre_roll = MediaTime::Millis(-1);
  cases[1].field = "pre_roll";
  cases[2].config.hangover = MediaTime::Millis(5);
  cases[2].field = "hangover";
  cases[3].config.min_speech = MediaTime::Millis(-10);
  cases[3].field = "min_speech";
  cases[4].config.max_utterance = MediaTime::Millis(50);
  cases[4].field = "max_utterance";
  for (const Case& c : cases) {
    auto vad = VoiceActivityDetector::Create(c.config);
    ASSERT_FALSE(vad.ok()) << c.field;
    EXPECT_EQ(vad.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(vad.status().message(), HasSubstr(c.field));
  }
}

TEST(VadTest, EventTypeNames) {
  EXPECT_STREQ(VadEventTypeName(VadEvent::Type::kSpeechStart), "speech_start");
  EXPECT_STREQ(VadEventTypeName(VadEvent::Type::kSpeechAudio), "speech_audio");
  EXPECT_STREQ(VadEventTypeName(VadEvent::Type::kSpeechEnd), "speech_end");
}

}  // namespace
}  // namespace lingcast
