// HttpServer: the HTTP/1.1 + WebSocket (and SSE) transport of `lingcast serve`.
// It owns sockets, parsing, limits, authentication and routing; what a route
// means is its handler's business (src/app). Boost.Beast does the protocol
// work behind a pimpl, so this header is cheap to include (README.md says why Beast).
//
//   HttpServerOptions options;
//   options.token = token;
//   HttpServer server(options);
//   server.Route("GET", "/v1/sessions/{id}", [&](const HttpRequest& r) { ... r.params.at("id") ... });
//   server.RouteStream("/v1/sessions/{id}/events", [&](const HttpRequest& r, std::shared_ptr<EventClient> c) {
//     subscribers.Add(r.params.at("id"), std::move(c));  // Send() to it from any thread
//     return absl::OkStatus();
//   });
//   LC_RETURN_IF_ERROR(server.Start());
//
// Authentication: with a token set, every path except `public_paths` needs
// `Authorization: Bearer TOKEN`, or `?token=TOKEN` in the query: browsers cannot
// set headers on a WebSocket, and an OBS browser source is only a URL. A query
// token can end up in logs and browser history, so prefer the header wherever
// the client can set one; handlers never see "token" in HttpRequest::query.
// A route registered with RouteAccess::viewer_session_param also admits a GET
// with the view token of the session its path names (admits_viewer): which
// routes a viewer may call is said where each route is registered, nowhere else.
// A failure is answered 401 (WWW-Authenticate: Bearer) after
// auth_failure_delay, on a timer, so guessing is slow but nobody else waits.
//
// Handlers run on the server's threads (`threads`), one request at a time per
// connection: they should answer quickly and hand long work to a job. A
// handler that throws gets a 500; the server goes on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/logger.h"
#include "server/http_types.h"

namespace lingcast {

struct HttpServerOptions {
  // host:port to listen on: an IPv4 or IPv6 literal ("[::1]:8080") or
  // "localhost"; port 0 picks a free one (tests; see HttpServer::port()).
  std::string listen = "127.0.0.1:8080";
  // Bearer token; empty means no authentication (tests only: `serve` always sets one).
  std::string token;
  // Exact paths that need no token (health checks from the orchestrator).
  std::vector<std::string> public_paths = {"/healthz"};
  size_t max_body_bytes = 1 << 20;    // a longer request body: 413, before it is read
  size_t max_header_bytes = 16 << 10; // request line + headers beyond this: 431
  int max_connections = 256;          // open at once; one more is answered 503 and closed
  int max_event_clients = 64;         // WebSocket + SSE clients at once (within max_connections); beyond: 503
  size_t client_queue = 256;          // messages queued per event client; one more disconnects it
  // Before a 401 is sent (a timer: other connections are not held up).
  absl::Duration auth_failure_delay = absl::Milliseconds(250);
  // A connection must deliver each whole request (headers and body) within
  // this long of the server starting to wait for it, else it is closed: an
  // idle keep-alive connection, a slowloris. WebSocket clients are pinged
  // and closed when silent this long.
  absl::Duration idle_timeout = absl::Seconds(30);
  // Asked about a GET request the token above does not admit, on a route
  // registered with a viewer_session_param (RouteAccess): that parameter's value
  // (a session id) and each token the request offers. True admits it (a
  // session's read-only view token). Empty: no viewer is admitted anywhere.
  std::function<bool(const std::string& session_id, std::string_view offered)> admits_viewer;
  int threads = 1;                    // threads running the server's I/O and handlers
  Logger* logger = nullptr;           // not owned; outlives the server; null: no logs
};

// Who may call a route besides the holder of the server token.
struct RouteAccess {
  // The path parameter ("id" in "/overlay/{id}") holding a session id: a GET on
  // the route is admitted with that session's view token too. Only for routes
  // that read; empty (the default): the server token only. A name that is not
  // one of the pattern's captures admits no viewer.
  std::string viewer_session_param;
};

class HttpServer {
 public:
  using Handler = std::function<HttpResponse(const HttpRequest&)>;
  // Called when a client opens a streaming route: a WebSocket upgrade, or a GET
  // with `Accept: text/event-stream` (SSE). Keep `client` to push to it; what
  // the handler sends before returning is delivered first. A non-OK status
  // refuses the client with HttpStatusFor(status) and {"error": message}.
  using StreamHandler = std::function<absl::Status(const HttpRequest&, std::shared_ptr<EventClient> client)>;

  struct Stats {
    int64_t requests = 0;  // requests whose header was read (refused ones too)
    int64_t responses_2xx = 0, responses_4xx = 0, responses_5xx = 0;  // 101 (WebSocket) counts as 2xx
    int64_t auth_failures = 0;     // 401s
    int64_t limit_rejections = 0;  // 413, 431, and 503 for max_connections / max_event_clients
    int open_connections = 0;      // accepted and not yet closed (event clients included)
    int event_clients = 0;         // WebSocket + SSE clients connected now
  };

  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // `pattern` is a path of literal segments and "{name}" segments, each of
  // which captures one non-empty segment into HttpRequest::params. A literal
  // segment wins over a capture where two patterns match. Any time, any thread.
  void Route(std::string method, std::string pattern, Handler handler, RouteAccess access = {});
  // A GET route for WebSocket and SSE clients; a plain GET on it gets 426.
  void RouteStream(std::string pattern, StreamHandler handler, RouteAccess access = {});

  // Binds, listens and starts the threads; once. InvalidArgument for a listen
  // address that is not one, PermissionDenied / FailedPrecondition when it cannot
  // be bound: "listen 127.0.0.1:80: Permission denied".
  absl::Status Start();
  int port() const;  // the bound port, after Start(); 0 before
  // Closes the listener and every connection (clients see it drop; their
  // EventClients report !open() and refuse Send), waits for running handlers,
  // joins the threads. Idempotent; the server cannot be started again. Not
  // from a handler (it would wait for itself).
  void Stop();

  Stats stats() const;  // any thread

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Compares in a time that depends only on the length of `secret`, not on
// where `candidate` first differs from it (a token check must not leak a prefix).
bool ConstantTimeEquals(std::string_view candidate, std::string_view secret);

}  // namespace lingcast
