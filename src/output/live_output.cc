#include "output/live_output.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "output/av_muxer.h"
#include "output/live_queue.h"
#include "output/reconnect_policy.h"

namespace lingcast {
namespace {

constexpr int64_t kFlvBaseStepMs = int64_t{1} << 30;
// At most this much audio (10 s at 48 kHz) waits for a connection's first keyframe.
constexpr size_t kMaxHeldAudioPackets = 470;
// Closing a dead connection (RTMP says goodbye) must not hang the sender.
constexpr MediaTime kCloseTimeout = MediaTime::Seconds(1);

struct CodecParametersDeleter {
  void operator()(AVCodecParameters* p) const { avcodec_parameters_free(&p); }
};
using CodecParametersPtr = std::unique_ptr<AVCodecParameters, CodecParametersDeleter>;

struct FdCloser {
  void operator()(const int* fd) const {
    if (*fd >= 0) close(*fd);
    delete fd;
  }
};

struct HostPort {
  std::string host;
  std::string port;
};

// "rtmp://user@host:1935/app/key" -> {host, "1935"}; RTMP's default port 1935, RTMPS's 443.
std::optional<HostPort> ParseHostPort(const std::string& url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return std::nullopt;
  const std::string scheme = absl::AsciiStrToLower(url.substr(0, scheme_end));
  std::string authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?"));
  if (const size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  HostPort result;
  result.port = scheme == "rtmps" ? "443" : "1935";
  if (!authority.empty() && authority[0] == '[') {
    const size_t close_bracket = authority.find(']');
    if (close_bracket == std::string::npos) return std::nullopt;
    result.host = authority.substr(1, close_bracket - 1);
    if (close_bracket + 1 < authority.size() && authority[close_bracket + 1] == ':') {
      result.port = authority.substr(close_bracket + 2);
    }
  } else {
    const size_t colon = authority.rfind(':');
    result.host = authority.substr(0, colon);
    if (colon != std::string::npos) result.port = authority.substr(colon + 1);
  }
  if (result.host.empty()) return std::nullopt;
  return result;
}

// Can a TCP connection to the server be made at all? Lets the sender tell a
// server that is down (retry) from one that answers and then refuses the
// stream, which libavformat reports with the same generic error.
absl::Status ProbeTcp(const HostPort& target, MediaTime timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* raw = nullptr;
  const int gai = getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &raw);
  if (gai != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve host \"", target.host, "\": ", gai_strerror(gai)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(raw, &freeaddrinfo);
  std::string last_error = "no address";
  for (addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    std::unique_ptr<int, FdCloser> fd(new int(socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol)));
    if (*fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    if (connect(*fd, a->ai_addr, a->ai_addrlen) == 0) return absl::OkStatus();
    if (errno != EINPROGRESS) {
      last_error = std::strerror(errno);
      continue;
    }
    pollfd p{*fd, POLLOUT, 0};
    const int ready = poll(&p, 1, static_cast<int>(timeout.millis()));
    if (ready <= 0) {
      last_error = "timed out";
      continue;
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    getsockopt(*fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error == 0) return absl::OkStatus();
    last_error = std::strerror(so_error);
  }
  return absl::UnavailableError(absl::StrCat("cannot connect to ", target.host, ":", target.port, ": ", last_error));
}

// Does an SRT listener answer at `target`? SRT runs over UDP, so there is no
// connection to try: send the caller's first handshake packet (an induction
// request, 64 bytes: the control header and the handshake body of the SRT
// protocol, version 4, extension 2 for a datagram socket, type 1 = induction)
// and wait for any handshake back. No listener: silence, or the port refused.
absl::Status ProbeSrt(const HostPort& target, MediaTime timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* raw = nullptr;
  const int gai = getaddrinfo(target.host.c_str(), target.port.c_str(), &hints, &raw);
  if (gai != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve host \"", target.host, "\": ", gai_strerror(gai)));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(raw, &freeaddrinfo);
  uint32_t words[16] = {};
  words[0] = 0x80000000u;  // control packet, type 0: handshake
  words[4] = 4;            // version
  words[5] = 2;            // encryption 0, extension 2 (UDT_DGRAM)
  words[6] = 0x1234567u;   // initial sequence number
  words[7] = 1500;         // MTU
  words[8] = 8192;         // flow window
  words[9] = 1;            // handshake type: induction
  words[10] = 0x5EED;      // our socket id (nonzero)
  for (uint32_t& w : words) w = htonl(w);
  for (addrinfo* a = addresses.get(); a != nullptr; a = a->ai_next) {
    std::unique_ptr<int, FdCloser> fd(new int(socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)));
    if (*fd < 0 || connect(*fd, a->ai_addr, a->ai_addrlen) != 0) continue;
    if (send(*fd, words, sizeof(words), 0) != static_cast<ssize_t>(sizeof(words))) continue;
    pollfd p{*fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.millis())) <= 0) continue;
    uint32_t reply[16] = {};
    const ssize_t n = recv(*fd, reply, sizeof(reply), 0);
    if (n >= 16 && ntohl(reply[0]) == 0x80000000u) return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat("no SRT listener answers at ", target.host, ":", target.port));
}

