// Request targets and routes: the part of HTTP that needs no socket, so it is
// tested alone (router_test.cc).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/http_server.h"

namespace lingcast {

struct ParsedTarget {
  std::string path;                           // decoded
  std::vector<std::string> segments;          // each decoded alone, so "%2F" stays inside its segment
  std::map<std::string, std::string> query;   // decoded; the first of repeated keys wins
};

// Origin-form targets only ("/a/b?x=y", RFC 9112 3.2.1). InvalidArgument for any
// other form, bad percent-encoding, or a NUL byte once decoded.
absl::StatusOr<ParsedTarget> ParseTarget(std::string_view target);
// "%41+b" -> "A b" when plus_is_space (query), "A+b" otherwise (path).
absl::StatusOr<std::string> PercentDecode(std::string_view text, bool plus_is_space);
// "/a/b" -> {"a", "b"}; "/" -> {""}; "/a/" -> {"a", ""} (not decoded).
std::vector<std::string> SplitPath(std::string_view path);

struct RouteMatch {
  enum class Kind { kNotFound, kMethodNotAllowed, kHandler, kStream };
  Kind kind = Kind::kNotFound;
  HttpServer::Handler handler;        // kHandler
  HttpServer::StreamHandler stream;   // kStream
  std::map<std::string, std::string> params;
  std::string allow;                  // kMethodNotAllowed: the path's methods, "DELETE, GET"
  std::string viewer_session_param;   // kHandler / kStream: the route's RouteAccess
};

// Not thread-safe: the server guards it.
class Router {
 public:
  // See HttpServer::Route. The same method and pattern again replaces the route.
  void Add(std::string method, std::string_view pattern, HttpServer::Handler handler, RouteAccess access = {});
  // A stream route is a GET route.
  void AddStream(std::string_view pattern, HttpServer::StreamHandler handler, RouteAccess access = {});
  RouteMatch Match(std::string_view method, const std::vector<std::string>& segments) const;

 private:
  struct Segment {
    std::string text;  // the literal, or the capture's name
    bool capture = false;
  };
  struct Route {
    std::string method;
    std::vector<Segment> pattern;
    HttpServer::Handler handler;
    HttpServer::StreamHandler stream;
    RouteAccess access;
  };
  void Insert(Route route);
  static std::vector<Segment> ParsePattern(std::string_view pattern);
  static bool Matches(const std::vector<Segment>& pattern, const std::vector<std::string>& segments,
                      std::map<std::string, std::string>* params);

  std::vector<Route> routes_;
};

}  // namespace lingcast
