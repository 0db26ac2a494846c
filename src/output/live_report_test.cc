#include "output/live_report.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include <optional>
#include <string>
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

// The report reads the folded lines' percentiles in place, from two sorted
// lists: the same nearest-rank values as sorting everything, for every split.
TEST(LiveReportTest, PercentilesOfTwoSortedListsAreThoseOfAllTheirValues) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> value(0, 50);  // ties on purpose
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<double> a(static_cast<size_t>(trial % 23)), b(static_cast<size_t>((trial * 7) % 31));
    for (double& v : a) v = value(random);
    for (double& v : b) v = value(random);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<double> all = a;
    all.insert(all.end(), b.begin(), b.end());
    const Percentiles want = ComputePercentiles(all);
    const Percentiles got = PercentilesOfSorted(a, b);
    EXPECT_EQ(got.count, want.count) << "trial " << trial;
    EXPECT_EQ(got.p50, want.p50) << "trial " << trial;
    EXPECT_EQ(got.p95, want.p95) << "trial " << trial;
    EXPECT_EQ(got.p99, want.p99) << "trial " << trial;
  }
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

// A day-long show: only the last kKeptRecords lines keep their records (and
// are listed), while every line's figures stay in the summary.
TEST(LiveReportTest, ALongShowListsItsLastLinesAndCountsThemAll) {
  LiveMonitor monitor;
  const int total = static_cast<int>(LiveMonitor::kKeptRecords) + 500;
  for (int id = 0; id < total; ++id) {
    SpokenLine spoken;
    spoken.line.id = id;
    spoken.line.utterance = id;
    spoken.line.line_number = id % 7 == 0 ? std::nullopt : std::optional<int>(id);  // every 7th off script
    spoken.line.source_text = "line " + std::to_string(id);
    spoken.line.translation = "第" + std::to_string(id) + "行";
    spoken.line.utterance_start = MediaTime::Seconds(10 * id);
    monitor.LineQueued(spoken);
    monitor.UtteranceEnd(UtteranceEnded{id, MediaTime::Seconds(10 * id), MediaTime::Seconds(10 * id + 2), "line"});
    // compute latency: 1 .. total ms in a shuffled order (7919 is prime to total), so the
    // percentiles over all lines are known and the folded values come out of order
    monitor.SpeechStarted(id, MediaTime::Seconds(10 * id + 3), MediaTime::Millis((id * 7919) % total + 1),
                          MediaTime::Zero());
    monitor.SpeechEnded(id, MediaTime::Seconds(10 * id + 5));
  }
  EXPECT_EQ(monitor.line_count(), total);
  const std::vector<LiveLineRecord> kept = monitor.records();
  ASSERT_EQ(kept.size(), LiveMonitor::kKeptRecords);
  EXPECT_EQ(kept.front().line.id, 500);
  EXPECT_EQ(kept.back().line.id, total - 1);
  ASSERT_TRUE(kept.front().utterance.has_value());  // its utterance's end was kept for it

  // A late word about a line no longer kept is dropped, not made a new record.
  monitor.SpeechEnded(3, MediaTime::Seconds(99999));
  EXPECT_EQ(monitor.records().size(), LiveMonitor::kKeptRecords);

  const nlohmann::json report = monitor.Report({}, nlohmann::json::object());
  const nlohmann::json& s = report["summary"];
  EXPECT_EQ(report["utterances"].size(), LiveMonitor::kKeptRecords);
  EXPECT_EQ(report["utterances"][0]["id"], 500);
  EXPECT_EQ(s["lines"], total);
  EXPECT_EQ(s["lines_not_listed"], 500);
  EXPECT_EQ(s["spoken"], total);
  EXPECT_EQ(s["off_script"], (total + 6) / 7);
  EXPECT_EQ(s["compute_latency_ms"]["p50"], static_cast<double>(total / 2));
  EXPECT_EQ(s["compute_latency_ms"]["p99"], static_cast<double>(total * 99 / 100));
  EXPECT_EQ(s["end_offset_ms"]["p50"], 3000.0);
}

}  // namespace
}  // namespace lingcast
