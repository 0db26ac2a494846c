#include "lipsync/audio_visemes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "audio/audio_decoder.h"
#include "core/status_matchers.h"
#include "lipsync/test_signals.h"
#include "lipsync/test_speech.h"
#include "lipsync/viseme_compare.h"
#include "lipsync/voiced_onsets.h"

namespace lingcast {
namespace {

AudioBuffer Silence(int ms) { return AudioBuffer::Silence(MediaTime::Millis(ms), 16000); }

AudioBuffer Scaled(AudioBuffer audio, float gain_db) {
  const float gain = std::pow(10.0f, gain_db / 20.0f);
  for (float& s : audio.samples) s *= gain;
  return audio;
}

// White noise at about `dbfs` added under the whole buffer: a quiet room.
void AddRoomNoise(AudioBuffer& audio, float dbfs) {
  const float amplitude = std::pow(10.0f, dbfs / 20.0f) * std::sqrt(3.0f);  // uniform noise: rms = a / sqrt(3)
  uint32_t state = 7;
  for (float& s : audio.samples) {
    state = state * 1664525u + 1013904223u;
    s += (static_cast<float>(state >> 8) / 8388608.0f - 1.0f) * amplitude;
  }
}

std::string Letters(const VisemeTrack& track) {
  std::string out;
  for (const VisemeCue& c : track.cues) out += VisemeLetter(c.shape);
  return out;
}

// Cue for cue: same shapes, same edges.
void ExpectSameCues(const VisemeTrack& a, const VisemeTrack& b, const std::string& label) {
  ASSERT_EQ(a.cues.size(), b.cues.size()) << label << ": " << Letters(a) << " vs " << Letters(b);
  for (size_t i = 0; i < a.cues.size(); ++i) {
    EXPECT_EQ(a.cues[i].shape, b.cues[i].shape) << label << " cue " << i;
    EXPECT_EQ(a.cues[i].start, b.cues[i].start) << label << " cue " << i;
    EXPECT_EQ(a.cues[i].end, b.cues[i].end) << label << " cue " << i;
  }
}

std::unique_ptr<EspeakEngine> Engine() {
  EspeakOptions options;
  // The lexicon the build made, unless the caller points elsewhere.
  if (std::getenv("LINGCAST_DATA_DIR") == nullptr) {
    options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  }
  absl::StatusOr<std::unique_ptr<EspeakEngine>> engine = EspeakEngine::Create(options);
  EXPECT_OK(engine);
  return engine.ok() ? std::move(*engine) : nullptr;
}

TEST(AudioVisemesTest, SilenceGivesOnlyRest) {
  absl::StatusOr<VisemeTrack> track = AudioToVisemes(Silence(2000));
  ASSERT_OK(track);
  EXPECT_TRUE(track->cues.empty());
  // Quiet noise (-70 dBFS) is not speech either.
  AudioBuffer noise = Silence(2000);
  uint32_t state = 1;
  for (float& s : noise.samples) {
    state = state * 1664525u + 1013904223u;
    s = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 0.0006f;
  }
  track = AudioToVisemes(noise);
  ASSERT_OK(track);
  EXPECT_TRUE(track->cues.empty()) << VisemeLetter(track->cues.front().shape);
}

TEST(AudioVisemesTest, BadRateOrSettingsAreRejected) {
  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
  ASSERT_OK(tracker);
  AudioBuffer wrong = AudioBuffer::Silence(MediaTime::Millis(100), 48000);
  absl::StatusOr<std::vector<VisemeCue>> cues = tracker->Push(wrong);
  ASSERT_FALSE(cues.ok());
  EXPECT_EQ(cues.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(cues.status().message().find("48000 Hz"), std::string::npos) << cues.status();
  EXPECT_EQ(tracker->decided_until(), MediaTime::Zero());  // nothing consumed

  AudioVisemeOptions options;
  options.lookahead = MediaTime::Millis(80);
  absl::StatusOr<AudioVisemeTracker> late = AudioVisemeTracker::Create(options);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.status().message().find("lookahead"), std::string::npos);
}

// en-jfk starts with 50 ms of digital silence and then a -42 dBFS hum for a
// quarter second before the voice: the mouth must not open on the hum (the
// noise floor learnt from the first faded-in frame is far below it), nor on a
// breath, and must open on the voice.
TEST(AudioVisemesTest, HumAfterDigitalSilenceAndBreathKeepTheMouthClosed) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(50), -100, 1);
  b.Hum(MediaTime::Millis(300), -42);
  b.Breath(MediaTime::Millis(300), -45);
  b.Hum(MediaTime::Millis(300), -42);
  const MediaTime voice = b.now();
  b.Vowel(MediaTime::Millis(300), 180, -15);
  b.Hum(MediaTime::Millis(400), -42);
  absl::StatusOr<VisemeTrack> track = AudioToVisemes(b.audio());
  ASSERT_OK(track);
  ASSERT_FALSE(track->cues.empty());
  const VisemeCue& first_open = *std::find_if(track->cues.begin(), track->cues.end(), [](const VisemeCue& c) {
    return c.shape != Viseme::kA && c.shape != Viseme::kX;
  });
  EXPECT_NEAR(first_open.start.micros(), voice.micros(), 34000) << first_open.start.ToString();
}

