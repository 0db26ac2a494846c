// The token check every non-public request goes through (HttpServer's header
// explains the two places a token may come from).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/http_types.h"

namespace lingcast {

// "Bearer abc" -> "abc" (the scheme is case-insensitive, RFC 9110 11.1); "" for any other scheme.
std::string_view BearerToken(std::string_view authorization);
// True when `request` carries `token`, in its Authorization header or as the
// "token" query parameter. An empty `token` admits everyone.
bool Authenticated(const HttpRequest& request, std::string_view token);
// The tokens `request` offers: its bearer token and its "token" query parameter
// (empty ones left out), for checks other than the server's own token.
std::vector<std::string_view> OfferedTokens(const HttpRequest& request);
// 32 hex digits from the system's random source (std::random_device reads the
// kernel's), for tokens the server makes itself.
std::string RandomToken();

}  // namespace lingcast
