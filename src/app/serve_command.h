// `lingcast serve`: many live sessions in one process behind an HTTP/WebSocket
// API (docs/serve.md): sessions from JSON settings, their status, reports,
// corrections and event streams, an OBS overlay page, health, readiness and
// Prometheus metrics. SIGTERM/SIGINT: readiness fails at once, no new sessions,
// running ones finish the line being said and flush, exit 0 (forced after
// --shutdown-timeout).
#pragma once

#include "app/command.h"
#include "app/engine_cache.h"
#include "server/http_server.h"
#include "server/session_manager.h"

namespace lingcast {

// The endpoints of docs/serve.md over `sessions` (all three outlive `server`'s run).
void AddServeRoutes(HttpServer& server, SessionManager& sessions, const EngineCache& engines);

Command AddServeCommand(CLI::App& app);

}  // namespace lingcast
