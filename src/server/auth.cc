#include "server/auth.h"

#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "server/http_server.h"

namespace lingcast {

bool ConstantTimeEquals(std::string_view candidate, std::string_view secret) {
  // No early exit, and the loop runs over the secret's length whatever the
  // candidate is; only the (public) candidate's own length is branched on.
  unsigned diff = candidate.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < secret.size(); ++i) {
    const unsigned char c = i < candidate.size() ? static_cast<unsigned char>(candidate[i]) : 0;
    diff |= c ^ static_cast<unsigned char>(secret[i]);
  }
  return diff == 0;
}

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

}  // namespace

std::string_view BearerToken(std::string_view authorization) {
  authorization = Trim(authorization);
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return {};
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (absl::ascii_tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return {};
  }
  return Trim(authorization.substr(kScheme.size()));
}

bool Authenticated(const HttpRequest& request, std::string_view token) {
  if (token.empty()) return true;
  // Both are compared, so whether a header was present is all that shows in the time taken.
  bool ok = false;
  if (const auto it = request.headers.find("authorization"); it != request.headers.end()) {
    ok |= ConstantTimeEquals(BearerToken(it->second), token);
  }
  if (const auto it = request.query.find("token"); it != request.query.end()) {
    ok |= ConstantTimeEquals(it->second, token);
  }
  return ok;
}

std::vector<std::string_view> OfferedTokens(const HttpRequest& request) {
  std::vector<std::string_view> offered;
  if (const auto it = request.headers.find("authorization"); it != request.headers.end()) {
    if (std::string_view bearer = BearerToken(it->second); !bearer.empty()) offered.push_back(bearer);
  }
  if (const auto it = request.query.find("token"); it != request.query.end() && !it->second.empty()) {
    offered.push_back(it->second);
  }
  return offered;
}

std::string RandomToken() {
  std::random_device source;
  std::string token;
  for (int i = 0; i < 4; ++i) absl::StrAppendFormat(&token, "%08x", source());
  return token;
}

}  // namespace lingcast
