#include "tts/espeak_engine.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_matchers.h"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;


SynthesisResult Speak(const std::string& text, Language language, double rate = 1.0, double pitch = 1.0,
                      double volume = 1.0) {
  SynthesisRequest request;
  request.text = text;
  request.language = language;
  request.rate = rate;
  request.pitch = pitch;
  request.volume = volume;
  auto result = TestEspeakEngine().Synthesize(request);
  EXPECT_OK(result);
  return result.ok() ? *std::move(result) : SynthesisResult{};
}

double Rms(const AudioBuffer& audio) {
  double sum = 0;
  for (const float s : audio.samples) sum += static_cast<double>(s) * s;
  return audio.samples.empty() ? 0 : std::sqrt(sum / audio.samples.size());
}

double Peak(const AudioBuffer& audio) {
  float peak = 0;
  for (const float s : audio.samples) peak = std::max(peak, std::fabs(s));
  return peak;
}

// Speech level in dB: RMS over the 20 ms frames that are not near-silent, so
// pauses do not count (a crude active speech level).
double SpeechLevelDb(const AudioBuffer& audio) {
  const size_t frame = static_cast<size_t>(audio.sample_rate / 50);
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i + frame <= audio.samples.size(); i += frame) {
    double energy = 0;
    for (size_t k = i; k < i + frame; ++k) energy += static_cast<double>(audio.samples[k]) * audio.samples[k];
    energy /= static_cast<double>(frame);
    if (energy < 1e-4) continue;  // below -40 dBFS: a pause
    sum += energy;
    ++count;
  }
  return count == 0 ? -120 : 10 * std::log10(sum / static_cast<double>(count));
}

// Median fundamental frequency of the voiced 40 ms frames, by autocorrelation
// over lags of 60-400 Hz (crude, but enough to see a pitch change).
double MedianF0(const AudioBuffer& audio) {
  const int rate = audio.sample_rate;
  const size_t frame = static_cast<size_t>(rate / 25);
  const int min_lag = rate / 400;
  const int max_lag = rate / 60;
  std::vector<double> f0s;
  for (size_t i = 0; i + frame + static_cast<size_t>(max_lag) <= audio.samples.size(); i += frame) {
    const float* x = audio.samples.data() + i;
    double energy = 0;
    for (size_t k = 0; k < frame; ++k) energy += static_cast<double>(x[k]) * x[k];
    if (energy / static_cast<double>(frame) < 1e-3) continue;
    int best_lag = 0;
    double best = 0;
    for (int lag = min_lag; lag <= max_lag; ++lag) {
      double c = 0;
      for (size_t k = 0; k < frame; ++k) c += static_cast<double>(x[k]) * x[k + static_cast<size_t>(lag)];
      if (c > best) {
        best = c;
        best_lag = lag;
      }
    }
    if (best > 0.5 * energy) f0s.push_back(static_cast<double>(rate) / best_lag);  // voiced
  }
  if (f0s.empty()) return 0;
  std::nth_element(f0s.begin(), f0s.begin() + static_cast<std::ptrdiff_t>(f0s.size() / 2), f0s.end());
  return f0s[f0s.size() / 2];
}

std::string Phonemes(const SynthesisResult& r) {
  std::vector<std::string> names;
  for (const PhonemeEvent& p : r.track.phonemes) names.push_back(p.phoneme);
  return absl::StrJoin(names, " ");
}