// The shape model's formant inputs: on a steady synthetic vowel with formant
// bumps at 500 and 1500 Hz, the LPC envelope's peaks land near them, and the
// periodicity of its 120 Hz voice is high.
TEST(AudioVisemesTest, FormantsAndPeriodicityOfASteadyVowel) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(300), -70, 1);
  b.Vowel(MediaTime::Millis(400), 120, -20, 500, 1500);
  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
  ASSERT_OK(tracker);
  tracker->EnableFeaturesLog();
  ASSERT_OK(tracker->Push(b.audio()));
  tracker->Flush();
  const std::vector<AudioFrameFeatures>& log = *tracker->features_log();
  ASSERT_GT(log.size(), 60u);
  for (size_t k = 40; k < 60; ++k) {  // 400-600 ms: inside the vowel, away from its edges
    EXPECT_NEAR(log[k].lpc_f1_hz, 500, 150) << "frame " << k;
    EXPECT_NEAR(log[k].lpc_f2_hz, 1500, 200) << "frame " << k;
    EXPECT_GT(log[k].periodicity, 0.8f) << "frame " << k;
  }
  EXPECT_LT(log[10].periodicity, 0.6f) << "noise is not voiced";
}

// Synthetic audio (a TTS clip, a test tone) starts and ends in exact zeros:
// there the room is digital silence, and sound straight after it is not the
// noise floor. A vowel after 0.5 s of zeros opens the mouth within a frame or
// two, at any level, and the zeros after it rest it.
TEST(AudioVisemesTest, SoundStraightAfterDigitalSilenceIsNotTheFloor) {
  for (float dbfs : {-15.0f, -45.0f}) {
    SignalBuilder b;
    b.Noise(MediaTime::Millis(500), -130, 1);
    const MediaTime voice = b.now();
    b.Vowel(MediaTime::Millis(800), 140, dbfs);
    const MediaTime voice_end = b.now();
    b.Noise(MediaTime::Millis(500), -130, 2);
    absl::StatusOr<VisemeTrack> track = AudioToVisemes(b.audio());
    ASSERT_OK(track);
    int open = 0, frames = 0;
    for (MediaTime t = voice + MediaTime::Millis(40); t < voice_end - MediaTime::Millis(20);
         t += MediaTime::Millis(10)) {
      ++frames;
      open += track->At(t) != Viseme::kX && track->At(t) != Viseme::kA;
    }
    EXPECT_EQ(open, frames) << dbfs << " dBFS";
    EXPECT_EQ(track->At(voice_end + MediaTime::Millis(200)), Viseme::kX) << dbfs << " dBFS";
  }
}

