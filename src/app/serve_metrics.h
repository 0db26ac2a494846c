// `GET /metrics` of `lingcast serve`, in Prometheus' text format. The names are
// what deploy/ scales on (lingcast_sessions{state="running"}); docs/serve.md
// lists them all.
#pragma once

#include <string>
#include <vector>

#include "app/engine_cache.h"
#include "server/http_server.h"
#include "server/session_manager.h"

namespace lingcast {

// Upper bounds (seconds) of the latency histograms' buckets.
const std::vector<double>& LatencyBuckets();

// Cumulative counts of `values_ms` (milliseconds) under each bound of `bounds_s`.
std::vector<uint64_t> BucketCounts(const std::vector<double>& values_ms, const std::vector<double>& bounds_s);

// `sessions`: every session the manager keeps, with its report so far.
// `degradation`: the server's watchdog's report (app/serve_watchdog.h), null without one.
std::string ServeMetrics(const std::vector<SessionSummary>& sessions, int capacity_left, bool draining,
                         const HttpServer::Stats& http, const EngineCache::Stats& engines,
                         const nlohmann::json& degradation = nlohmann::json());

}  // namespace lingcast