// The invariants every synthesis must keep for the lipsync and subtitle stages.
void ExpectWellFormed(const SynthesisResult& r, const std::string& text) {
  EXPECT_EQ(r.audio.sample_rate, TestEspeakEngine().sample_rate());
  EXPECT_GT(Rms(r.audio), 0.01) << "audio is silent";
  ASSERT_FALSE(r.track.phonemes.empty());
  const MediaTime end = r.audio.duration();
  MediaTime previous_end = MediaTime::Zero();
  for (const PhonemeEvent& p : r.track.phonemes) {
    EXPECT_FALSE(p.phoneme.empty());
    EXPECT_GE(p.start, previous_end) << p.phoneme << " overlaps the phoneme before it";
    EXPECT_GT(p.duration, MediaTime::Zero()) << p.phoneme;
    EXPECT_LE(p.start + p.duration, end);
    previous_end = p.start + p.duration;
  }
  for (size_t i = 0; i < r.track.words.size(); ++i) {
    const WordBoundary& w = r.track.words[i];
    EXPECT_LE(w.start, end);
    if (i > 0) {
      EXPECT_GE(w.start, r.track.words[i - 1].start);
    }
    EXPECT_GE(w.text_offset, 0);
    EXPECT_GT(w.text_length, 0);
    EXPECT_LE(w.text_offset + w.text_length, static_cast<int>(text.size()));
  }
}

std::vector<std::string> Words(const SynthesisResult& r, const std::string& text) {
  std::vector<std::string> words;
  for (const WordBoundary& w : r.track.words) words.push_back(text.substr(w.text_offset, w.text_length));
  return words;
}

TEST(EspeakEngineTest, EnglishSpeechWithPhonemesAndWords) {
  const std::string text = "Hello world, this is a test.";
  const SynthesisResult r = Speak(text, Language::kEn);
  ExpectWellFormed(r, text);
  EXPECT_GT(r.audio.duration(), MediaTime::Millis(1000));
  EXPECT_LT(r.audio.duration(), MediaTime::Millis(4000));
  EXPECT_EQ(r.track.language, Language::kEn);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("Hello", "world", "this", "is", "a", "test"));
  EXPECT_THAT(Phonemes(r), HasSubstr("h ə l oʊ"));
}

TEST(EspeakEngineTest, MandarinThroughThePinyinVoice) {
  const std::string text = "大家好，欢迎来到直播间。";
  const SynthesisResult r = Speak(text, Language::kZh);
  ExpectWellFormed(r, text);
  EXPECT_GT(r.audio.duration(), MediaTime::Millis(1500));
  EXPECT_LT(r.audio.duration(), MediaTime::Millis(6000));
  EXPECT_EQ(r.track.language, Language::kZh);
  EXPECT_THAT(Words(r, text),
              ::testing::ElementsAre("大", "家", "好", "欢", "迎", "来", "到", "直", "播", "间"));
}

TEST(EspeakEngineTest, PolyphoneReadingComesFromContext) {
  // 行 is hang2 (χ a ŋ) in 银行 and xing2 (ɕ i ŋ) in 行走.
  const std::string bank = Phonemes(Speak("银行", Language::kZh));
  const std::string walk = Phonemes(Speak("行走", Language::kZh));
  EXPECT_THAT(bank, HasSubstr("χ a ŋ")) << bank;
  EXPECT_THAT(walk, HasSubstr("ɕ i ŋ")) << walk;
  EXPECT_THAT(bank, ::testing::Not(HasSubstr("ɕ"))) << bank;
}

TEST(EspeakEngineTest, MandarinPhonemesAreIpa) {
  // 吃 chi1, 是 shi4, 怕 pa4: espeak-ng says "ts.h i.", "s. i.", "ph ɑ".
  const std::string phonemes = Phonemes(Speak("吃是怕", Language::kZh));
  EXPECT_THAT(phonemes, HasSubstr("tʂʰ ɨ")) << phonemes;
  EXPECT_THAT(phonemes, HasSubstr("ʂ ɨ")) << phonemes;
  EXPECT_THAT(phonemes, HasSubstr("pʰ ɑ")) << phonemes;
  EXPECT_THAT(phonemes, ::testing::Not(HasSubstr("."))) << phonemes;
}

TEST(EspeakEngineTest, EnglishWordInsideChineseUsesTheEnglishVoice) {
  const std::string text = "我爱iPhone手机";
  const SynthesisResult r = Speak(text, Language::kZh);
  ExpectWellFormed(r, text);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("我", "爱", "iPhone", "手", "机"));
  EXPECT_THAT(Phonemes(r), HasSubstr("f oʊ n")) << Phonemes(r);
}