// A phrase of 3 s without a pause: vowels and weak unvoiced consonants (a
// breath-like noise 17 dB over the room) in turn. The noise floor must stay at
// the room's level through it (the fixed-level tracker's floor crept up 3 dB/s
// and learnt the consonants as the room, so they fell under the gate and the
// mouth shut mid-phrase), and the mouth stays open from the first vowel to the end.
TEST(AudioVisemesTest, FloorHoldsThroughALongPhraseWithoutPauses) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(500), -120, 1);  // replaced by the room noise below
  const MediaTime phrase = b.now();
  for (int i = 0; i < 12; ++i) {
    b.Vowel(MediaTime::Millis(180), 150, -25, i % 2 ? 700 : 400, i % 2 ? 1200 : 2000);
    b.Breath(MediaTime::Millis(70), -42);
  }
  b.Vowel(MediaTime::Millis(180), 150, -25);
  const MediaTime phrase_end = b.now();
  b.Noise(MediaTime::Millis(500), -120, 2);
  AudioBuffer audio = b.audio();
  AddRoomNoise(audio, -60);

  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
  ASSERT_OK(tracker);
  tracker->EnableFeaturesLog();
  VisemeTrack track;
  AppendCues(track, *tracker->Push(audio));
  AppendCues(track, tracker->Flush());
  const std::vector<AudioFrameFeatures>& log = *tracker->features_log();
  const auto last = static_cast<size_t>(phrase_end.micros() / 10000) - 2;
  ASSERT_LT(last, log.size());
  EXPECT_LT(log[last].floor_db, -56.0f) << "the floor rose through the phrase";
  for (MediaTime t = phrase + MediaTime::Millis(40); t < phrase_end - MediaTime::Millis(20); t += MediaTime::Millis(10)) {
    const Viseme v = track.At(t);
    EXPECT_TRUE(v != Viseme::kX && v != Viseme::kA) << "mouth shut at " << t.ToString();
  }
  EXPECT_EQ(track.At(phrase_end + MediaTime::Millis(300)), Viseme::kX);
}

// A fan switched on as the speaker stops: broadband noise 30 dB over the room,
// straight after a vowel, so it continues the "speech". Once it has gone
// 300 ms without a voiced frame it is the room: the floor learns it and the
// mouth rests.
TEST(AudioVisemesTest, NoiseThatNeverVoicesBecomesTheFloor) {
  SignalBuilder b;
  b.Noise(MediaTime::Millis(500), -70, 1);
  b.Vowel(MediaTime::Millis(300), 150, -20);
  const MediaTime fan = b.now();
  b.Noise(MediaTime::Millis(2000), -40, 2);
  absl::StatusOr<VisemeTrack> track = AudioToVisemes(b.audio());
  ASSERT_OK(track);
  for (MediaTime t = fan + MediaTime::Millis(800); t < b.now() - MediaTime::Millis(20); t += MediaTime::Millis(10)) {
    EXPECT_EQ(track->At(t), Viseme::kX) << "mouth open on the fan at " << t.ToString();
  }
}

class SpeechTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = Engine();
    if (engine_ == nullptr) GTEST_FAIL() << "espeak-ng engine could not be created";
  }
  SpokenSample Speak(const std::string& text, Language language) {
    absl::StatusOr<SpokenSample> sample = SpeakForLipSync(*engine_, text, language);
    EXPECT_OK(sample);
    return sample.ok() ? *sample : SpokenSample{};
  }
  std::unique_ptr<EspeakEngine> engine_;
};

