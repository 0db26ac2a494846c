#include "server/http_types.h"

#include <utility>

#include "nlohmann/json.hpp"

namespace lingcast {

std::string HttpRequest::Header(std::string_view name) const {
  const auto it = headers.find(std::string(name));
  return it == headers.end() ? std::string() : it->second;
}

HttpResponse HttpResponse::Json(int status, const nlohmann::json& body) {
  HttpResponse response;
  response.status = status;
  // A handler echoing user text must not turn a bad byte into an exception (a 500).
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

HttpResponse HttpResponse::Error(int status, std::string_view message) {
  return Json(status, nlohmann::json{{"error", std::string(message)}});
}

int HttpStatusFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return 200;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kUnauthenticated: return 401;
    case absl::StatusCode::kPermissionDenied: return 403;
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kFailedPrecondition: return 409;
    case absl::StatusCode::kResourceExhausted: return 429;
    case absl::StatusCode::kUnimplemented: return 501;
    case absl::StatusCode::kUnavailable: return 503;
    case absl::StatusCode::kDeadlineExceeded: return 504;
    default: return 500;
  }
}

HttpResponse ErrorResponseFor(const absl::Status& status) {
  return HttpResponse::Error(HttpStatusFor(status), std::string(status.message()));
}

}  // namespace lingcast
