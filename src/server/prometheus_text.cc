#include "server/prometheus_text.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

std::string Escape(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string PrometheusText::FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Counts are the common case; "12" reads better than "12.0" or "1.2e+01".
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    return absl::StrCat(static_cast<int64_t>(value));
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

PrometheusText::Family& PrometheusText::FamilyFor(std::string_view name, std::string_view help,
                                                  std::string_view type) {
  for (Family& family : families_) {
    if (family.name == name) return family;
  }
  families_.push_back(Family{std::string(name), std::string(help), std::string(type), ""});
  return families_.back();
}

void PrometheusText::AppendSample(std::string* out, std::string_view name, const Labels& labels, double value,
                                  const std::pair<std::string, std::string>* extra) {
  out->append(name);
  if (!labels.empty() || extra != nullptr) {
    out->push_back('{');
    bool first = true;
    auto add = [&](const std::pair<std::string, std::string>& label) {
      absl::StrAppend(out, first ? "" : ",", label.first, "=\"", Escape(label.second, true), "\"");
      first = false;
    };
    for (const auto& label : labels) add(label);
    if (extra != nullptr) add(*extra);
    out->push_back('}');
  }
  absl::StrAppend(out, " ", FormatValue(value), "\n");
}

void PrometheusText::Gauge(std::string_view name, std::string_view help, double value, const Labels& labels) {
  AppendSample(&FamilyFor(name, help, "gauge").samples, name, labels, value);
}

void PrometheusText::Counter(std::string_view name, std::string_view help, double value, const Labels& labels) {
  AppendSample(&FamilyFor(name, help, "counter").samples, name, labels, value);
}

void PrometheusText::Histogram(std::string_view name, std::string_view help, const std::vector<double>& upper_bounds,
                               const std::vector<uint64_t>& bucket_counts, double sum, uint64_t count,
                               const Labels& labels) {
  std::string& out = FamilyFor(name, help, "histogram").samples;
  const std::string base(name);
  const std::string bucket = base + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < upper_bounds.size(); ++i) {
    if (i < bucket_counts.size()) cumulative = bucket_counts[i];
    const std::pair<std::string, std::string> le{"le", FormatValue(upper_bounds[i])};
    AppendSample(&out, bucket, labels, static_cast<double>(cumulative), &le);
  }
  const std::pair<std::string, std::string> inf{"le", "+Inf"};
  AppendSample(&out, bucket, labels, static_cast<double>(count), &inf);
  AppendSample(&out, base + "_sum", labels, sum);
  AppendSample(&out, base + "_count", labels, static_cast<double>(count));
}

std::string PrometheusText::str() const {
  std::string out;
  for (const Family& family : families_) {
    absl::StrAppend(&out, "# HELP ", family.name, " ", Escape(family.help, false), "\n");
    absl::StrAppend(&out, "# TYPE ", family.name, " ", family.type, "\n", family.samples);
  }
  return out;
}

}  // namespace lingcast
