// The listener and the HTTP/1.1 connections (Beast). A connection reads a
// request header, decides what it can from the header alone (limits, token,
// route) so a refused client's body is never read, then reads the body, calls
// the handler and writes the answer; a stream route hands the socket over to
// event_sessions.cc.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "server/auth.h"
#include "server/server_internal.h"

namespace lingcast {
namespace server_internal {
namespace {

bool IsQuietEnd(beast::error_code ec) {
  // The peer went away or fell silent: nobody to answer.
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == beast::error::timeout ||
         ec == net::error::operation_aborted || ec == net::error::connection_reset || ec == net::error::eof;
}

bool SafeHeader(std::string_view text) {
  return text.find_first_of("\r\n") == std::string_view::npos && !text.empty();
}

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(tcp::socket socket, std::shared_ptr<ServerState> state, Admission admission)
      : stream_(std::move(socket)),
        timer_(stream_.get_executor()),
        state_(std::move(state)),
        admission_(std::move(admission)) {}

  void Run() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->ReadHeader(); });
  }

  // Over max_connections: say so and go.
  void Reject() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->state_->CountLimitRejection();
      self->Respond(HttpResponse::Error(503, "too many connections"), false);
    });
  }

 private:
  const HttpServerOptions& options() const { return state_->options(); }

  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<size_t>(options().max_header_bytes, UINT32_MAX)));
    parser_->body_limit(static_cast<std::uint64_t>(options().max_body_bytes));
    stream_.expires_after(ToSteady(options().idle_timeout));
    http::async_read_header(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->OnHeader(ec);
    });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    state_->CountRequest();
    const auto& message = parser_->get();
    absl::StatusOr<ParsedTarget> target = ParseTarget(ToString(message.target()));
    if (!target.ok()) return Respond(HttpResponse::Error(400, std::string(target.status().message())), false);
    request_ = HttpRequest{};
    request_.method = ToString(message.method_string());
    request_.path = std::move(target->path);
    request_.query = std::move(target->query);
    for (const auto& field : message) {
      std::string name = absl::AsciiStrToLower(ToString(field.name_string()));
      auto [it, inserted] = request_.headers.emplace(std::move(name), ToString(field.value()));
      if (!inserted) absl::StrAppend(&it->second, ", ", ToString(field.value()));
    }
    beast::error_code remote_ec;
    const tcp::endpoint remote = stream_.socket().remote_endpoint(remote_ec);
    if (!remote_ec) {
      const std::string address = remote.address().to_string();
      request_.remote = remote.address().is_v6() ? absl::StrCat("[", address, "]:", remote.port())
                                                 : absl::StrCat(address, ":", remote.port());
    }
    // Whatever is answered before the body is read ends the connection: the
    // unread body would be taken for the next request.
    const bool body_pending = !parser_->is_done();
    const bool reusable = !body_pending && message.keep_alive();
    // Routed first: whether a view token is enough is a property of the route.
    // A refused request learns nothing of the routes (every refusal is a 401).
    match_ = state_->Match(request_.method, target->segments);
    if (!state_->IsPublic(request_.path) && !Authenticated(request_, options().token) && !AdmittedAsViewer()) {
      state_->CountAuthFailure();
      return RespondAfterAuthDelay();
    }
    request_.query.erase("token");
    request_.params = std::move(match_.params);
    switch (match_.kind) {
      case RouteMatch::Kind::kNotFound:
        return Respond(HttpResponse::Error(404, absl::StrCat("no such path: ", request_.path)), reusable);
      case RouteMatch::Kind::kMethodNotAllowed: {
        HttpResponse response =
            HttpResponse::Error(405, absl::StrCat(request_.method, " is not allowed on ", request_.path));
        response.headers.emplace_back("Allow", match_.allow);
        return Respond(std::move(response), reusable);
      }
      case RouteMatch::Kind::kStream:
        return StartStream(reusable);
      case RouteMatch::Kind::kHandler:
        break;
    }
    if (!body_pending) return CallHandler();
    if (absl::EqualsIgnoreCase(request_.Header("expect"), "100-continue")) {
      // curl and others wait for this before sending a large body.
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = shared_from_this()](beast::error_code write_ec, size_t) {
                         if (write_ec) return self->CloseNow();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void OnReadError(beast::error_code ec) {
    if (IsQuietEnd(ec)) return CloseNow();
    state_->CountRequest();
    if (ec == http::error::header_limit) {
      state_->CountLimitRejection();
      return Respond(HttpResponse::Error(431, "request header too large"), false);
    }
    if (ec == http::error::body_limit) {
      state_->CountLimitRejection();
      return Respond(HttpResponse::Error(413, "request body too large"), false);
    }
    return Respond(HttpResponse::Error(400, absl::StrCat("malformed request: ", ec.message())), false);
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->OnReadError(ec);
      self->request_.body = std::move(self->parser_->get().body());
      self->CallHandler();
    });
  }

  void CallHandler() {
    HttpResponse response;
    try {
      response = match_.handler(request_);
    } catch (const std::exception& e) {
      response = Internal(e.what());
    } catch (...) {
      response = Internal("unknown exception");
    }
    Respond(std::move(response), parser_->get().keep_alive());
  }

  HttpResponse Internal(const std::string& what) {
    if (Logger* logger = state_->logger()) {
      logger->Error("server", "handler threw", {{"method", request_.method}, {"path", request_.path}, {"what", what}});
    }
    // The exception's text stays in the log: it may say more than a client should know.
    return HttpResponse::Error(500, "internal error");
  }

  void StartStream(bool reusable) {
    const auto& message = parser_->get();
    const bool websocket = boost::beast::websocket::is_upgrade(message);
    const bool sse = !websocket && absl::StrContains(absl::AsciiStrToLower(request_.Header("accept")), "text/event-stream");
    if (!websocket && !sse) {
      HttpResponse response = HttpResponse::Error(426, "this path is a WebSocket or text/event-stream stream");
      response.headers.emplace_back("Upgrade", "websocket");
      return Respond(std::move(response), reusable);
    }
    auto channel = std::make_shared<EventChannel>(options().client_queue);
    Admission event_client = state_->AdmitEventClient(channel);
    if (!event_client) {
      state_->CountLimitRejection();
      return Respond(HttpResponse::Error(503, "too many event clients"), false);
    }
    absl::Status accepted;
    try {
      accepted = match_.stream(request_, channel);
    } catch (const std::exception& e) {
      accepted = absl::InternalError(e.what());
    } catch (...) {
      accepted = absl::InternalError("unknown exception");
    }
    if (!accepted.ok()) {
      channel->Detach();
      event_client = Admission();  // before the answer: a client that sees it may retry at once
      if (accepted.code() == absl::StatusCode::kInternal) return Respond(Internal(std::string(accepted.message())), false);
      return Respond(ErrorResponseFor(accepted), reusable);
    }
    state_->CountResponse(websocket ? 101 : 200);
    // From here the event session's own rules apply (queue overflow, WebSocket pings).
    stream_.expires_never();
    if (websocket) {
      StartWebSocketSession(std::move(stream_), parser_->release(), std::move(channel), std::move(admission_),
                            std::move(event_client), *state_);
    } else {
      StartSseSession(std::move(stream_), std::move(channel), std::move(admission_), std::move(event_client));
    }
  }

  // A GET on a route registered for a session's viewer, with that session's view token.
  bool AdmittedAsViewer() const {
    if (!options().admits_viewer || request_.method != "GET" || match_.viewer_session_param.empty()) return false;
    const auto session = match_.params.find(match_.viewer_session_param);
    if (session == match_.params.end()) return false;
    bool admitted = false;  // every offered token is asked: the time taken shows no more than their number
    for (std::string_view offered : OfferedTokens(request_)) {
      admitted |= options().admits_viewer(session->second, offered);
    }
    return admitted;
  }

  void RespondAfterAuthDelay() {
    timer_.expires_after(ToSteady(options().auth_failure_delay));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return self->CloseNow();
      HttpResponse response = HttpResponse::Error(401, "a valid bearer token is needed");
      response.headers.emplace_back("WWW-Authenticate", "Bearer");
      self->Respond(std::move(response), false);
    });
  }

  void Respond(HttpResponse answer, bool keep_alive) {
    const int status = answer.status >= 100 && answer.status <= 599 ? answer.status : 500;
    response_.emplace();
    response_->version(parser_ && parser_->is_header_done() ? parser_->get().version() : 11);
    response_->result(static_cast<unsigned>(status));
    response_->set(http::field::server, "lingcast");
    if (SafeHeader(answer.content_type)) response_->set(http::field::content_type, answer.content_type);
    for (const auto& [name, value] : answer.headers) {
      // A CR or LF from a handler would let it (or its input) forge headers.
      if (SafeHeader(name) && value.find_first_of("\r\n") == std::string::npos) response_->set(name, value);
    }
    response_->body() = std::move(answer.body);
    response_->keep_alive(keep_alive);
    response_->prepare_payload();
    state_->CountResponse(status);
    // A client that does not read its answer cannot hold the connection either.
    stream_.expires_after(ToSteady(options().idle_timeout));
    http::async_write(stream_, *response_, [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
      if (ec) return self->CloseNow();
      if (keep_alive) return self->ReadHeader();
      self->CloseGracefully();
    });
  }

  // Half-close and drain what the client is still sending, so our answer is
  // not lost to a reset (closing with unread data makes the kernel send RST).
  void CloseGracefully() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::min(ToSteady(options().idle_timeout), ToSteady(absl::Seconds(2))));
    Drain();
  }

  void Drain() {
    stream_.async_read_some(net::buffer(drain_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->CloseNow();
      self->Drain();
    });
  }

  void CloseNow() {
    timer_.cancel();
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  net::steady_timer timer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::string_body>> response_;
  HttpRequest request_;
  RouteMatch match_;
  std::array<char, 4096> drain_{};
  std::shared_ptr<ServerState> state_;
  Admission admission_;  // empty for a rejected connection
};

