// Whole requests as a client's bytes, through the real server (`lingcast
// serve`'s transport, server/http_server.h) on a loopback port: the HTTP
// parser's limits, authentication, routing, bodies, WebSocket and SSE
// upgrades and whatever a client sends after them. The input is sent on a new
// connection, which is then half-closed, and the answer read until the server
// closes it. Nothing may crash, leak or hang the server; a plain GET still
// answers after every input.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "fuzz_input.h"
#include "nlohmann/json.hpp"
#include "server/http_server.h"

namespace {

using namespace lingcast;

std::unique_ptr<HttpServer> StartServer() {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.token = "fuzz-token-0123456789";
  options.auth_failure_delay = absl::ZeroDuration();
  options.idle_timeout = absl::Seconds(2);
  options.max_body_bytes = 64 << 10;
  options.threads = 2;
  auto server = std::make_unique<HttpServer>(options);
  server->Route("GET", "/healthz", [](const HttpRequest&) { return HttpResponse::Json(200, {{"status", "ok"}}); });
  server->Route("GET", "/v1/sessions/{id}", [](const HttpRequest& request) {
    return HttpResponse::Json(200, {{"id", request.params.at("id")}, {"query", request.query}});
  });
  server->Route("DELETE", "/v1/sessions/{id}", [](const HttpRequest&) { return HttpResponse::Json(202, {}); });
  server->Route("POST", "/v1/sessions", [](const HttpRequest& request) {
    const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) return HttpResponse::Error(400, "the body is not JSON");
    return HttpResponse::Json(201, {{"keys", body.is_object() ? body.size() : 0}});
  });
  server->RouteStream("/v1/sessions/{id}/events", [](const HttpRequest& request, std::shared_ptr<EventClient> client) {
    client->Send(nlohmann::json{{"type", "hello"}, {"id", request.params.at("id")}}.dump());
    return absl::OkStatus();
  });
  if (!server->Start().ok()) std::abort();
  return server;
}

[[noreturn]] void Fail(const char* what, int error) {
  std::fprintf(stderr, "fuzz_http_server: %s: %s\n", what, std::strerror(error));
  std::abort();
}

// Connects `fd` to the server. libFuzzer's timeout timer (SIGALRM, handled
// without SA_RESTART) can interrupt a connect that waits on a loaded machine;
// the connection then goes on by itself, so wait for it rather than fail (a
// harness failure that an input alone did not reproduce, docs/reliability.md).
void Connect(int fd, int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) return;
  if (errno != EINTR && errno != EINPROGRESS) Fail("connect to the server", errno);
  pollfd wait{fd, POLLOUT, 0};
  int ready;
  while ((ready = poll(&wait, 1, 5000)) < 0) {
    if (errno != EINTR) Fail("waiting for the connection", errno);
  }
  if (ready == 0) std::abort();  // the server does not take the connection
  int error = 0;
  socklen_t length = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) Fail("SO_ERROR", errno);
  if (error != 0) Fail("connect to the server", error);
}

// Sends `bytes` on a new connection, half-closes it, reads until the server
// closes it (or 5 s of silence: then the server hangs, which is a finding).
void Exchange(int port, std::string_view bytes) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) Fail("socket", errno);
  Connect(fd, port);
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may close early (a refused request): fine
    sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);
  char buffer[4096];
  for (;;) {
    pollfd wait{fd, POLLIN, 0};
    const int ready = poll(&wait, 1, 5000);
    if (ready == 0) std::abort();  // the server neither answers nor closes
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<HttpServer> server = StartServer();
  Exchange(server->port(), fuzz::AsText(data, size));
  return 0;
}
