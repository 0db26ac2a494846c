// The Beast side of the server, shared by http_server.cc (listener, HTTP
// connections) and event_sessions.cc (WebSocket and SSE clients). Private to
// src/server: only those two files include Boost, which compiles slowly.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "absl/time/time.h"
#include "server/event_channel.h"
#include "server/server_state.h"

namespace lingcast::server_internal {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

inline std::string ToString(beast::string_view text) { return std::string(text.data(), text.size()); }

// absl::InfiniteDuration() and other durations beyond what a timer holds become a day.
inline std::chrono::steady_clock::duration ToSteady(absl::Duration d) {
  if (d > absl::Hours(24)) d = absl::Hours(24);
  if (d < absl::ZeroDuration()) d = absl::ZeroDuration();
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(absl::ToChronoNanoseconds(d));
}

// Take over a connection whose request header asked for a stream (and whose
// StreamHandler accepted it). The sessions own the stream, the channel's
// writing side and the admissions from here on.
void StartWebSocketSession(beast::tcp_stream stream, http::request<http::string_body> request,
                           std::shared_ptr<EventChannel> channel, Admission connection, Admission event_client,
                           const ServerState& state);
void StartSseSession(beast::tcp_stream stream, std::shared_ptr<EventChannel> channel, Admission connection,
                     Admission event_client);

}  // namespace lingcast::server_internal
