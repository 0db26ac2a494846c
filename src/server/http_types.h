// The values that cross the server's boundary: a request as handlers see it, the
// response they return, and the push channel to a streaming client. No Boost
// here (nor in any public header of src/server), so src/app includes them cheaply.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json_fwd.hpp"

namespace lingcast {

struct HttpRequest {
  std::string method;                           // "GET", "POST", "DELETE", ...
  std::string path;                             // percent-decoded, without the query: "/v1/sessions/abc"
  std::map<std::string, std::string> query;     // decoded ?a=b&c=d ('+' is a space); the first of repeated keys
                                                // wins; "token" is removed once it has been checked
  std::map<std::string, std::string> params;    // from the route pattern: {"id": "abc"} for "/v1/sessions/{id}"
  std::map<std::string, std::string> headers;   // lower-case names; repeated fields joined with ", "
  std::string body;
  std::string remote;                           // the peer, "127.0.0.1:53412" (for logs)

  // The header's value, or "" when absent. `name` in lower case.
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, sent as given

  // `body` serialized; invalid UTF-8 in its strings is replaced (U+FFFD), never thrown.
  static HttpResponse Json(int status, const nlohmann::json& body);
  // {"error": message}
  static HttpResponse Error(int status, std::string_view message);
};

// The HTTP status a refusal maps to: InvalidArgument/OutOfRange 400, Unauthenticated 401,
// PermissionDenied 403, NotFound 404, AlreadyExists/Aborted/FailedPrecondition 409,
// ResourceExhausted 429, Unimplemented 501, Unavailable 503, DeadlineExceeded 504, else 500
// (OK gives 200).
int HttpStatusFor(const absl::Status& status);
// HttpResponse::Error(HttpStatusFor(status), status.message()).
HttpResponse ErrorResponseFor(const absl::Status& status);

// A push channel to one WebSocket or SSE client. Any thread may use it. Send()
// never blocks: it queues; a client that falls so far behind that its queue
// (HttpServerOptions::client_queue messages) is full is disconnected, so one
// slow viewer cannot grow the server's memory or hold up the others.
class EventClient {
 public:
  virtual ~EventClient();
  // Queues one message (a WebSocket text frame; an SSE event whose lines are
  // `data:` lines). False, and nothing queued, once the client is gone or closing.
  virtual bool Send(std::string text) = 0;
  // False once the client has gone (closed, failed, overflowed, server stopped)
  // or Close() was called.
  virtual bool open() const = 0;
  // Sends what is queued, then closes the connection (WebSocket: a normal close).
  virtual void Close() = 0;
};

}  // namespace lingcast