TEST_F(SpeechTest, CausalWithBoundedLookaheadAndChunkingDoesNotMatter) {
  const SpokenSample sample = Speak("Welcome to the live stream, tap the button below.", Language::kEn);
  ASSERT_FALSE(sample.audio.empty());
  auto run = [&](int chunk_samples, bool check_latency) {
    absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
    VisemeTrack track;
    AudioBuffer chunk;
    chunk.sample_rate = 16000;
    int64_t pushed = 0;
    for (size_t i = 0; i < sample.audio.samples.size(); i += static_cast<size_t>(chunk_samples)) {
      const size_t end = std::min(sample.audio.samples.size(), i + static_cast<size_t>(chunk_samples));
      chunk.samples.assign(sample.audio.samples.begin() + static_cast<std::ptrdiff_t>(i),
                           sample.audio.samples.begin() + static_cast<std::ptrdiff_t>(end));
      pushed += static_cast<int64_t>(end - i);
      absl::StatusOr<std::vector<VisemeCue>> pieces = tracker->Push(chunk);
      EXPECT_OK(pieces);
      AppendCues(track, *pieces);
      if (check_latency) {
        // Everything older than 60 ms (plus the 10 ms frame in progress) is decided.
        EXPECT_GE(tracker->decided_until() + MediaTime::Millis(70), MediaTime::FromSamples(pushed, 16000));
      }
    }
    AppendCues(track, tracker->Flush());
    return track;
  };
  const VisemeTrack small = run(112, true);  // 7 ms pieces
  const VisemeTrack large = run(16000, false);
  ASSERT_EQ(small.cues.size(), large.cues.size());
  for (size_t i = 0; i < small.cues.size(); ++i) {
    EXPECT_EQ(small.cues[i].start, large.cues[i].start);
    EXPECT_EQ(small.cues[i].end, large.cues[i].end);
    EXPECT_EQ(small.cues[i].shape, large.cues[i].shape);
  }
}

// Speech, a 600 ms pause, speech: the mouth moves during speech and rests in
// the pause, in both languages.
void ExpectMovesInSpeechRestsInPause(const SpokenSample& first, const SpokenSample& second, const char* label) {
  AudioBuffer audio = first.audio;
  const MediaTime pause_start = audio.duration();
  const AudioBuffer pause = Silence(600);
  audio.samples.insert(audio.samples.end(), pause.samples.begin(), pause.samples.end());
  const MediaTime second_start = audio.duration();
  audio.samples.insert(audio.samples.end(), second.audio.samples.begin(), second.audio.samples.end());
  absl::StatusOr<VisemeTrack> track = AudioToVisemes(audio);
  ASSERT_OK(track);

  // Speech frames: where the phoneme-driven track shows an open mouth.
  int speech = 0, moving = 0;
  auto count = [&](const VisemeTrack& reference, MediaTime offset) {
    for (MediaTime t = MediaTime::Millis(5); t < reference.cues.back().end; t += MediaTime::Millis(10)) {
      const Viseme r = reference.At(t);
      if (r == Viseme::kX || r == Viseme::kA) continue;
      ++speech;
      const Viseme a = track->At(t + offset);
      moving += a != Viseme::kX;
    }
  };
  count(first.reference, MediaTime::Zero());
  count(second.reference, second_start);
  ASSERT_GT(speech, 50) << label;
  EXPECT_GT(static_cast<double>(moving) / speech, 0.85) << label;
  // The pause: X from 150 ms after the first sample's sound ends (espeak's own
  // trailing silence is part of `first`) to the second's start.
  const MediaTime sound_end = first.reference.cues.back().end;
  for (MediaTime t = sound_end + MediaTime::Millis(150); t < pause_start + MediaTime::Millis(550);
       t += MediaTime::Millis(10)) {
    EXPECT_EQ(track->At(t), Viseme::kX) << label << " at " << t.ToString();
  }
  // And the frames agree with the phoneme-driven track at least by mouth class
  // more often than not (the benchmark reports the exact figures).
  const TrackAgreement agreement =
      CompareTracks(first.reference, *track, first.reference.cues.front().start, sound_end, 30);
  EXPECT_GT(agreement.same_class, 0.5) << label;
}