TEST(EspeakEngineTest, ChineseInsideEnglishUsesTheMandarinVoice) {
  const std::string text = "Buy it on 淘宝 today.";
  const SynthesisResult r = Speak(text, Language::kEn);
  ExpectWellFormed(r, text);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("Buy", "it", "on", "淘", "宝", "today"));
}

TEST(EspeakEngineTest, NumbersInChineseAreSpokenAndMapToTheDigits) {
  const std::string text = "只要99元";
  const SynthesisResult r = Speak(text, Language::kZh);
  ExpectWellFormed(r, text);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("只", "要", "99", "元"));
}

TEST(EspeakEngineTest, FasterRateGivesShorterSpeech) {
  const std::string text = "The quick brown fox jumps over the lazy dog.";
  EXPECT_LT(Speak(text, Language::kEn, 2.0).audio.duration(),
            Speak(text, Language::kEn, 1.0).audio.duration());
}

TEST(EspeakEngineTest, SlowerRateGivesLongerSpeechInBothLanguages) {
  const SynthesisResult en_slow = Speak("Welcome to the show.", Language::kEn, 0.5);
  const SynthesisResult en = Speak("Welcome to the show.", Language::kEn);
  const SynthesisResult zh_slow = Speak("欢迎来到直播间。", Language::kZh, 0.5);
  const SynthesisResult zh = Speak("欢迎来到直播间。", Language::kZh);
  EXPECT_GT(en_slow.audio.duration().seconds(), 1.4 * en.audio.duration().seconds());
  EXPECT_GT(zh_slow.audio.duration().seconds(), 1.4 * zh.audio.duration().seconds());
}

TEST(EspeakEngineTest, VolumeScalesThePeak) {
  const std::string text = "Good evening everyone.";
  const double full = Peak(Speak(text, Language::kEn).audio);
  const double half = Peak(Speak(text, Language::kEn, 1.0, 1.0, 0.5).audio);
  ASSERT_GT(full, 0.1);
  EXPECT_NEAR(half / full, 0.5, 0.05);
  EXPECT_EQ(Peak(Speak(text, Language::kEn, 1.0, 1.0, 0.0).audio), 0.0);
  // Louder than full scale clips instead of wrapping around.
  EXPECT_LE(Peak(Speak(text, Language::kEn, 1.0, 1.0, 4.0).audio), 1.0);
}

TEST(EspeakEngineTest, PitchRaisesTheFundamental) {
  for (const auto& [text, language] :
       {std::pair<std::string, Language>{"Hello there, how are you today?", Language::kEn},
        std::pair<std::string, Language>{"大家好，今天天气很好。", Language::kZh}}) {
    const double normal = MedianF0(Speak(text, language).audio);
    const double high = MedianF0(Speak(text, language, 1.0, 1.6).audio);
    const double low = MedianF0(Speak(text, language, 1.0, 0.4).audio);
    ASSERT_GT(normal, 60) << text;
    EXPECT_GT(high, 1.15 * normal) << text << ": " << low << " " << normal << " " << high;
    EXPECT_LT(low, normal / 1.1) << text << ": " << low << " " << normal << " " << high;
  }
}

TEST(EspeakEngineTest, TheTwoVoicesSpeakAtTheSameLevel) {
  const double en = SpeechLevelDb(
      Speak("Good evening everyone, welcome to our live show. Today we have great deals on phones.", Language::kEn)
          .audio);
  const double zh = SpeechLevelDb(Speak("大家晚上好，欢迎来到我们的直播间。今天手机和电脑都有优惠。", Language::kZh).audio);
  EXPECT_NEAR(en, zh, 1.0) << "en " << en << " dB, zh " << zh << " dB";
  // Neither is near clipping at the default volume.
  EXPECT_LT(Peak(Speak("大家晚上好，欢迎来到我们的直播间。", Language::kZh).audio), 0.95);
}

