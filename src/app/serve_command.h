// `lingcast serve`: many live sessions in one process behind an HTTP/WebSocket
// API (docs/serve.md): sessions from JSON settings, their status, reports,
// corrections and event streams, an OBS overlay page, health, readiness and
// Prometheus metrics. SIGTERM/SIGINT: readiness fails at once, no new sessions,
// running ones finish the line being said and flush, exit 0 (forced after
// --shutdown-timeout).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "app/command.h"
#include "app/engine_cache.h"
#include "app/serve_watchdog.h"
#include "server/http_server.h"
#include "server/session_manager.h"

namespace lingcast {

// HttpServerOptions::admits_viewer over `sessions`: true for a session's own
// view token. Which routes take it is said where AddServeRoutes registers them
// (the overlay page and the event stream): an overlay URL that controls nothing.
std::function<bool(const std::string& session_id, std::string_view offered)> ViewerAdmission(
    const SessionManager& sessions);

// The endpoints of docs/serve.md over `sessions` (all three outlive `server`'s run).
// `watchdog` (may be null: --watch-memory off) gives /metrics its degradation figures.
void AddServeRoutes(HttpServer& server, SessionManager& sessions, const EngineCache& engines,
                    const ServeWatchdog* watchdog = nullptr);

Command AddServeCommand(CLI::App& app);

}  // namespace lingcast
