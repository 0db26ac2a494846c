#include "app/serve_metrics.h"

#include <algorithm>
#include <map>

#include "core/process_stats.h"
#include "server/prometheus_text.h"

namespace lingcast {
namespace {

// The line figures of one report ("utterances": [{"compute_latency_ms": ...}, ...]).
std::vector<double> LineValues(const nlohmann::json& report, const char* key) {
  std::vector<double> values;
  const auto lines = report.find("utterances");
  if (lines == report.end() || !lines->is_array()) return values;
  for (const nlohmann::json& line : *lines) {
    const auto value = line.find(key);
    if (value != line.end() && value->is_number()) values.push_back(value->get<double>());
  }
  return values;
}

double SummaryNumber(const nlohmann::json& report, const char* key) {
  const auto summary = report.find("summary");
  if (summary == report.end()) return 0;
  const auto value = summary->find(key);
  return value != summary->end() && value->is_number() ? value->get<double>() : 0;
}

void AddHistogram(PrometheusText& text, const std::string& name, const std::string& help,
                  const std::vector<double>& values_ms) {
  double sum = 0;
  for (double v : values_ms) sum += v / 1000;
  text.Histogram(name, help, LatencyBuckets(), BucketCounts(values_ms, LatencyBuckets()), sum, values_ms.size());
}

}  // namespace

const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> buckets = {0.05, 0.1, 0.15, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10};
  return buckets;
}

std::vector<uint64_t> BucketCounts(const std::vector<double>& values_ms, const std::vector<double>& bounds_s) {
  std::vector<uint64_t> counts(bounds_s.size(), 0);
  for (double v : values_ms) {
    for (size_t i = 0; i < bounds_s.size(); ++i) {
      if (v / 1000 <= bounds_s[i]) ++counts[i];
    }
  }
  return counts;
}