TEST_F(SpeechTest, EnglishMovesInSpeechAndRestsInPauses) {
  ExpectMovesInSpeechRestsInPause(Speak("Hello everyone, welcome to the live stream.", Language::kEn),
                                  Speak("Today we have a special offer.", Language::kEn), "en");
}

TEST_F(SpeechTest, MandarinMovesInSpeechAndRestsInPauses) {
  ExpectMovesInSpeechRestsInPause(Speak("大家好，欢迎来到直播间。", Language::kZh),
                                  Speak("今天我们有特别优惠。", Language::kZh), "zh");
}

// The fitted shape model was fitted on SampleSentences only; on sentences it
// never saw it must still agree with the phoneme-driven track by mouth class
// more often than the hand-set rules do, in both languages.
TEST_F(SpeechTest, FittedShapesBeatHandRulesOnHeldOutSentences) {
  AudioVisemeOptions rules;
  rules.fitted_shapes = false;
  for (Language language : {Language::kEn, Language::kZh}) {
    double fitted = 0, hand = 0;
    for (const std::string& text : HeldOutSentences(language)) {
      const SpokenSample sample = Speak(text, language);
      ASSERT_FALSE(sample.reference.cues.empty()) << text;
      const MediaTime from = sample.reference.cues.front().start, to = sample.reference.cues.back().end;
      const TrackAgreement a = CompareTracks(sample.reference, *AudioToVisemes(sample.audio), from, to, 30);
      const TrackAgreement b = CompareTracks(sample.reference, *AudioToVisemes(sample.audio, rules), from, to, 30);
      fitted += a.same_class * a.frames;
      hand += b.same_class * b.frames;
    }
    EXPECT_GT(fitted, hand) << (language == Language::kZh ? "zh" : "en");
  }
}

// Level independence (issue 19): the same speech in the same room, turned down
// 20 dB or 6 dB, gets the same cues, edge for edge (every level decision is
// relative to the noise floor or the speaker's peak). The fixed-level tracker
// fails this (its -50 dBFS gate cuts the quiet copy's consonants).
TEST_F(SpeechTest, SameCuesAtAnyLevel) {
  for (Language language : {Language::kEn, Language::kZh}) {
    const bool zh = language == Language::kZh;
    AudioBuffer audio = Speak(zh ? "大家好，欢迎来到直播间。" : "Hello everyone, welcome to the live stream.", language).audio;
    ASSERT_FALSE(audio.empty());
    const AudioBuffer pause = Silence(500);
    audio.samples.insert(audio.samples.begin(), pause.samples.begin(), pause.samples.end());
    const AudioBuffer second = Speak(zh ? "今天我们有特别优惠。" : "Today we have a special offer.", language).audio;
    audio.samples.insert(audio.samples.end(), pause.samples.begin(), pause.samples.end());
    audio.samples.insert(audio.samples.end(), second.samples.begin(), second.samples.end());
    AddRoomNoise(audio, -65);
    absl::StatusOr<VisemeTrack> own = AudioToVisemes(audio);
    ASSERT_OK(own);
    ASSERT_GT(own->cues.size(), 10u);
    for (float gain : {-20.0f, -6.0f}) {
      absl::StatusOr<VisemeTrack> quieter = AudioToVisemes(Scaled(audio, gain));
      ASSERT_OK(quieter);
      ExpectSameCues(*own, *quieter, std::string(zh ? "zh " : "en ") + std::to_string(static_cast<int>(gain)) + " dB");
    }
    AudioVisemeOptions fixed;
    fixed.adapt_level = false;
    const TrackAgreement old_path = CompareTracks(*AudioToVisemes(audio, fixed),
                                                  *AudioToVisemes(Scaled(audio, -20), fixed), MediaTime::Zero(),
                                                  audio.duration(), 30);
    EXPECT_LT(old_path.exact, 0.95) << "the fixed-level tracker was level-independent here: the test shows nothing";
  }
}

