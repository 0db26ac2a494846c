#include "tts/espeak_engine.h"

#include <cmath>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

EspeakEngine& Engine() {
  static const std::unique_ptr<EspeakEngine> engine = [] {
    EspeakOptions options;
    options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
    auto created = EspeakEngine::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *std::move(created) : nullptr;
  }();
  if (!engine) std::abort();
  return *engine;
}

SynthesisResult Speak(const std::string& text, Language language, double rate = 1.0) {
  SynthesisRequest request;
  request.text = text;
  request.language = language;
  request.rate = rate;
  auto result = Engine().Synthesize(request);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : SynthesisResult{};
}

double Rms(const AudioBuffer& audio) {
  double sum = 0;
  for (const float s : audio.samples) sum += static_cast<double>(s) * s;
  return audio.samples.empty() ? 0 : std::sqrt(sum / audio.samples.size());
}

std::string Phonemes(const SynthesisResult& r) {
  std::vector<std::string> names;
  for (const PhonemeEvent& p : r.track.phonemes) names.push_back(p.phoneme);
  return absl::StrJoin(names, " ");
}

// The invariants every synthesis must keep for the lipsync and subtitle stages.
void ExpectWellFormed(const SynthesisResult& r, const std::string& text) {
  EXPECT_EQ(r.audio.sample_rate, Engine().sample_rate());
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

TEST(EspeakEngineTest, EmptyTextIsEmptyAudio) {
  for (const Language lang : {Language::kEn, Language::kZh}) {
    const SynthesisResult r = Speak("", lang);
    EXPECT_TRUE(r.audio.empty());
    EXPECT_TRUE(r.track.phonemes.empty());
    EXPECT_EQ(r.audio.sample_rate, Engine().sample_rate());
  }
  EXPECT_TRUE(Speak("，。", Language::kZh).audio.empty());
}

TEST(EspeakEngineTest, UnknownVoiceIsAClearError) {
  SynthesisRequest request{"hello", Language::kEn, "xx-nope"};
  const absl::Status status = Engine().Synthesize(request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "unknown espeak-ng voice 'xx-nope' (see `espeak-ng --voices`)");
  EspeakOptions options;
  options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  options.default_voice_zh = "no-such-voice";
  EXPECT_THAT(EspeakEngine::Create(options).status().message(), HasSubstr("'no-such-voice'"));
}

TEST(EspeakEngineTest, ChosenVoiceIsUsed) {
  SynthesisRequest request{"water", Language::kEn, "en-gb"};
  auto british = Engine().Synthesize(request);
  ASSERT_TRUE(british.ok()) << british.status();
  EXPECT_NE(Phonemes(*british), Phonemes(Speak("water", Language::kEn)));
}

TEST(EspeakEngineTest, BadParametersAreClearErrors) {
  SynthesisRequest request{"hello", Language::kEn};
  request.rate = 0;
  EXPECT_THAT(Engine().Synthesize(request).status().message(), HasSubstr("speech rate 0 is out of range"));
  request.rate = 1;
  request.volume = -1;
  EXPECT_THAT(Engine().Synthesize(request).status().message(), HasSubstr("speech volume"));
  request.volume = 1;
  request.text = "bad \xff";
  EXPECT_EQ(Engine().Synthesize(request).status().code(), absl::StatusCode::kInvalidArgument);
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
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->sample_rate(), Engine().sample_rate());
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