TEST(EspeakEngineTest, MandarinDefaultsToASlowerRate) {
  // The same pinyin voice at the English default rate would be shorter: the
  // Mandarin default (0.9) slows it.
  EspeakOptions options;
  options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  options.zh.rate = 1.0;
  auto unslowed = EspeakEngine::Create(options);
  ASSERT_OK(unslowed);
  SynthesisRequest request;
  request.text = "欢迎来到直播间，今天的优惠很多。";
  request.language = Language::kZh;
  auto fast = (*unslowed)->Synthesize(request);
  ASSERT_OK(fast);
  EXPECT_GT(Speak(request.text, Language::kZh).audio.duration(), fast->audio.duration());
}

TEST(EspeakEngineTest, ModelNamesInChineseAreReadInEnglish) {
  const std::string text = "RTX 4090显卡";
  const SynthesisResult r = Speak(text, Language::kZh);
  ExpectWellFormed(r, text);
  // forty ninety, by the English voice (f ɔː ɹ t i), not si4 ling2 jiu3 ling2.
  EXPECT_THAT(Phonemes(r), HasSubstr("n aɪ n t i")) << Phonemes(r);
  EXPECT_THAT(Phonemes(r), ::testing::Not(HasSubstr("l i ŋ"))) << Phonemes(r);
  EXPECT_THAT(Words(r, text), ::testing::Contains("4090"));
  const std::string phone = "我的iPhone 15 Pro";
  const SynthesisResult p = Speak(phone, Language::kZh);
  EXPECT_THAT(Phonemes(p), HasSubstr("f ɪ f t iː n")) << Phonemes(p);
  EXPECT_THAT(Words(p, phone), ::testing::ElementsAre("我", "的", "iPhone", "15", "Pro"));
}

TEST(EspeakEngineTest, AcronymsAreSpelled) {
  const std::string text = "USB接口和LED灯";
  const SynthesisResult r = Speak(text, Language::kZh);
  ExpectWellFormed(r, text);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("USB", "接", "口", "和", "LED", "灯"));
  // U S B and L E D letter by letter ("ɛ l iː d iː"), not the word "led" (l ɛ d).
  EXPECT_THAT(Phonemes(r), HasSubstr("j uː ɛ s b iː")) << Phonemes(r);
  EXPECT_THAT(Phonemes(r), HasSubstr("l iː d iː")) << Phonemes(r);
  EXPECT_THAT(Phonemes(r), ::testing::Not(HasSubstr("l ɛ d"))) << Phonemes(r);
}

TEST(EspeakEngineTest, ChineseInsideEnglishIsNormalizedAsChinese) {
  // 小笼包 and 3件 (三件) by the Mandarin voice; 9元 is English: "nine yuan".
  const std::string text = "Try our 小笼包, buy 3件, only 9元 today.";
  const SynthesisResult r = Speak(text, Language::kEn);
  ExpectWellFormed(r, text);
  EXPECT_THAT(Words(r, text), ::testing::ElementsAre("Try", "our", "小", "笼", "包", "buy", "3", "件", "only",
                                                     "9元", "today"));
  EXPECT_THAT(Phonemes(r), HasSubstr("s a n")) << Phonemes(r);     // 三 san1
  EXPECT_THAT(Phonemes(r), HasSubstr("j uː ə n")) << Phonemes(r);  // yuan, in English
}

TEST(EspeakEngineTest, SessionSpeaksClauseByClauseAndCancels) {
  VoiceSettings settings;
  settings.language = Language::kZh;
  auto session = TestEspeakEngine().OpenSession(settings);
  ASSERT_OK(session);
  auto zh = (*session)->SynthesizeClause("大家好，", Language::kZh);
  ASSERT_OK(zh);
  ExpectWellFormed(*zh, "大家好，");
  // A clause in the other language uses that language's default voice.
  auto en = (*session)->SynthesizeClause("Welcome!", Language::kEn);
  ASSERT_OK(en);
  EXPECT_EQ(en->track.language, Language::kEn);
  EXPECT_THAT(Phonemes(*en), HasSubstr("w ɛ l")) << Phonemes(*en);
  (*session)->Cancel();
  EXPECT_TRUE((*session)->cancelled());
  EXPECT_EQ((*session)->SynthesizeClause("再见", Language::kZh).status().code(), absl::StatusCode::kCancelled);
}

