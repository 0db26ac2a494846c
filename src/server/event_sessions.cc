// WebSocket and SSE clients: one writer per connection, fed by its
// EventChannel; one reader that only notices the client going away (the
// streams are one-way: what a client sends is read and dropped).
#include <array>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "absl/strings/str_split.h"
#include "server/server_internal.h"

namespace lingcast::server_internal {
namespace {

namespace websocket = boost::beast::websocket;

// The writer loop both transports share; they differ in framing and closing.
class EventSession : public std::enable_shared_from_this<EventSession> {
 public:
  EventSession(std::shared_ptr<EventChannel> channel, Admission connection, Admission event_client)
      : channel_(std::move(channel)), connection_(std::move(connection)), event_client_(std::move(event_client)) {}
  virtual ~EventSession() { channel_->Detach(); }

 protected:
  virtual net::any_io_executor executor() = 0;
  // Starts one async write of `message_`; its completion calls OnWritten.
  virtual void WriteMessage() = 0;
  virtual void CloseGracefully() = 0;
  virtual void CloseNow() = 0;

  // Once the transport is ready: from now on the channel's Send() wakes us.
  void Attach() {
    std::weak_ptr<EventSession> weak = weak_from_this();
    net::any_io_executor ex = executor();
    channel_->SetWaker([weak, ex] {
      net::post(ex, [weak] {
        if (auto self = weak.lock()) self->Pump();
      });
    });
    Pump();
  }

  void Pump() {
    if (done_) return;
    if (writing_) {
      // The write in flight may never finish (a client that stopped reading):
      // an overflow must not wait for it.
      if (channel_->overflowed()) Abort();
      return;
    }
    switch (channel_->TakeNext(&message_)) {
      case EventChannel::Next::kMessage:
        writing_ = true;
        WriteMessage();
        break;
      case EventChannel::Next::kIdle:
        break;
      case EventChannel::Next::kClose:
        done_ = true;
        channel_->Detach();
        CloseGracefully();
        break;
      case EventChannel::Next::kAbort:
        Abort();
        break;
    }
  }

  void OnWritten(beast::error_code ec) {
    writing_ = false;
    if (ec) return Abort();
    Pump();
  }

  // The client is gone or must go: nothing more is sent.
  void Abort() {
    channel_->Detach();
    if (closed_) return;
    done_ = true;
    closed_ = true;
    CloseNow();
  }

  std::shared_ptr<EventChannel> channel_;
  std::string message_;  // the one being written
  bool writing_ = false;
  bool done_ = false;    // no more writes
  bool closed_ = false;  // the socket is closed

 private:
  // Given back when the session ends, however it ends.
  Admission connection_;
  Admission event_client_;
};

class WebSocketSession final : public EventSession {
 public:
  WebSocketSession(beast::tcp_stream stream, http::request<http::string_body> request,
                   std::shared_ptr<EventChannel> channel, Admission connection, Admission event_client,
                   const ServerState& state)
      : EventSession(std::move(channel), std::move(connection), std::move(event_client)),
        ws_(std::move(stream)),
        request_(std::move(request)) {
    websocket::stream_base::timeout timeout = websocket::stream_base::timeout::suggested(beast::role_type::server);
    // Pings find the browser tab that vanished without a FIN; browsers answer them.
    timeout.idle_timeout = ToSteady(state.options().idle_timeout);
    timeout.keep_alive_pings = true;
    ws_.set_option(timeout);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, "lingcast"); }));
    ws_.read_message_max(state.options().max_body_bytes);
    // One frame per event: simplest for every client, and events are small.
    ws_.auto_fragment(false);
  }

  void Run() {
    ws_.async_accept(request_, [self = Self()](beast::error_code ec) {
      if (ec) return self->Abort();
      self->Read();
      self->Attach();
    });
  }

 private:
  std::shared_ptr<WebSocketSession> Self() { return std::static_pointer_cast<WebSocketSession>(shared_from_this()); }
  net::any_io_executor executor() override { return ws_.get_executor(); }

  void Read() {
    ws_.async_read(read_buffer_, [self = Self()](beast::error_code ec, size_t) {
      // websocket::error::closed: the client's close frame, already answered by Beast.
      if (ec) return self->Abort();
      self->read_buffer_.consume(self->read_buffer_.size());
      self->Read();
    });
  }

  void WriteMessage() override {
    ws_.text(true);
    ws_.async_write(net::buffer(message_),
                    [self = Self()](beast::error_code ec, size_t) { self->OnWritten(ec); });
  }

  void CloseGracefully() override {
    // The read loop sees the client's answer (error::closed) and ends the session.
    ws_.async_close(websocket::close_code::normal, [self = Self()](beast::error_code ec) {
      if (ec) self->Abort();
    });
  }

  void CloseNow() override { beast::get_lowest_layer(ws_).close(); }

  websocket::stream<beast::tcp_stream> ws_;
  http::request<http::string_body> request_;  // alive until the handshake is done
  beast::flat_buffer read_buffer_;
};

// text/event-stream: a close-delimited response, one "data:" line per line of a message.
class SseSession final : public EventSession {
 public:
  SseSession(beast::tcp_stream stream, std::shared_ptr<EventChannel> channel, Admission connection,
             Admission event_client)
      : EventSession(std::move(channel), std::move(connection), std::move(event_client)),
        stream_(std::move(stream)) {}

  void Run() {
    // X-Accel-Buffering: a reverse proxy (nginx) must pass events on as they come.
    message_ =
        "HTTP/1.1 200 OK\r\nServer: lingcast\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "X-Accel-Buffering: no\r\nConnection: close\r\n\r\n";
    writing_ = true;
    WriteRaw();
    Read();
    Attach();
  }

 private:
  std::shared_ptr<SseSession> Self() { return std::static_pointer_cast<SseSession>(shared_from_this()); }
  net::any_io_executor executor() override { return stream_.get_executor(); }

  void Read() {
    stream_.async_read_some(net::buffer(discard_), [self = Self()](beast::error_code ec, size_t) {
      if (ec) return self->Abort();  // the client closed (or the socket did)
      self->Read();
    });
  }

  void WriteMessage() override {
    std::string frame;
    for (absl::string_view line : absl::StrSplit(message_, '\n')) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      frame.append("data: ").append(line.data(), line.size()).append("\n");
    }
    frame.append("\n");
    message_ = std::move(frame);
    WriteRaw();
  }

  void WriteRaw() {
    net::async_write(stream_, net::buffer(message_),
                     [self = Self()](beast::error_code ec, size_t) { self->OnWritten(ec); });
  }

  // Every event was written (into the kernel's buffer, which still delivers it
  // after a close): the end of the body is the end of the connection.
  void CloseGracefully() override {
    closed_ = true;
    stream_.close();
  }

  void CloseNow() override { stream_.close(); }

  beast::tcp_stream stream_;
  std::array<char, 512> discard_{};
};

}  // namespace

void StartWebSocketSession(beast::tcp_stream stream, http::request<http::string_body> request,
                           std::shared_ptr<EventChannel> channel, Admission connection, Admission event_client,
                           const ServerState& state) {
  std::make_shared<WebSocketSession>(std::move(stream), std::move(request), std::move(channel),
                                     std::move(connection), std::move(event_client), state)
      ->Run();
}

void StartSseSession(beast::tcp_stream stream, std::shared_ptr<EventChannel> channel, Admission connection,
                     Admission event_client) {
  std::make_shared<SseSession>(std::move(stream), std::move(channel), std::move(connection), std::move(event_client))
      ->Run();
}

}  // namespace lingcast::server_internal