// "127.0.0.1:8080", "[::1]:8080", "localhost:0".
absl::StatusOr<tcp::endpoint> ParseListen(const std::string& listen) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("listen ", listen, ": ", std::string(why)));
  };
  std::string host;
  std::string_view port_text;
  if (!listen.empty() && listen.front() == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return bad("expected [IPv6]:PORT");
    }
    host = listen.substr(1, close - 1);
    port_text = std::string_view(listen).substr(close + 2);
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return bad("expected HOST:PORT, e.g. 127.0.0.1:8080");
    host = listen.substr(0, colon);
    port_text = std::string_view(listen).substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("write an IPv6 address in brackets: [::1]:8080");
  }
  if (host.empty()) return bad("no host: 127.0.0.1 for this machine only, 0.0.0.0 for every interface");
  int port = -1;
  if (!absl::SimpleAtoi(std::string(port_text), &port) || port < 0 || port > 65535) return bad("the port must be 0-65535");
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code ec;
  const net::ip::address address = net::ip::make_address(host, ec);
  if (ec) return bad(absl::StrCat("\"", host, "\" is not an IP address"));
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

absl::Status BindError(const std::string& listen, beast::error_code ec) {
  const std::string message = absl::StrCat("listen ", listen, ": ", ec.message());
  if (ec == net::error::access_denied) return absl::PermissionDeniedError(message);
  if (ec == net::error::address_in_use) return absl::FailedPreconditionError(message);
  if (ec == boost::system::errc::address_not_available) return absl::InvalidArgumentError(message);
  return absl::UnavailableError(message);
}

}  // namespace
}  // namespace server_internal