TEST(EspeakEngineTest, CancelStopsASynthesisInProgress) {
  VoiceSettings settings;
  auto session = TestEspeakEngine().OpenSession(settings);
  ASSERT_OK(session);
  std::string long_text;
  // About 50 minutes of speech, several seconds of work: Cancel() comes long before
  // the end unless it does not work.
  for (int i = 0; i < 1000; ++i) long_text += "This sentence keeps the voice busy for a while. ";
  absl::StatusOr<SynthesisResult> result;
  std::thread speaker([&] { result = (*session)->SynthesizeClause(long_text, Language::kEn); });
  (*session)->Cancel();
  speaker.join();
  // Either it was cancelled before it started or while it ran: never a full result.
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  // Other sessions are unaffected.
  EXPECT_FALSE(Speak("still fine", Language::kEn).audio.empty());
}

TEST(EspeakEngineTest, EmptyTextIsEmptyAudio) {
  for (const Language lang : {Language::kEn, Language::kZh}) {
    const SynthesisResult r = Speak("", lang);
    EXPECT_TRUE(r.audio.empty());
    EXPECT_TRUE(r.track.phonemes.empty());
    EXPECT_EQ(r.audio.sample_rate, TestEspeakEngine().sample_rate());
  }
  EXPECT_TRUE(Speak("，。", Language::kZh).audio.empty());
}

TEST(EspeakEngineTest, UnknownVoiceIsAClearError) {
  SynthesisRequest request;
  request.text = "hello";
  request.voice = "xx-nope";
  const absl::Status status = TestEspeakEngine().Synthesize(request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "unknown espeak-ng voice 'xx-nope' (lingcast speaks with en-us, en-gb and cmn-latn-pinyin, each also "
            "with a variant such as en-us+klatt3; `espeak-ng --voices` lists all, `espeak-ng --voices=variant` the "
            "variants)");
  // A variant that does not exist, or a known variant of an unknown voice.
  for (const char* bad : {"en-us+nope", "xx-nope+klatt3", "en-us+"}) {
    request.voice = bad;
    EXPECT_THAT(TestEspeakEngine().Synthesize(request).status().message(),
                HasSubstr(absl::StrCat("unknown espeak-ng voice '", bad, "'")));
  }
  // A session checks its voice when it opens, before any text arrives.
  VoiceSettings settings;
  settings.voice = "xx-nope";
  EXPECT_EQ(TestEspeakEngine().OpenSession(settings).status().code(), absl::StatusCode::kInvalidArgument);
  EspeakOptions options;
  options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  options.default_voice_zh = "no-such-voice";
  EXPECT_THAT(EspeakEngine::Create(options).status().message(), HasSubstr("'no-such-voice'"));
}

TEST(EspeakEngineTest, ChosenVoiceIsUsed) {
  SynthesisRequest request;
  request.text = "water";
  request.voice = "en-gb";
  auto british = TestEspeakEngine().Synthesize(request);
  ASSERT_OK(british);
  EXPECT_NE(Phonemes(*british), Phonemes(Speak("water", Language::kEn)));
}

// Energy of the first difference over the signal's: how much of the sound is high frequencies.
double HighFrequencyShare(const std::vector<float>& samples) {
  double signal = 0, difference = 0;
  for (size_t i = 1; i < samples.size(); ++i) {
    signal += static_cast<double>(samples[i]) * samples[i];
    difference += static_cast<double>(samples[i] - samples[i - 1]) * (samples[i] - samples[i - 1]);
  }
  return signal > 0 ? difference / signal : 0;
}