std::string ServeMetrics(const std::vector<SessionSummary>& sessions, int capacity_left, bool draining,
                         const HttpServer::Stats& http, const EngineCache::Stats& engines,
                         const nlohmann::json& degradation) {
  PrometheusText text;
  std::map<SessionState, int> by_state;
  for (SessionState state : {SessionState::kStarting, SessionState::kRunning, SessionState::kDraining,
                             SessionState::kFinished, SessionState::kFailed}) {
    by_state[state] = 0;
  }
  for (const SessionSummary& s : sessions) ++by_state[s.state];
  for (const auto& [state, count] : by_state) {
    text.Gauge("lingcast_sessions", "Sessions kept by the server, by state", count, {{"state", SessionStateName(state)}});
  }
  text.Gauge("lingcast_sessions_capacity_left", "Sessions that can still be started (--max-sessions less active)",
             capacity_left);
  text.Gauge("lingcast_draining", "1 while the server shuts down (readiness fails)", draining ? 1 : 0);
  if (degradation.is_object()) {
    text.Gauge("lingcast_degradation_level",
               "Rungs of the server's degradation ladder taken under memory pressure (4: no new sessions)",
               degradation.value("level", 0.0));
    for (const auto& [direction, key] : {std::pair{"down", "taken"}, std::pair{"up", "given_back"}}) {
      for (const auto& [rung, count] : degradation[key].items()) {
        text.Counter("lingcast_degradation_steps_total", "Steps of the server's degradation ladder, by rung and way",
                     count.get<double>(), {{"rung", rung}, {"direction", direction}});
      }
    }
  }

  std::vector<double> compute, end_offsets;
  for (const SessionSummary& s : sessions) {
    const PrometheusText::Labels labels = {{"session", s.id}};
    text.Counter("lingcast_session_lines_total", "Lines decided (script and off script)",
                 SummaryNumber(s.progress, "lines"), labels);
    text.Counter("lingcast_session_audio_drops_total", "Audio samples lost (should stay 0)",
                 SummaryNumber(s.progress, "audio_drops"), labels);
    text.Counter("lingcast_session_video_drops_total", "Video frames not rendered in time or dropped by congestion",
                 SummaryNumber(s.progress, "video_drops"), labels);
    text.Gauge("lingcast_session_video_bitrate_bits", "The video encoder's target bitrate now (0: constant quality)",
               SummaryNumber(s.progress, "video_bitrate"), labels);
    for (const auto& [direction, key] : {std::pair{"down", "bitrate_steps_down"}, std::pair{"up", "bitrate_steps_up"}}) {
      text.Counter("lingcast_session_bitrate_steps_total",
                   "Adaptive bitrate steps of the video encoder (down under congestion, up after a clean period)",
                   SummaryNumber(s.progress, key), {{"session", s.id}, {"direction", direction}});
    }
    text.Gauge("lingcast_session_lag_seconds", "How far the avatar is behind the host",
               SummaryNumber(s.progress, "lag_seconds"), labels);
    text.Gauge("lingcast_session_queued_lines", "Lines waiting for the avatar (the voice-to-playout queue)",
               SummaryNumber(s.progress, "queued_lines"), labels);
    text.Gauge("lingcast_session_output_seconds", "Output audio written", SummaryNumber(s.progress, "output_seconds"),
               labels);
    text.Gauge("lingcast_session_host_seconds", "Host audio taken in", SummaryNumber(s.progress, "host_seconds"),
               labels);
    if (const auto summary = s.progress.find("summary"); summary != s.progress.end() && summary->is_object()) {
      const auto session_degradation = summary->find("degradation");
      if (session_degradation != summary->end() && session_degradation->is_object()) {
        text.Gauge("lingcast_session_degradation_level",
                   "Rungs of the degradation ladder the session is down (0 none, 3 the lighter voice)",
                   session_degradation->value("level", 0.0), labels);
      }
    }
    if (const auto queues = s.progress.find("queues"); queues != s.progress.end() && queues->is_array()) {
      for (const nlohmann::json& q : *queues) {
        const PrometheusText::Labels queue_labels = {{"session", s.id}, {"queue", q.value("name", "")}};
        text.Gauge("lingcast_session_queue_depth", "Packets waiting in one connection of the session's graph",
                   q.value("depth", 0.0), queue_labels);
        text.Gauge("lingcast_session_queue_high_water", "Most packets that connection has held at once",
                   q.value("high_water", 0.0), queue_labels);
      }
    }
    const std::vector<double> c = LineValues(s.progress, "compute_latency_ms");
    const std::vector<double> e = LineValues(s.progress, "end_offset_ms");
    compute.insert(compute.end(), c.begin(), c.end());
    end_offsets.insert(end_offsets.end(), e.begin(), e.end());
  }
  AddHistogram(text, "lingcast_compute_latency_seconds",
               "Decision to the first sample of the avatar's speech on the outputs, per line", compute);
  AddHistogram(text, "lingcast_end_offset_seconds", "The avatar's speech ends after the host's utterance, per line",
               end_offsets);

  text.Gauge("lingcast_engines_loaded", "Engines in memory, one copy each for every session that uses it",
             engines.voices, {{"role", "voice"}});
  text.Gauge("lingcast_engines_loaded", "Engines in memory, one copy each for every session that uses it",
             engines.recognizers, {{"role", "recognizer"}});
  text.Gauge("lingcast_engines_loaded", "Engines in memory, one copy each for every session that uses it",
             engines.translators, {{"role", "translator"}});
  text.Counter("lingcast_engine_reuses_total", "Sessions that got an engine already loaded instead of loading it",
               static_cast<double>(engines.reuses));
  // Whisper's step batcher: passes / steps is the decoder's cost per step
  // shared out (1 when every session decodes alone).
  text.Counter("lingcast_asr_decoder_steps_total", "Decoder steps of the shared recognizers' sessions, alone or joined",
               static_cast<double>(engines.recognizer_steps.steps));
  text.Counter("lingcast_asr_decoder_passes_total",
               "Passes over the shared recognizers' decoder weights (steps of several sessions join in one)",
               static_cast<double>(engines.recognizer_steps.passes));
  text.Counter("lingcast_asr_decoder_joined_steps_total", "Decoder steps that shared their pass with another session's",
               static_cast<double>(engines.recognizer_steps.joined_steps));
  text.Gauge("lingcast_asr_decoder_largest_pass", "Most sessions' decoder steps in one pass so far",
             static_cast<double>(engines.recognizer_steps.largest_pass));
  text.Gauge("lingcast_process_resident_memory_bytes", "Resident memory of the server process",
             CurrentRssMb() * 1024 * 1024);
  text.Counter("lingcast_process_cpu_seconds_total", "CPU time of the server process", ProcessCpuSeconds());
  text.Counter("lingcast_http_requests_total", "HTTP requests answered", static_cast<double>(http.requests));
  for (const auto& [code, count] : {std::pair{"2xx", http.responses_2xx}, std::pair{"4xx", http.responses_4xx},
                                    std::pair{"5xx", http.responses_5xx}}) {
    text.Counter("lingcast_http_responses_total", "HTTP responses by status class", static_cast<double>(count),
                 {{"code", code}});
  }
  text.Counter("lingcast_http_auth_failures_total", "Requests refused for a missing or wrong token",
               static_cast<double>(http.auth_failures));
  text.Counter("lingcast_http_limit_rejections_total", "Requests refused by a size or count limit",
               static_cast<double>(http.limit_rejections));
  text.Gauge("lingcast_http_open_connections", "Open HTTP connections", http.open_connections);
  text.Gauge("lingcast_event_clients", "Open WebSocket/SSE event streams", http.event_clients);
  return text.str();
}

}  // namespace lingcast
