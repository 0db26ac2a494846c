#include "output/live_report.h"

#include <gtest/gtest.h>

#include <vector>

#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

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