namespace beast = boost::beast;
namespace net = boost::asio;
using server_internal::Admission;
using server_internal::BindError;
using server_internal::HttpConnection;
using server_internal::ParseListen;
using server_internal::ServerState;
using server_internal::tcp;

struct HttpServer::Impl {
  explicit Impl(HttpServerOptions options) : state(std::make_shared<ServerState>(std::move(options))) {}

  void Accept() {
    acceptor->async_accept(net::make_strand(*io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, most likely: try again soon rather than spin.
        if (Logger* logger = state->logger()) logger->Warn("server", "accept failed", {{"error", ec.message()}});
        retry->expires_after(std::chrono::milliseconds(100));
        retry->async_wait([this](beast::error_code wait_ec) {
          if (!wait_ec) Accept();
        });
        return;
      }
      if (Admission admission = state->AdmitConnection()) {
        std::make_shared<HttpConnection>(std::move(socket), state, std::move(admission))->Run();
      } else {
        std::make_shared<HttpConnection>(std::move(socket), state, Admission())->Reject();
      }
      Accept();
    });
  }

  void RunThread() {
    // A handler that escapes with an exception (only Asio or allocation can:
    // ours catch theirs) ends that handler, not the server.
    for (;;) {
      try {
        io->run();
        return;
      } catch (const std::exception& e) {
        if (Logger* logger = state->logger()) logger->Error("server", "I/O thread caught", {{"what", e.what()}});
      }
    }
  }

  const std::shared_ptr<ServerState> state;
  std::mutex mu;  // Start and Stop
  bool started ABSL_GUARDED_BY(mu) = false;
  bool stopped ABSL_GUARDED_BY(mu) = false;
  std::atomic<int> port{0};
  // Set in Start; the threads use them until Stop has joined them.
  std::unique_ptr<net::io_context> io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<net::steady_timer> retry;
  std::vector<std::thread> threads;
};