// "en-us+klatt3": the same voice's phonemes, through the Klatt synthesizer
// (other samples); the variant's name is matched without regard to case.
TEST(EspeakEngineTest, VoiceVariantIsUsed) {
  SynthesisRequest request;
  request.text = "Good morning, everyone.";
  request.voice = "en-us";
  auto plain = TestEspeakEngine().Synthesize(request);
  ASSERT_OK(plain);
  request.voice = "en-us+Klatt3";
  auto klatt = TestEspeakEngine().Synthesize(request);
  ASSERT_OK(klatt);
  EXPECT_EQ(Phonemes(*klatt), Phonemes(*plain));
  // The Klatt synthesizer's voicing has far less energy at high frequencies.
  EXPECT_LT(HighFrequencyShare(klatt->audio.samples), 0.7 * HighFrequencyShare(plain->audio.samples));
  // And back: the plain voice again, as before (espeak-ng's noise sources and
  // pitch envelopes keep running between calls, so not to the sample: two
  // plain calls in a row differ by a few samples in length).
  request.voice = "en-us";
  auto again = TestEspeakEngine().Synthesize(request);
  ASSERT_OK(again);
  EXPECT_EQ(Phonemes(*again), Phonemes(*plain));
  EXPECT_NEAR(static_cast<double>(again->audio.samples.size()), static_cast<double>(plain->audio.samples.size()),
              0.01 * static_cast<double>(plain->audio.samples.size()));
  EXPECT_NEAR(HighFrequencyShare(again->audio.samples), HighFrequencyShare(plain->audio.samples),
              0.1 * HighFrequencyShare(plain->audio.samples));
}

TEST(EspeakEngineTest, BadParametersAreClearErrors) {
  SynthesisRequest request;
  request.text = "hello";
  request.rate = 0;
  EXPECT_THAT(TestEspeakEngine().Synthesize(request).status().message(), HasSubstr("speech rate 0 is out of range"));
  request.rate = 1;
  request.volume = -1;
  EXPECT_THAT(TestEspeakEngine().Synthesize(request).status().message(), HasSubstr("speech volume"));
  request.volume = 1;
  request.text = "bad \xff";
  EXPECT_EQ(TestEspeakEngine().Synthesize(request).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(EspeakEngineTest, ConcurrentCallsAreSerializedAndIndependent) {
  const SynthesisResult en = Speak("Good morning everyone.", Language::kEn);
  const SynthesisResult zh = Speak("早上好。", Language::kZh);
  SynthesisResult en_threaded, zh_threaded;
  {
    std::thread a([&] { en_threaded = Speak("Good morning everyone.", Language::kEn); });
    std::thread b([&] { zh_threaded = Speak("早上好。", Language::kZh); });
    a.join();
    b.join();
  }
  // espeak-ng carries a little state between utterances, so samples are not
  // bit-identical run to run; what was said must be.
  EXPECT_EQ(Phonemes(en_threaded), Phonemes(en));
  EXPECT_EQ(Phonemes(zh_threaded), Phonemes(zh));
  EXPECT_GT(Rms(en_threaded.audio), 0.01);
  EXPECT_GT(Rms(zh_threaded.audio), 0.01);
}

TEST(EspeakEngineTest, SecondEngineSharesTheRuntime) {
  EspeakOptions options;
  options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  auto second = EspeakEngine::Create(options);
  ASSERT_OK(second);
  EXPECT_EQ((*second)->sample_rate(), TestEspeakEngine().sample_rate());
  second->reset();
  // The first engine still works after the second is gone.
  EXPECT_FALSE(Speak("still here", Language::kEn).audio.empty());
}

TEST(EspeakEngineTest, MissingLexiconIsNotFound) {
  EspeakOptions options;
  options.lexicon_path = "/nonexistent/zh_lexicon.tsv";
  EXPECT_EQ(EspeakEngine::Create(options).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace lingcast