class LiveOutput final : public OutputSink {
 public:
  explicit LiveOutput(const LiveOutputParams& params)
      : spec_(params.spec),
        network_(params.network),
        start_offset_(params.start_offset),
        clock_(*params.clock),
        request_keyframe_(params.request_keyframe),
        on_packet_written_(params.on_packet_written),
        queue_(params.network.congestion_threshold, params.network.reconnect_buffer),
        policy_(params.network.reconnect) {
    stats_.name = spec_.DisplayName();
    stats_.kind = spec_.kind;
    for (const AVCodecContext* codec : {params.video, params.audio}) {
      CodecParametersPtr copy(avcodec_parameters_alloc());
      if (copy && avcodec_parameters_from_context(copy.get(), codec) >= 0) {
        time_bases_.push_back(codec->time_base);
        parameters_.push_back(std::move(copy));
      }
    }
  }

  ~LiveOutput() override {
    abort_ = true;
    queue_.Abort();
    Wake();
    if (thread_.joinable()) thread_.join();
  }

  void Start() {
    if (parameters_.size() != 2) {
      Fail(absl::ResourceExhaustedError("out of memory copying codec parameters"));
      return;
    }
    thread_ = std::thread([this] { Run(); });
  }

  void Write(const AVPacket& packet) override {
    if (failed()) return;
    PacketPtr copy(av_packet_clone(&packet));
    if (!copy) return Fail(absl::ResourceExhaustedError("out of memory queueing a packet"));
    queue_.Push(std::move(copy));
  }

  // RTMP and SRT carry no timed text here; the subtitles are burnt into the picture.
  void AddSubtitle(const SubtitleCue&) override {}

  // The new picture's parameters, taken by the sender thread with the switch's
  // keyframe (AdoptSwitchedVideo), or at its next connection.
  void SwitchVideo(const AVCodecContext& video, const AVCodecContext&) override {
    CodecParametersPtr copy(avcodec_parameters_alloc());
    if (!copy || avcodec_parameters_from_context(copy.get(), &video) < 0) {
      return Fail(absl::ResourceExhaustedError("out of memory copying the switched video's parameters"));
    }
    std::lock_guard<std::mutex> lock(mu_);
    switched_video_ = std::move(copy);
    switched_time_base_ = video.time_base;
  }

