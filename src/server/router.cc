#include "server/router.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"

namespace lingcast {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Debian's absl has its own string_view, so splitting is done here on std's.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// Which segments are captures, for ranking: a literal (false) sorts before a
// capture, so the lexicographically smallest vector is the most specific route.
template <typename Segments>
std::vector<bool> CaptureFlags(const Segments& pattern) {
  std::vector<bool> flags;
  flags.reserve(pattern.size());
  for (const auto& segment : pattern) flags.push_back(segment.capture);
  return flags;
}

}  // namespace

absl::StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(absl::StrCat("bad percent-encoding in \"", std::string(text), "\""));
      }
      const char decoded = static_cast<char>(hi * 16 + lo);
      if (decoded == '\0') return absl::InvalidArgumentError("a NUL byte (%00) in the request target");
      out.push_back(decoded);
      i += 2;
    } else if (c == '\0') {
      // Beast refuses one in a request line; anything else calling this must not pass one on either.
      return absl::InvalidArgumentError("a NUL byte in the request target");
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<std::string> SplitPath(std::string_view path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  std::vector<std::string> segments;
  for (std::string_view segment : Split(path, '/')) segments.emplace_back(segment);
  return segments;
}

absl::StatusOr<ParsedTarget> ParseTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return absl::InvalidArgumentError("the request target must be a path starting with '/'");
  }
  ParsedTarget parsed;
  std::string_view raw_path = target;
  std::string_view raw_query;
  if (const size_t q = target.find('?'); q != std::string_view::npos) {
    raw_path = target.substr(0, q);
    raw_query = target.substr(q + 1);
  }
  if (const size_t hash = raw_query.find('#'); hash != std::string_view::npos) raw_query = raw_query.substr(0, hash);
  LC_ASSIGN_OR_RETURN(parsed.path, PercentDecode(raw_path, false));
  for (const std::string& raw : SplitPath(raw_path)) {
    LC_ASSIGN_OR_RETURN(std::string segment, PercentDecode(raw, false));
    parsed.segments.push_back(std::move(segment));
  }
  for (std::string_view pair : Split(raw_query, '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    LC_ASSIGN_OR_RETURN(std::string key, PercentDecode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      LC_ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1), true));
    }
    parsed.query.emplace(std::move(key), std::move(value));
  }
  return parsed;
}

std::vector<Router::Segment> Router::ParsePattern(std::string_view pattern) {
  std::vector<Segment> segments;
  for (std::string& text : SplitPath(pattern)) {
    const bool capture = text.size() > 2 && text.front() == '{' && text.back() == '}';
    segments.push_back(Segment{capture ? text.substr(1, text.size() - 2) : std::move(text), capture});
  }
  return segments;
}

void Router::Insert(Route route) {
  for (Route& existing : routes_) {
    const bool same = existing.method == route.method && existing.pattern.size() == route.pattern.size() &&
                      std::equal(existing.pattern.begin(), existing.pattern.end(), route.pattern.begin(),
                                 [](const Segment& a, const Segment& b) {
                                   return a.capture == b.capture && (a.capture || a.text == b.text);
                                 });
    if (same) {
      existing = std::move(route);
      return;
    }
  }
  routes_.push_back(std::move(route));
}

void Router::Add(std::string method, std::string_view pattern, HttpServer::Handler handler, RouteAccess access) {
  Insert(Route{std::move(method), ParsePattern(pattern), std::move(handler), nullptr, std::move(access)});
}

void Router::AddStream(std::string_view pattern, HttpServer::StreamHandler handler, RouteAccess access) {
  Insert(Route{"GET", ParsePattern(pattern), nullptr, std::move(handler), std::move(access)});
}

bool Router::Matches(const std::vector<Segment>& pattern, const std::vector<std::string>& segments,
                     std::map<std::string, std::string>* params) {
  if (pattern.size() != segments.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i].capture ? segments[i].empty() : pattern[i].text != segments[i]) return false;
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i].capture) (*params)[pattern[i].text] = segments[i];
  }
  return true;
}

RouteMatch Router::Match(std::string_view method, const std::vector<std::string>& segments) const {
  const Route* best = nullptr;
  std::set<std::string> allowed;
  std::map<std::string, std::string> unused;
  for (const Route& route : routes_) {
    if (!Matches(route.pattern, segments, &unused)) continue;
    allowed.insert(route.method);
    if (route.method != method) continue;
    if (best == nullptr || CaptureFlags(route.pattern) < CaptureFlags(best->pattern)) best = &route;
  }
  RouteMatch match;
  if (best != nullptr) {
    Matches(best->pattern, segments, &match.params);
    match.kind = best->stream ? RouteMatch::Kind::kStream : RouteMatch::Kind::kHandler;
    match.handler = best->handler;
    match.stream = best->stream;
    match.viewer_session_param = best->access.viewer_session_param;
  } else if (!allowed.empty()) {
    match.kind = RouteMatch::Kind::kMethodNotAllowed;
    match.allow = absl::StrJoin(allowed, ", ");
  }
  return match;
}

}  // namespace lingcast
