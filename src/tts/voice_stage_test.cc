#include "tts/voice_stage.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/status_matchers.h"
#include "graph/harness.h"
#include "tts/test_engine.h"
#include "tts/tts_stream.h"

namespace lingcast {
namespace {

// The voice's events with each line's parts joined into one (as the playout plays
// them): the line's first event, its speech all there, the last part's watermark.
std::vector<VoiceEvent> JoinParts(std::vector<VoiceEvent> events) {
  std::vector<VoiceEvent> joined;
  for (VoiceEvent& e : events) {
    if (e.spoken && e.spoken->part > 0) {
      EXPECT_FALSE(joined.empty());
      if (joined.empty()) continue;
      EXPECT_EQ(joined.back().spoken->line.id, e.spoken->line.id);
      AppendLinePart(*joined.back().spoken, *e.spoken);
      joined.back().watermark = e.watermark;
      joined.back().ended = std::move(e.ended);
      joined.back().caption = std::move(e.caption);
      continue;
    }
    joined.push_back(std::move(e));
  }
  return joined;
}

TEST(VoiceStageTest, LagPoliciesByName) {
  for (LagPolicy policy : {LagPolicy::kSpeedUp, LagPolicy::kShorten, LagPolicy::kSkip}) {
    const absl::StatusOr<LagPolicy> parsed = ParseLagPolicy(LagPolicyName(policy));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, policy);
  }
  const absl::StatusOr<LagPolicy> bad = ParseLagPolicy("panic");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "--lag-policy: unknown policy \"panic\" (expected speedup, shorten or skip)");
}

TEST(VoiceStageTest, SpeedUpGrowsFromHalfTheMaximumLag) {
  VoiceStageOptions options;
  options.max_lag = MediaTime::Seconds(4);
  options.max_speedup = 1.5;
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(1), options), 1.0);
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(2), options), 1.0);
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(3), options), 1.25);
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(4), options), 1.5);
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(9), options), 1.5);
  options.policy = LagPolicy::kSkip;
  EXPECT_DOUBLE_EQ(VoiceStage::SpeedUpRate(MediaTime::Seconds(4), options), 1.0);
}

TEST(VoiceStageTest, PaceRateEndsTheLineNearTheHostWithinTheSpeedUpCap) {
  VoiceStageOptions options;
  options.max_speedup = 1.5;
  options.pace_slack = MediaTime::Millis(800);
  const MediaTime start = MediaTime::Seconds(10);
  // 2 s of speech and 2.8 s to the host's end plus slack: the normal rate.
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 2.0, MediaTime::Seconds(12), options), 1.0);
  // 3 s of speech in 2.5 s: 1.2 times as fast.
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 3.0, MediaTime::Millis(11700), options), 1.2);
  // Far behind (or the host already done): the cap, never more.
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.5);
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 3.0, MediaTime::Seconds(8), options), 1.5);
  // Only the speedup policy keeps pace, and only when asked to.
  options.keep_pace = false;
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.0);
  options.keep_pace = true;
  options.policy = LagPolicy::kShorten;
  EXPECT_DOUBLE_EQ(VoiceStage::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.0);
}

TEST(VoiceStageTest, TheHostsEndIsExpectedFromTheCommitPoint) {
  HeardLine line;
  line.utterance_start = MediaTime::Seconds(20);
  line.decided_at = MediaTime::Seconds(21);
  EXPECT_FALSE(VoiceStage::ExpectedHostEnd(line));  // off script
  line.line_number = 3;
  line.commit_point = 0.25;  // a quarter heard in 1 s: 4 s in all
  EXPECT_EQ(VoiceStage::ExpectedHostEnd(line), MediaTime::Seconds(24));
  line.at_endpoint = true;  // the host has ended the line
  EXPECT_EQ(VoiceStage::ExpectedHostEnd(line), MediaTime::Seconds(21));
  line.at_endpoint = false;
  line.commit_point = 0.01;  // too little heard to tell
  EXPECT_FALSE(VoiceStage::ExpectedHostEnd(line));
}