HttpServer::HttpServer(HttpServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Route(std::string method, std::string pattern, Handler handler, RouteAccess access) {
  impl_->state->AddRoute(std::move(method), pattern, std::move(handler), std::move(access));
}

void HttpServer::RouteStream(std::string pattern, StreamHandler handler, RouteAccess access) {
  impl_->state->AddStreamRoute(pattern, std::move(handler), std::move(access));
}

absl::Status HttpServer::Start() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->started) return absl::FailedPreconditionError("the server was started already");
  const HttpServerOptions& options = impl_->state->options();
  LC_ASSIGN_OR_RETURN(const tcp::endpoint endpoint, ParseListen(options.listen));
  const int threads = std::max(1, options.threads);
  auto io = std::make_unique<net::io_context>(threads);
  auto acceptor = std::make_unique<tcp::acceptor>(*io);
  beast::error_code ec;
  acceptor->open(endpoint.protocol(), ec);
  if (ec) return BindError(options.listen, ec);
  // Lets a restarted server bind while old connections sit in TIME_WAIT; a
  // port another socket listens on is still refused.
  acceptor->set_option(net::socket_base::reuse_address(true), ec);
  acceptor->bind(endpoint, ec);
  if (ec) return BindError(options.listen, ec);
  acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) return BindError(options.listen, ec);
  impl_->port = acceptor->local_endpoint(ec).port();
  impl_->retry = std::make_unique<net::steady_timer>(*io);
  impl_->acceptor = std::move(acceptor);
  impl_->io = std::move(io);
  impl_->started = true;
  impl_->Accept();
  for (int i = 0; i < threads; ++i) impl_->threads.emplace_back([impl = impl_.get()] { impl->RunThread(); });
  return absl::OkStatus();
}

int HttpServer::port() const { return impl_->port; }

void HttpServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->state->BeginStop();
  if (!impl_->started) return;
  impl_->io->stop();
  for (std::thread& thread : impl_->threads) thread.join();
  impl_->threads.clear();
  impl_->retry.reset();
  impl_->acceptor.reset();
  // Destroying the context destroys every handler it still holds, and with
  // them the connections they keep alive: their sockets close here.
  impl_->io.reset();
}

HttpServer::Stats HttpServer::stats() const { return impl_->state->stats(); }

}  // namespace lingcast
