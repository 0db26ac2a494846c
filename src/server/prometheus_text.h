// PrometheusText: writes the Prometheus text exposition format 0.0.4 that
// /metrics serves (and KEDA scales on). Samples of one family are kept
// together under one HELP and one TYPE line, whatever order they are added in.
//
//   PrometheusText text;
//   text.Gauge("lingcast_sessions", "Live sessions running.", 3);
//   text.Counter("lingcast_http_requests_total", "Requests.", 12, {{"code", "2xx"}});
//   response.body = text.str();  response.content_type = PrometheusText::kContentType;
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lingcast {

class PrometheusText {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

  // Names are the caller's constants ([a-zA-Z_:][a-zA-Z0-9_:]*; counters end in
  // _total by convention); nothing here checks them. Label values and help are escaped.
  // A family's first call sets its help and type.
  void Gauge(std::string_view name, std::string_view help, double value, const Labels& labels = {});
  void Counter(std::string_view name, std::string_view help, double value, const Labels& labels = {});
  // Cumulative, as the format has them: `bucket_counts[i]` is the number of
  // observations <= upper_bounds[i] (so it never decreases; missing entries
  // repeat the last one), and `count` is all of them: the +Inf bucket. Writes
  // name_bucket{le="..."} for each bound and +Inf, then name_sum and name_count.
  void Histogram(std::string_view name, std::string_view help, const std::vector<double>& upper_bounds,
                 const std::vector<uint64_t>& bucket_counts, double sum, uint64_t count,
                 const Labels& labels = {});

  std::string str() const;

  // How values are written: integers without a decimal point, others in the
  // shortest form that reads back exactly, "+Inf", "-Inf", "NaN".
  static std::string FormatValue(double value);

 private:
  struct Family {
    std::string name;
    std::string help;
    std::string type;
    std::string samples;  // lines, each ending in '\n'
  };
  Family& FamilyFor(std::string_view name, std::string_view help, std::string_view type);
  static void AppendSample(std::string* out, std::string_view name, const Labels& labels, double value,
                           const std::pair<std::string, std::string>* extra = nullptr);

  std::vector<Family> families_;  // in the order first added
};

}  // namespace lingcast