// A script line committed early in a long host line: spoken at the normal rate;
// the same line committed late (the host almost done): faster, within the cap.
TEST(VoiceStageTest, AScriptLineKeepsTheHostsPace) {
  auto speak = [](double commit_point) {
    VoiceStageOptions options;
    StageHarness<VoiceStage> harness(std::make_unique<VoiceStage>(TestEspeakEngine(), options));
    auto feed = harness.Feed(harness.stage().in);
    auto sink = harness.Collect(harness.stage().out);
    EXPECT_OK(harness.Open());
    LiveEvent event;
    HeardLine line;
    line.line_number = 1;
    line.translation = "这条裙子有红色和黑色两种颜色";
    line.utterance_start = MediaTime::Seconds(10);
    line.decided_at = MediaTime::Seconds(11);
    line.commit_point = commit_point;
    event.line = line;
    event.watermark = line.decided_at;
    feed.Push(std::move(event), line.decided_at);
    feed.End();
    EXPECT_OK(harness.RunUntilFinished());
    const std::vector<VoiceEvent> out = JoinParts(sink.Values());
    EXPECT_EQ(out.size(), 1u);
    return out.empty() || !out[0].spoken ? 0.0 : out[0].spoken->rate;
  };
  EXPECT_DOUBLE_EQ(speak(0.2), 1.0);  // the host has 4 s more to go
  const double late = speak(0.9);     // ~0.1 s more
  EXPECT_GT(late, 1.2);
  EXPECT_LE(late, 1.5);
}

// Ten lines decided within half a second: far more speech than fits.
std::vector<VoiceEvent> Burst(LagPolicy policy) {
  VoiceStageOptions options;
  options.policy = policy;
  options.max_lag = MediaTime::Seconds(4);
  StageHarness<VoiceStage> harness(std::make_unique<VoiceStage>(TestEspeakEngine(), options));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  EXPECT_OK(harness.Open());
  for (int i = 0; i < 10; ++i) {
    LiveEvent event;
    HeardLine line;
    line.id = i;
    line.translation = "点击下方链接立即购买";
    line.decided_at = MediaTime::Millis(1000 + 50 * i);
    event.line = line;
    event.watermark = line.decided_at;
    feed.Push(std::move(event), line.decided_at);
  }
  feed.End();
  EXPECT_OK(harness.RunUntilFinished());
  return JoinParts(sink.Values());
}

TEST(VoiceStageTest, ABurstOfLinesNeverPlansMoreThanTheMaximumLag) {
  for (LagPolicy policy : {LagPolicy::kSpeedUp, LagPolicy::kShorten, LagPolicy::kSkip}) {
    const std::vector<VoiceEvent> events = Burst(policy);
    ASSERT_EQ(events.size(), 10u);
    int spoken = 0, skipped = 0;
    MediaTime previous_end;
    for (const VoiceEvent& e : events) {
      ASSERT_TRUE(e.spoken.has_value());
      const SpokenLine& s = *e.spoken;
      if (s.skipped) {
        ++skipped;
        EXPECT_TRUE(s.pcm.samples.empty());
        continue;
      }
      ++spoken;
      EXPECT_FALSE(s.pcm.samples.empty());
      EXPECT_LE(s.planned_start - s.line.decided_at, MediaTime::Seconds(4)) << LagPolicyName(policy);
      EXPECT_GE(s.planned_start, previous_end) << "lines are said in order, one at a time";
      previous_end = s.planned_start + s.pcm.duration();
    }
    EXPECT_GE(spoken, 2) << LagPolicyName(policy);
    EXPECT_GE(skipped, 1) << LagPolicyName(policy);
  }
}