TEST_F(SpeechTest, FlushResetsForTheNextStream) {
  const SpokenSample sample = Speak("Good morning.", Language::kEn);
  absl::StatusOr<AudioVisemeTracker> tracker = AudioVisemeTracker::Create();
  VisemeTrack first, second;
  AppendCues(first, *tracker->Push(sample.audio));
  AppendCues(first, tracker->Flush());
  AppendCues(second, *tracker->Push(sample.audio));
  AppendCues(second, tracker->Flush());
  ASSERT_FALSE(first.cues.empty());
  ASSERT_EQ(first.cues.size(), second.cues.size());
  for (size_t i = 0; i < first.cues.size(); ++i) EXPECT_EQ(first.cues[i].start, second.cues[i].start);
}

// The real recordings (../shared/data/speech), at their own level and 20 dB
// quieter: the mouth is open (not A or X) in >= 60% of the 30 fps frames of
// speech and rests (A or X) in >= 80% of the silent ones, with the same cues
// at both levels. Speech is the voiced-speech reference of the file at its own
// level (voiced_onsets.h); silence is outside it, 50 ms before and 200 ms after
// each span left out (the mouth may close late). The quiet AISHELL recording
// (peak -26 dBFS) was open in 7% of its speech 20 dB down before issue 19.
TEST(AudioVisemesRealSpeechTest, MouthOpensOnRealSpeechAtAnyLevel) {
  const std::filesystem::path dir = std::filesystem::path(LINGCAST_SOURCE_DIR) / ".." / "shared" / "data" / "speech";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " not found (../shared/data holds the recordings)";
  int files = 0;
  for (const char* name : {"zh-aishell-BAC009S0764W0121.wav", "zh-IT0011W0001.wav", "en-jfk.wav",
                           "en-librispeech-6930-75918-0000.flac"}) {
    absl::StatusOr<AudioBuffer> audio = DecodeAudioFile((dir / name).string(), 16000);
    if (!audio.ok()) continue;
    ++files;
    absl::StatusOr<VoicedSpeech> reference = FindVoicedSpeech(*audio);
    ASSERT_OK(reference) << name;
    absl::StatusOr<VisemeTrack> own = AudioToVisemes(*audio);
    absl::StatusOr<VisemeTrack> quieter = AudioToVisemes(Scaled(*audio, -20));
    ASSERT_TRUE(own.ok() && quieter.ok()) << name;
    ExpectSameCues(*own, *quieter, name);
    auto near_speech = [&](MediaTime t) {
      for (const auto& [a, b] : reference->segments) {
        if (t >= a - MediaTime::Millis(50) && t < b + MediaTime::Millis(200)) return true;
      }
      return false;
    };
    int speech = 0, open = 0, silent = 0, resting = 0;
    for (int k = 0;; ++k) {
      const MediaTime t = MediaTime::Micros(static_cast<int64_t>((k + 0.5) * 1e6 / 30));
      if (t >= audio->duration()) break;
      const Viseme v = quieter->At(t);
      const bool rest = v == Viseme::kA || v == Viseme::kX;
      if (reference->InSpeech(t)) {
        ++speech;
        open += !rest;
      } else if (!near_speech(t)) {
        ++silent;
        resting += rest;
      }
    }
    ASSERT_GT(speech, 20) << name;
    EXPECT_GE(open, 0.6 * speech) << name << ": open in " << open << " of " << speech << " speech frames";
    EXPECT_GE(resting, 0.8 * silent) << name << ": at rest in " << resting << " of " << silent << " silent frames";
  }
  EXPECT_GT(files, 0) << "no recording in " << dir << " could be decoded";
}

}  // namespace
}  // namespace lingcast
