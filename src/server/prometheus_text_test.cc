#include "server/prometheus_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace lingcast {
namespace {

TEST(PrometheusTextTest, GaugesAndCountersWithHelpAndTypeOncePerFamily) {
  PrometheusText text;
  text.Gauge("lingcast_sessions", "Live sessions running.", 3);
  text.Counter("lingcast_http_responses_total", "HTTP responses by status class.", 12, {{"code", "2xx"}});
  text.Gauge("lingcast_cpu_ratio", "CPU used.", 0.25);
  // Added later, printed with its family.
  text.Counter("lingcast_http_responses_total", "ignored: the first help stays", 1, {{"code", "4xx"}});
  EXPECT_EQ(text.str(),
            "# HELP lingcast_sessions Live sessions running.\n"
            "# TYPE lingcast_sessions gauge\n"
            "lingcast_sessions 3\n"
            "# HELP lingcast_http_responses_total HTTP responses by status class.\n"
            "# TYPE lingcast_http_responses_total counter\n"
            "lingcast_http_responses_total{code=\"2xx\"} 12\n"
            "lingcast_http_responses_total{code=\"4xx\"} 1\n"
            "# HELP lingcast_cpu_ratio CPU used.\n"
            "# TYPE lingcast_cpu_ratio gauge\n"
            "lingcast_cpu_ratio 0.25\n");
}

TEST(PrometheusTextTest, EscapesLabelValuesAndHelp) {
  PrometheusText text;
  text.Gauge("m", "a \\ b\nc \"q\"", 1, {{"path", "C:\\x \"y\"\nz"}, {"b", "2"}});
  EXPECT_EQ(text.str(),
            "# HELP m a \\\\ b\\nc \"q\"\n"
            "# TYPE m gauge\n"
            "m{path=\"C:\\\\x \\\"y\\\"\\nz\",b=\"2\"} 1\n");
}

TEST(PrometheusTextTest, AHistogramHasEachBucketThenInfSumAndCount) {
  PrometheusText text;
  text.Histogram("lingcast_latency_seconds", "End-to-end latency.", {0.5, 1, 2.5}, {2, 5, 5}, 7.25, 6,
                 {{"stage", "tts"}});
  EXPECT_EQ(text.str(),
            "# HELP lingcast_latency_seconds End-to-end latency.\n"
            "# TYPE lingcast_latency_seconds histogram\n"
            "lingcast_latency_seconds_bucket{stage=\"tts\",le=\"0.5\"} 2\n"
            "lingcast_latency_seconds_bucket{stage=\"tts\",le=\"1\"} 5\n"
            "lingcast_latency_seconds_bucket{stage=\"tts\",le=\"2.5\"} 5\n"
            "lingcast_latency_seconds_bucket{stage=\"tts\",le=\"+Inf\"} 6\n"
            "lingcast_latency_seconds_sum{stage=\"tts\"} 7.25\n"
            "lingcast_latency_seconds_count{stage=\"tts\"} 6\n");
}

TEST(PrometheusTextTest, AHistogramWithoutLabelsAndShortCounts) {
  PrometheusText text;
  text.Histogram("h", "H.", {1, 2, 4}, {3}, 0.5, 4);  // the missing buckets hold what the last one does
  EXPECT_EQ(text.str(),
            "# HELP h H.\n"
            "# TYPE h histogram\n"
            "h_bucket{le=\"1\"} 3\n"
            "h_bucket{le=\"2\"} 3\n"
            "h_bucket{le=\"4\"} 3\n"
            "h_bucket{le=\"+Inf\"} 4\n"
            "h_sum 0.5\n"
            "h_count 4\n");
}

TEST(PrometheusTextTest, FormatsValues) {
  EXPECT_EQ(PrometheusText::FormatValue(0), "0");
  EXPECT_EQ(PrometheusText::FormatValue(-7), "-7");
  EXPECT_EQ(PrometheusText::FormatValue(1e6), "1000000");
  EXPECT_EQ(PrometheusText::FormatValue(0.1), "0.1");
  EXPECT_EQ(PrometheusText::FormatValue(1.5e-7), "1.5e-07");
  EXPECT_EQ(PrometheusText::FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(PrometheusText::FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(PrometheusText::FormatValue(std::nan("")), "NaN");
}

TEST(PrometheusTextTest, EmptyWritesNothing) { EXPECT_EQ(PrometheusText().str(), ""); }

}  // namespace
}  // namespace lingcast