TEST(VoiceStageTest, SpeedUpSpeaksFasterAndSaysNoLessOfABurstThanSkippingAlone) {
  auto count_spoken = [](const std::vector<VoiceEvent>& events) {
    int spoken = 0;
    for (const VoiceEvent& e : events) spoken += e.spoken && !e.spoken->skipped ? 1 : 0;
    return spoken;
  };
  const std::vector<VoiceEvent> fast = Burst(LagPolicy::kSpeedUp);
  EXPECT_GE(count_spoken(fast), count_spoken(Burst(LagPolicy::kSkip)));
  bool faster = false;
  for (const VoiceEvent& e : fast) faster |= e.spoken && e.spoken->rate > 1.0;
  EXPECT_TRUE(faster);
}

TEST(VoiceStageTest, ALineWithoutTranslationIsPassedOnSilent) {
  StageHarness<VoiceStage> harness(std::make_unique<VoiceStage>(TestEspeakEngine(), VoiceStageOptions{}));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_OK(harness.Open());
  LiveEvent event;
  event.line = HeardLine{};
  event.line->source_text = "an ad-lib nobody translated";
  feed.Push(std::move(event), MediaTime::Zero());
  feed.End();
  ASSERT_OK(harness.RunUntilFinished());
  const std::vector<VoiceEvent> out = sink.Values();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].spoken.has_value());
  EXPECT_TRUE(out[0].spoken->pcm.samples.empty());
  EXPECT_FALSE(out[0].spoken->skipped);
  EXPECT_FALSE(out[0].spoken->continues);  // whole: nothing follows
}

// A line of three clauses goes out clause by clause: the first part carries the
// line and its plan, the rest follow with its id, and only the last carries the
// input's watermark (the playout on the simulated clock waits for it). Joined,
// the parts are the line's speech as the voice streams it whole.
TEST(VoiceStageTest, ALineGoesOutPartByPartAsTheVoiceMakesIt) {
  const std::string text = "大家好，欢迎来到直播间，这条裙子有红色和黑色两种颜色。";
  StageHarness<VoiceStage> harness(std::make_unique<VoiceStage>(TestEspeakEngine(), VoiceStageOptions{}));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_OK(harness.Open());
  LiveEvent before;  // an event without a line, to set the watermark before it
  before.watermark = MediaTime::Millis(500);
  feed.Push(std::move(before), MediaTime::Zero());
  LiveEvent event;
  event.line = HeardLine{};
  event.line->id = 7;
  event.line->translation = text;
  event.line->decided_at = MediaTime::Seconds(1);
  event.watermark = MediaTime::Seconds(1);
  feed.Push(std::move(event), MediaTime::Seconds(1));
  feed.End();
  ASSERT_OK(harness.RunUntilFinished());
  const std::vector<VoiceEvent> out = sink.Values();
  ASSERT_GE(out.size(), 4u);  // the event before, three clauses, the closing part
  const std::vector<VoiceEvent> parts(out.begin() + 1, out.end());
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSERT_TRUE(parts[i].spoken.has_value());
    EXPECT_EQ(parts[i].spoken->line.id, 7);
    EXPECT_EQ(parts[i].spoken->part, static_cast<int>(i));
    EXPECT_EQ(parts[i].spoken->continues, i + 1 < parts.size());
    EXPECT_EQ(parts[i].watermark, i + 1 < parts.size() ? MediaTime::Millis(500) : MediaTime::Seconds(1));
  }
  EXPECT_FALSE(parts[0].spoken->pcm.samples.empty());
  EXPECT_EQ(parts[0].spoken->planned_start, MediaTime::Seconds(1));
  EXPECT_EQ(parts[0].spoken->line.translation, text);

  const std::vector<VoiceEvent> joined = JoinParts(out);
  ASSERT_EQ(joined.size(), 2u);
  const SpokenLine& line = *joined[1].spoken;
  EXPECT_FALSE(line.continues);
  EXPECT_EQ(joined[1].watermark, MediaTime::Seconds(1));
  // Phonemes are timed from the line's first sample, part after part: in order,
  // and the last clause's within the line's audio, after the first part's.
  const std::vector<PhonemeEvent>& phonemes = line.phonemes.phonemes;
  ASSERT_FALSE(phonemes.empty());
  for (size_t i = 1; i < phonemes.size(); ++i) EXPECT_LE(phonemes[i - 1].start, phonemes[i].start);
  EXPECT_GT(phonemes.back().start, parts[0].spoken->pcm.duration());
  EXPECT_LT(phonemes.back().start, line.pcm.duration());
}

