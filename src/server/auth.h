// The token check every non-public request goes through (HttpServer's header
// explains the two places a token may come from).
#pragma once

#include <string_view>

#include "server/http_types.h"

namespace lingcast {

// "Bearer abc" -> "abc" (the scheme is case-insensitive, RFC 9110 11.1); "" for any other scheme.
std::string_view BearerToken(std::string_view authorization);
// True when `request` carries `token`, in its Authorization header or as the
// "token" query parameter. An empty `token` admits everyone.
bool Authenticated(const HttpRequest& request, std::string_view token);

}  // namespace lingcast
