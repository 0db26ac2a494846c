// Unit tests of the live stages and report (live_job_test.cc runs the whole job).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/live_options.h"
#include "app/live_report.h"
#include "app/live_voice.h"
#include "graph/harness.h"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

LiveOptions Valid() {
  LiveOptions options;
  options.input = "host.wav";
  options.outputs = {"out.mp4"};
  return options;
}

TEST(LiveOptionsTest, DefaultsWithAnInputAndAnOutputAreValid) { EXPECT_TRUE(ValidateLiveOptions(Valid()).ok()); }

TEST(LiveOptionsTest, BadValuesNameTheFlag) {
  struct Case {
    std::function<void(LiveOptions&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](LiveOptions& o) { o.input.clear(); }, "no input"},
      {[](LiveOptions& o) { o.outputs.clear(); }, "no output"},
      {[](LiveOptions& o) { o.target = Language::kEn; }, "both en"},
      {[](LiveOptions& o) {
         o.source = Language::kZh;
         o.target = Language::kEn;
       },
       "no embedded Mandarin recognizer"},
      {[](LiveOptions& o) { o.fps = 0; }, "--fps"},
      {[](LiveOptions& o) { o.max_lag = MediaTime::Millis(100); }, "--max-lag"},
      {[](LiveOptions& o) { o.max_speedup = 3; }, "--max-speedup"},
      {[](LiveOptions& o) { o.rate = 5; }, "--rate"},
  };
  for (const Case& c : cases) {
    LiveOptions options = Valid();
    c.change(options);
    const absl::Status status = ValidateLiveOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
  }
  EXPECT_THAT(std::string(ParseLagPolicy("faster").status().message()), HasSubstr("speedup, shorten or skip"));
  EXPECT_THAT(std::string(ParseLiveClock("wall").status().message()), HasSubstr("realtime or simulated"));
}

TEST(LiveVoiceTest, SpeedUpGrowsFromHalfTheMaximumLag) {
  LiveVoiceOptions options;
  options.max_lag = MediaTime::Seconds(4);
  options.max_speedup = 1.5;
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(1), options), 1.0);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(2), options), 1.0);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(3), options), 1.25);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(4), options), 1.5);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(9), options), 1.5);
  options.policy = LagPolicy::kSkip;
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(4), options), 1.0);
}

// Ten lines decided within half a second: far more speech than fits.
std::vector<VoiceEvent> Burst(LagPolicy policy) {
  LiveVoiceOptions options;
  options.policy = policy;
  options.max_lag = MediaTime::Seconds(4);
  StageHarness<LiveVoice> harness(std::make_unique<LiveVoice>(TestEspeakEngine(), options));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  EXPECT_TRUE(harness.Open().ok());
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
  EXPECT_TRUE(harness.RunUntilFinished().ok());
  return sink.Values();
}

TEST(LiveVoiceTest, ABurstOfLinesNeverPlansMoreThanTheMaximumLag) {
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

TEST(LiveVoiceTest, SpeedUpSpeaksFasterAndSaysNoLessOfABurstThanSkippingAlone) {
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

TEST(LiveVoiceTest, ALineWithoutTranslationIsPassedOnSilent) {
  StageHarness<LiveVoice> harness(std::make_unique<LiveVoice>(TestEspeakEngine(), LiveVoiceOptions{}));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_TRUE(harness.Open().ok());
  LiveEvent event;
  event.line = HeardLine{};
  event.line->source_text = "an ad-lib nobody translated";
  feed.Push(std::move(event), MediaTime::Zero());
  feed.End();
  ASSERT_TRUE(harness.RunUntilFinished().ok());
  const std::vector<VoiceEvent> out = sink.Values();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].spoken.has_value());
  EXPECT_TRUE(out[0].spoken->pcm.samples.empty());
  EXPECT_FALSE(out[0].spoken->skipped);
}

TEST(LiveReportTest, PercentilesAreNearestRank) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);
  const Percentiles p = ComputePercentiles(values);
  EXPECT_EQ(p.count, 100);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p95, 95);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(ComputePercentiles({}).p95, 0);
  EXPECT_EQ(ComputePercentiles({7}).p99, 7);
}

TEST(LiveReportTest, OffsetsComeFromTheHostAndOutputTimes) {
  LiveMonitor monitor;
  SpokenLine spoken;
  spoken.line.id = 0;
  spoken.line.utterance = 3;
  spoken.line.line_number = 12;
  spoken.line.source_text = "Click the link below";
  spoken.line.translation = "点击下方链接";
  spoken.line.utterance_start = MediaTime::Millis(1000);
  spoken.line.commit_point = 0.4;
  monitor.LineQueued(spoken);
  monitor.SpeechStarted(0, MediaTime::Millis(2100), MediaTime::Millis(35), MediaTime::Millis(400));
  monitor.UtteranceEnd(UtteranceEnded{3, MediaTime::Millis(1000), MediaTime::Millis(2600), "click the link below"});
  monitor.SpeechEnded(0, MediaTime::Millis(3900));
  const nlohmann::json report = monitor.Report({}, {{"peak_rss_mb", 12.5}});
  ASSERT_EQ(report["utterances"].size(), 1u);
  const nlohmann::json& u = report["utterances"][0];
  EXPECT_EQ(u["line"], 12);
  EXPECT_EQ(u["start_offset_ms"], 1100.0);
  EXPECT_EQ(u["end_offset_ms"], 1300.0);
  EXPECT_EQ(u["compute_latency_ms"], 35.0);
  EXPECT_EQ(u["queue_wait_ms"], 400.0);
  const nlohmann::json& s = report["summary"];
  EXPECT_EQ(s["compute_latency_ms"]["p50"], 35.0);
  EXPECT_EQ(s["queue_wait_ms"]["p50"], 400.0);
  EXPECT_EQ(s["end_offset_ms"]["p95"], 1300.0);
  EXPECT_EQ(s["commit_point"]["p50"], 0.4);
  EXPECT_EQ(s["peak_rss_mb"], 12.5);
  EXPECT_EQ(s["audio_drops"], 0);
}

}  // namespace
}  // namespace lingcast