// The watchdog's third rung: with the lighter voice taken, the lines planned
// from then on are said by it (here espeak-ng's British voice beside its
// American one, so the two can be told apart), and counted; without it, by the
// main voice.
TEST(VoiceStageTest, TheLighterVoiceSaysTheLinesWhileItIsTaken) {
  EspeakOptions british;
  british.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  british.default_voice_en = "en-gb";
  absl::StatusOr<std::unique_ptr<EspeakEngine>> lighter = EspeakEngine::Create(british);
  ASSERT_OK(lighter.status());
  const std::string text = "Welcome to the show, everyone.";
  auto say = [&](bool use_lighter, int64_t* lighter_lines) {
    VoiceStageOptions options;
    options.language = Language::kEn;
    options.keep_pace = false;
    auto stage = std::make_unique<VoiceStage>(TestEspeakEngine(), options, lighter->get());
    stage->UseLighterVoice(use_lighter);
    StageHarness<VoiceStage> harness(std::move(stage));
    auto feed = harness.Feed(harness.stage().in);
    auto sink = harness.Collect(harness.stage().out);
    EXPECT_OK(harness.Open());
    LiveEvent event;
    event.line = HeardLine{};
    event.line->id = 1;
    event.line->translation = text;
    feed.Push(std::move(event), MediaTime::Zero());
    feed.End();
    EXPECT_OK(harness.RunUntilFinished());
    *lighter_lines = harness.stage().lighter_lines();
    const std::vector<VoiceEvent> joined = JoinParts(sink.Values());
    EXPECT_EQ(joined.size(), 1u);
    return joined.empty() ? std::vector<float>{} : joined[0].spoken->pcm.samples;
  };
  // What the engine's own stream makes of the line, clause by clause, as the stage streams it.
  auto streamed = [&](TtsEngine& engine) {
    TtsStreamOptions options;
    options.voice.language = Language::kEn;
    absl::StatusOr<std::unique_ptr<TtsStream>> stream = TtsStream::Open(engine, options);
    EXPECT_OK(stream.status());
    std::vector<float> samples;
    if (!stream.ok()) return samples;
    EXPECT_OK((*stream)->Push(text));
    (*stream)->Finish();
    while (true) {
      absl::StatusOr<std::optional<SpeechPiece>> clause = (*stream)->Next([&](const SpeechPiece& part) {
        samples.insert(samples.end(), part.speech.audio.samples.begin(), part.speech.audio.samples.end());
        return absl::OkStatus();
      });
      EXPECT_OK(clause.status());
      if (!clause.ok() || !*clause) break;
    }
    return samples;
  };
  int64_t counted = -1;
  const std::vector<float> main_voice = say(false, &counted);
  EXPECT_EQ(counted, 0);
  const std::vector<float> lighter_voice = say(true, &counted);
  EXPECT_EQ(counted, 1);
  ASSERT_FALSE(main_voice.empty());
  ASSERT_FALSE(lighter_voice.empty());
  EXPECT_NE(main_voice, lighter_voice);
  // Each is its own engine's speech of the line: as long as the engine's own
  // stream of it (within 0.1%: the stage asks at its planned rate), and not as
  // long as the other voice's.
  const double main_streamed = static_cast<double>(streamed(TestEspeakEngine()).size());
  const double lighter_streamed = static_cast<double>(streamed(**lighter).size());
  ASSERT_GT(std::abs(main_streamed - lighter_streamed), 500);
  EXPECT_NEAR(static_cast<double>(main_voice.size()), main_streamed, 0.001 * main_streamed);
  EXPECT_NEAR(static_cast<double>(lighter_voice.size()), lighter_streamed, 0.001 * lighter_streamed);
}

}  // namespace
}  // namespace lingcast