  absl::Status Finish() override {
    finish_deadline_us_ = (clock_.Now() + network_.drain_timeout).micros();
    finishing_ = true;
    queue_.Close();
    Wake();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.state == OutputState::kFailed) return error_;
    stats_.state = OutputState::kFinished;
    return absl::OkStatus();
  }

  OutputSinkStats stats() const override {
    OutputSinkStats stats;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats = stats_;
    }
    stats.send_buffer = queue_.span();
    stats.send_buffer_bytes = queue_.bytes();
    stats.send_buffer_packets = queue_.packets();
    stats.max_send_buffer_bytes = queue_.max_bytes();
    stats.max_send_buffer_packets = queue_.max_packets();
    stats.dropped_video_frames = queue_.dropped_video();
    stats.discarded_packets = queue_.discarded() + late_discarded_;
    return stats;
  }

  bool failed() const override { return failed_; }

  void Fail(const absl::Status& status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.state == OutputState::kFailed) return;
    error_ = absl::Status(status.code(), absl::StrCat("output ", spec_.DisplayName(), ": ", status.message()));
    stats_.state = OutputState::kFailed;
    stats_.error = std::string(error_.message());
    stats_.error_code = error_.code();
    failed_ = true;
  }

 private:
  static int Interrupt(void* opaque) {
    auto* self = static_cast<LiveOutput*>(opaque);
    if (self->abort_) return 1;
    const int64_t now = self->clock_.Now().micros();
    if (self->finishing_ && now > self->finish_deadline_us_.load()) return 1;
    return now > self->io_deadline_us_.load() ? 1 : 0;
  }

  void SetState(OutputState state, const std::string& error = "") {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.state == OutputState::kFailed) return;
    stats_.state = state;
    if (!error.empty()) stats_.error = error;
  }

  // Waits until the injected clock reaches `deadline`, reading it every few
  // milliseconds rather than sleeping on it, so that Finish and destruction
  // wake the sender at once and a test's SimulatedClock can be stepped.
  bool WaitUntil(MediaTime deadline) {
    std::unique_lock<std::mutex> lock(wake_mu_);
    while (!abort_ && !finishing_) {
      if (clock_.Now() >= deadline) return true;
      wake_.wait_for(lock, std::chrono::milliseconds(5));
    }
    return false;
  }

  // NetworkOptions::srt_close_hold: the receiver plays out its latency buffer
  // before it sees the close. Real time, as that buffer is: a test's stepped
  // clock does not move it.
  void HoldSrtOpen() {
    const MediaTime hold = std::min(network_.srt_close_hold, network_.drain_timeout);
    if (hold <= MediaTime::Zero()) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(hold.micros());
    std::unique_lock<std::mutex> lock(wake_mu_);
    while (!abort_ && std::chrono::steady_clock::now() < until) wake_.wait_until(lock, until);
  }

  // Whether the server answers at all: a TCP connection (RTMP) or an SRT
  // induction handshake (SRT).
  absl::Status Probe(const HostPort& target, MediaTime timeout) const {
    return spec_.kind == OutputSpec::kRtmp ? ProbeTcp(target, timeout) : ProbeSrt(target, timeout);
  }

  // Waits for the next connection attempt (WaitUntil), bringing it forward
  // when a probe finds the server back (ReconnectOptions::probe_interval).
  // It may only after a connection was lost, or after an attempt (or a probe
  // since) found no server answering: a server that answers but fails the
  // connect is not retried any faster than the backoff, or the retries would
  // run out in seconds.
  bool WaitForAttempt() {
    const MediaTime interval = network_.reconnect.probe_interval;
    const std::optional<HostPort> target = ParseHostPort(spec_.target);
    if (!target || interval <= MediaTime::Zero()) return WaitUntil(next_attempt_);
    bool may_hasten = probe_may_hasten_;
    while (!abort_ && !finishing_) {
      const MediaTime now = clock_.Now();
      if (now >= next_attempt_) return true;
      if (!WaitUntil(std::min(next_attempt_, now + interval))) return false;
      if (clock_.Now() >= next_attempt_) return true;
      if (!Probe(*target, std::min(interval, kCloseTimeout)).ok()) {
        may_hasten = true;  // the server is down: when a probe finds it again, it is back
      } else if (may_hasten) {
        next_attempt_ = std::min(next_attempt_, policy_.ServerBack(clock_.Now()));
        return WaitUntil(next_attempt_);
      }
    }
    return false;
  }

  void Wake() {
    std::lock_guard<std::mutex> lock(wake_mu_);
    wake_.notify_all();
  }

  // OK, or the error with `permanent` set when retrying cannot help.
  // Sender thread: the parameters a switch left become this output's (for its
  // next connection). An MPEG-TS muxer puts its stream's SPS/PPS before every
  // keyframe itself, so the open one takes the new ones too; FLV's writes a new
  // AVC sequence header from the keyframe's side data.
  absl::Status AdoptSwitchedVideo() {
    CodecParametersPtr switched;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!switched_video_) return absl::OkStatus();
      switched = std::move(switched_video_);
      time_bases_[kVideoStreamIndex] = switched_time_base_;
    }
    parameters_[kVideoStreamIndex] = std::move(switched);
    if (muxer_ && spec_.kind == OutputSpec::kSrt) {
      const AVCodecParameters& video = *parameters_[kVideoStreamIndex];
      return muxer_->ReplaceExtradata(kVideoStreamIndex, video.extradata, video.extradata_size);
    }
    return absl::OkStatus();
  }

  absl::Status Connect(bool reconnect, bool& permanent) {
    permanent = false;
    LC_RETURN_IF_ERROR(AdoptSwitchedVideo());
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.last_connect_attempt = clock_.Now();
    }
    io_deadline_us_ = (clock_.Now() + network_.connect_timeout).micros();
    const bool rtmp = spec_.kind == OutputSpec::kRtmp;
    std::map<std::string, std::string> io_options;
    if (rtmp) {
      const std::optional<HostPort> target = ParseHostPort(spec_.target);
      if (!target) {
        permanent = true;
        return absl::InvalidArgumentError("the URL has no host");
      }
      const absl::Status reachable = ProbeTcp(*target, network_.connect_timeout);
      probe_may_hasten_ = !reachable.ok();
      LC_RETURN_IF_ERROR(reachable);
      // libavformat's rtmp passes options it does not know on to its tcp connection.
      if (network_.socket_send_buffer_bytes > 0) {
        io_options["send_buffer_size"] = std::to_string(network_.socket_send_buffer_bytes);
      }
    } else {
      io_options["connect_timeout"] = std::to_string(network_.connect_timeout.millis());
      // Live-mode SRT drops what is unsent at close unless told to linger.
      io_options["linger"] = std::to_string(std::max<int64_t>(1, network_.drain_timeout.millis() / 1000));
    }
    int open_error = 0;
    AvConnection connection;
    connection.interrupt = AVIOInterruptCB{&LiveOutput::Interrupt, this};
    connection.io_options = io_options;
    connection.open_error = &open_error;
    std::vector<const AVCodecParameters*> streams;
    for (const auto& p : parameters_) streams.push_back(p.get());
    // Interleave by DTS, but hold a stream back at most 200 ms waiting for the
    // other: under congestion video is missing for a while and audio must go on.
    std::map<std::string, std::string> muxer_options = {{"flush_packets", "1"},
                                                        {"max_interleave_delta", "200000"}};
    if (rtmp) muxer_options["flvflags"] = "no_duration_filesize";
    auto muxer = AvMuxer::Open(rtmp ? "flv" : "mpegts", spec_.target, streams, time_bases_, muxer_options,
                               spec_.DisplayName(), connection);
    if (!muxer.ok()) {
      if (abort_) return absl::CancelledError("stopped");
      // The server took the TCP connection (the probe) and then refused the
      // RTMP connect or publish: a wrong application, stream key or credentials.
      if (rtmp && (open_error == AVERROR(EIO) || open_error == AVERROR_EOF || open_error == AVERROR_UNKNOWN ||
                   open_error == AVERROR(ECONNRESET) || open_error == AVERROR(EPIPE))) {
        permanent = true;
        return absl::PermissionDeniedError(absl::StrCat(
            "the server refused the stream (wrong application or stream key, or authentication failed): ",
            muxer.status().message()));
      }
      return muxer.status();
    }
    muxer_ = std::move(*muxer);
    base_us_.reset();
    connection_key_dts_.reset();
    held_audio_.clear();
    queue_.SetConnected(true, reconnect);
    policy_.OnConnected(clock_.Now());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (reconnect) ++stats_.reconnects;
      stats_.error.clear();
      bytes_before_connection_ = stats_.bytes;
    }
    ++connections_;
    if (reconnect && request_keyframe_) request_keyframe_();
    SetState(OutputState::kConnected);
    return absl::OkStatus();
  }

  void CloseConnection(bool graceful) {
    if (!muxer_) return;
    io_deadline_us_ = (clock_.Now() + (graceful ? network_.drain_timeout : kCloseTimeout)).micros();
    if (graceful) (void)muxer_->Finish();
    muxer_.reset();
  }

  // A lost connection: schedule the next attempt or give up.
  bool Disconnected(const absl::Status& why) {
    CloseConnection(/*graceful=*/false);
    queue_.SetConnected(false, false);
    const std::optional<MediaTime> next = policy_.OnDisconnected(clock_.Now());
    if (!next) {
      Fail(absl::UnavailableError(absl::StrCat("gave up after ", network_.reconnect.max_retries,
                                               " failed attempts to connect; last error: ", why.message())));
      return false;
    }
    next_attempt_ = *next;
    SetState(OutputState::kReconnecting, std::string(why.message()));
    return true;
  }

  // A connection starts at a video keyframe K, and FLV refuses any packet
  // earlier than a connection's first. Audio that comes before K is seen is
  // held (a render writes a spoken line's audio seconds ahead of its frames)
  // and sent after K from K on; video before K and audio earlier than K are
  // discarded.
  absl::Status Send(PacketPtr packet) {
    const bool video = packet->stream_index == kVideoStreamIndex;
    if (video && av_packet_get_side_data(packet.get(), AV_PKT_DATA_NEW_EXTRADATA, nullptr) != nullptr) {
      LC_RETURN_IF_ERROR(AdoptSwitchedVideo());
    }
    if (!connection_key_dts_) {
      if (!video) {
        held_audio_.push_back(std::move(packet));
        if (held_audio_.size() > kMaxHeldAudioPackets) {
          held_audio_.pop_front();
          ++late_discarded_;
        }
        return absl::OkStatus();
      }
      if (!(packet->flags & AV_PKT_FLAG_KEY)) {
        ++late_discarded_;
        return absl::OkStatus();
      }
      connection_key_dts_ = packet->dts;
      LC_RETURN_IF_ERROR(WriteOne(*packet));
      std::deque<PacketPtr> held = std::move(held_audio_);
      held_audio_.clear();
      for (PacketPtr& audio : held) {
        if (audio->dts < *connection_key_dts_) {
          ++late_discarded_;
          continue;
        }
        LC_RETURN_IF_ERROR(WriteOne(*audio));
      }
      return absl::OkStatus();
    }
    if (packet->dts < *connection_key_dts_) {
      ++late_discarded_;
      return absl::OkStatus();
    }
    return WriteOne(*packet);
  }

  absl::Status WriteOne(AVPacket& packet) {
    const MediaTime media_pts = MediaTime::Micros(packet.pts);
    int64_t shift_us = start_offset_.micros();
    if (spec_.kind == OutputSpec::kRtmp) {
      const int64_t ms = (packet.dts + shift_us) / 1000;
      if (!base_us_) base_us_ = FlvConnectionBase(ms) * 1000;
      if (ms - *base_us_ / 1000 >= kFlvTimestampLimitMs) return absl::OutOfRangeError("flv timeline full");
      shift_us -= *base_us_;
    }
    packet.pts += shift_us;
    packet.dts += shift_us;
    io_deadline_us_ = finishing_ ? finish_deadline_us_.load() : (clock_.Now() + network_.write_timeout).micros();
    LC_RETURN_IF_ERROR(muxer_->WritePacket(packet.stream_index, packet, kPacketTimeBase));
    const MediaTime now = clock_.Now();
    {
      std::lock_guard<std::mutex> lock(mu_);
      const MediaTime dts = MediaTime::Micros(packet.dts);
      if (packet.stream_index == kVideoStreamIndex) {
        ++stats_.video_packets;
        last_video_ = dts;
      } else {
        ++stats_.audio_packets;
        last_audio_ = dts;
      }
      if (!first_dts_) first_dts_ = dts;
      stats_.last_dts = std::max(last_video_, last_audio_);
      stats_.av_offset = last_audio_ - last_video_;
      stats_.bytes = bytes_before_connection_ + muxer_->bytes_written();
      const double seconds = (stats_.last_dts - *first_dts_).seconds();
      if (seconds > 0) stats_.bitrate = static_cast<double>(stats_.bytes) * 8 / seconds;
    }
    if (on_packet_written_) {
      on_packet_written_(stats_.name, PacketWritten{packet.stream_index, media_pts, now,
                                                    (packet.flags & AV_PKT_FLAG_KEY) != 0, connections_ - 1});
    }
    return absl::OkStatus();
  }

  void Run() {
    bool connected_once = false;
    next_attempt_ = clock_.Now();
    while (!abort_) {
      if (!muxer_) {
        if (finishing_) {
          Fail(absl::UnavailableError(absl::StrCat("not connected when the stream ended; last error: ",
                                                   stats().error.empty() ? "none" : stats().error)));
          return;
        }
        if (!WaitForAttempt()) continue;
        bool permanent = false;
        const absl::Status status = Connect(connected_once, permanent);
        if (status.ok()) {
          connected_once = true;
          continue;
        }
        if (permanent) return Fail(status);
        if (spec_.kind == OutputSpec::kSrt) {
          // As RTMP's connect does with its TCP probe: was anybody there?
          const std::optional<HostPort> target = ParseHostPort(spec_.target);
          probe_may_hasten_ = target && !ProbeSrt(*target, MediaTime::Millis(200)).ok();
        }
        if (!Disconnected(status)) return;
        continue;
      }
      PacketPtr packet = queue_.Pop();
      if (!packet) {
        if (abort_) return;
        io_deadline_us_ = finish_deadline_us_.load();
        const absl::Status status =
            spec_.kind == OutputSpec::kSrt ? muxer_->Finish([this] { HoldSrtOpen(); }) : muxer_->Finish();
        muxer_.reset();
        if (!status.ok()) Fail(status);
        return;
      }
      const absl::Status status = Send(std::move(packet));
      if (status.code() == absl::StatusCode::kOutOfRange) {
        // The FLV timeline of this connection is full: start a new one now.
        CloseConnection(/*graceful=*/true);
        queue_.SetConnected(false, false);
        next_attempt_ = clock_.Now();
        continue;
      }
      if (!status.ok()) {
        if (abort_) return;
        if (finishing_ && clock_.Now().micros() > finish_deadline_us_) {
          return Fail(absl::DeadlineExceededError(absl::StrCat(
              "the queue did not drain within ", network_.drain_timeout.ToString(), " at the end")));
        }
        // A lost connection: a probe that finds the server may bring the next attempt forward.
        probe_may_hasten_ = true;
        if (!Disconnected(status)) return;
      }
    }
  }

  const OutputSpec spec_;
  const NetworkOptions network_;
  const MediaTime start_offset_;
  Clock& clock_;
  const std::function<void()> request_keyframe_;
  const PacketWrittenObserver on_packet_written_;
  std::vector<CodecParametersPtr> parameters_;
  std::vector<AVRational> time_bases_;
  LivePacketQueue queue_;

  std::atomic<bool> abort_{false};
  std::atomic<bool> finishing_{false};
  std::atomic<bool> failed_{false};
  std::atomic<int64_t> io_deadline_us_{INT64_MAX};
  std::atomic<int64_t> finish_deadline_us_{INT64_MAX};

  // Sender thread only.
  ReconnectPolicy policy_;
  std::unique_ptr<AvMuxer> muxer_;
  MediaTime next_attempt_;
  bool probe_may_hasten_ = false;  // see WaitForAttempt
  std::optional<int64_t> base_us_;
  std::optional<int64_t> connection_key_dts_;  // of this connection's first keyframe
  std::deque<PacketPtr> held_audio_;          // audio that came before it
  std::atomic<int64_t> late_discarded_{0};
  int connections_ = 0;
  std::optional<MediaTime> first_dts_;
  MediaTime last_video_, last_audio_;

  std::mutex wake_mu_;
  std::condition_variable wake_;

  mutable std::mutex mu_;
  OutputSinkStats stats_ ABSL_GUARDED_BY(mu_);
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_before_connection_ ABSL_GUARDED_BY(mu_) = 0;
  // Left by SwitchVideo for the sender thread.
  CodecParametersPtr switched_video_ ABSL_GUARDED_BY(mu_);
  AVRational switched_time_base_ ABSL_GUARDED_BY(mu_){1, 1};

  std::thread thread_;  // last: started after every member above exists
};

}  // namespace

int64_t FlvConnectionBase(int64_t first_ms) {
  return first_ms < 0 ? 0 : (first_ms / kFlvBaseStepMs) * kFlvBaseStepMs;
}

std::unique_ptr<OutputSink> OpenLiveOutput(const LiveOutputParams& params) {
  auto output = std::make_unique<LiveOutput>(params);
  output->Start();
  return output;
}

}  // namespace lingcast
