// network_faults: the live outputs through a bad network on loopback, with
// figures. Reruns itself in a user + network namespace (unshare -rn) whose
// loopback it may shape; where none can be made it says why and runs what
// needs none (the relays), skipping the bandwidth cap.
//
//   network_faults [--seconds 10] [--cycles 20] [--down-ms 3000] [--no-netns]
//                  [--only delay|stall|srt|cap|kill|srt-restart] [--verbose]
//
// Scenarios (real time, frames paced at 30 fps, 320x180 noise video, AAC):
//   delay+jitter  RTMP, 40 ms +- 20 ms each way (netem where the kernel has it,
//                 else a user-space TCP relay)
//   stall         RTMP, the link carries nothing for 5 s, then recovers (relay)
//   srt loss      SRT, 2% loss and 20 ms +- 10 ms each way (netem, else a UDP
//                 relay); the listener's latency is 500 ms
//   bandwidth cap RTMP at 2 Mbit/s into a 900 kbit/s tbf cap on loopback, the
//                 cap lifted halfway (needs the namespace)
//   kill/restart  nginx kill -9'd and restarted `cycles` times, every other
//                 outage `down-ms` long; the server records every publish
//   srt restart   the SRT listener closed and opened again (at most 6 cycles)
// and prints one table: reconnect time after the server is back (p50/max),
// whether every connection (and every recorded file) starts at a keyframe,
// audio lost, video dropped, the send queue's high water, bitrate steps,
// and fds/threads/RSS before/after the cycles. Never fails on time.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/clock.h"
#include "output/fault_relay.h"
#include "output/net_namespace.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/rtmp_test_server.h"
#include "output/test_util.h"

namespace lingcast {
namespace {

using testing_util::LinkFaults;
using testing_util::NoiseVideo;
using testing_util::RtmpTestServer;
using SteadyClock = std::chrono::steady_clock;

struct Options {
  double seconds = 10;
  int cycles = 20;
  int down_ms = 3000;
  bool no_netns = false;
  std::string only;
  bool verbose = false;
};

bool g_verbose = false;

constexpr int kSpeechRate = 22050;
constexpr int kFps = 30;  // NoiseVideo()'s

struct Row {
  std::string name, path;
  std::string reconnect = "-";  // p50/max seconds after the server is back
  std::string keyframe_first = "-";
  int64_t audio_lost = 0;
  int64_t video_dropped = 0;
  int64_t max_queue_bytes = 0;
  int64_t max_queue_packets = 0;
  std::string steps = "-";  // down/up, lowest kbit/s
  std::string notes;
};

std::vector<Row> g_rows;  // main's table; filled by the scenarios in order

double Seconds(SteadyClock::duration d) { return std::chrono::duration<double>(d).count(); }

int CountEntries(const char* dir) {
  int count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++count;
  return count;
}

double RssMb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return 0;
}

AudioEncoderOptions Speech() { return testing_util::SpeechAudio(kSpeechRate); }

struct WireLog {
  std::mutex mu;
  std::vector<PacketWritten> packets;
  std::vector<SteadyClock::time_point> first_packet_of_connection;
  PacketWrittenObserver Observer() {
    return [this](const std::string&, const PacketWritten& p) {
      std::lock_guard<std::mutex> lock(mu);
      if (static_cast<size_t>(p.connection) >= first_packet_of_connection.size()) {
        first_packet_of_connection.resize(p.connection + 1, SteadyClock::time_point{});
      }
      if (first_packet_of_connection[p.connection] == SteadyClock::time_point{}) {
        first_packet_of_connection[p.connection] = SteadyClock::now();
      }
      packets.push_back(p);
    };
  }
  // Connections whose first packet is a video keyframe, of all connections.
  std::pair<int, int> KeyframeFirst() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<int> first(first_packet_of_connection.size(), -1);  // -1 none, 0 bad, 1 good
    for (const PacketWritten& p : packets) {
      if (first[p.connection] == -1) first[p.connection] = p.stream_index == kVideoStreamIndex && p.key ? 1 : 0;
    }
    return {static_cast<int>(std::count(first.begin(), first.end(), 1)), static_cast<int>(first.size())};
  }
  // Video that resumed after a gap without a keyframe.
  int UndecodableResumes() {
    std::lock_guard<std::mutex> lock(mu);
    MediaTime previous = MediaTime::Micros(-1);
    int bad = 0;
    for (const PacketWritten& p : packets) {
      if (p.stream_index != kVideoStreamIndex) continue;
      if (previous >= MediaTime::Zero() && p.pts - previous > MediaTime::Millis(40) && !p.key) ++bad;
      previous = p.pts;
    }
    return bad;
  }
};

// A paced push: `at_frame(i)` runs before frame i (to apply or lift faults).
struct PushResult {
  OutputSetStats stats;
  absl::Status finish;
};

PushResult Push(const std::string& url, const VideoEncoderOptions& video, double seconds, OutputSetOptions options,
                WireLog& wire, const std::function<void(int64_t)>& at_frame = nullptr) {
  SystemClock clock;
  options.on_packet_written = wire.Observer();
  options.network.drain_timeout = MediaTime::Seconds(60);
  auto spec = ParseOutputSpec(url);
  if (!spec.ok()) return {{}, spec.status()};
  auto set = OutputSet::Open({*spec}, video, Speech(), options, clock);
  if (!set.ok()) return {{}, set.status()};
  testing_util::PollUntil([&] { return (*set)->stats().outputs[0].state == OutputState::kConnected; });
  const AudioBuffer tone = testing_util::MakeTone(1.0 / kFps, kSpeechRate);
  const MediaTime start = clock.Now();
  const int64_t frames = static_cast<int64_t>(seconds * kFps);
  OutputState last_state = OutputState::kConnected;
  for (int64_t i = 0; i < frames; ++i) {
    if (g_verbose) {
      const OutputSinkStats now = (*set)->stats().outputs[0];
      if (now.state != last_state) {
        std::fprintf(stderr, "%.2f s: %s, queue %lld bytes; %s\n", static_cast<double>(i) / kFps,
                     OutputStateName(now.state), static_cast<long long>(now.send_buffer_bytes), now.error.c_str());
        last_state = now.state;
      }
    }
    if (at_frame) at_frame(i);
    clock.SleepUntil(start + MediaTime::FromFrameIndex(i, kFps));
    if (!(*set)->WriteAudio(tone).ok()) break;
    if (!(*set)->WriteVideo(testing_util::MakeNoiseFrame(video.width, video.height, i % 90), i).ok()) break;
  }
  PushResult result;
  result.finish = (*set)->Finish();
  result.stats = (*set)->stats();
  return result;
}

// Noise frames and their audio into `set` at real time from the first call
// on; a write that fails (the output is down) is counted by the set, not here.
class PacedFrames {
 public:
  PacedFrames(OutputSet& set, const VideoEncoderOptions& video, Clock& clock)
      : set_(set), video_(video), clock_(clock), tone_(testing_util::MakeTone(1.0 / kFps, kSpeechRate)),
        start_(clock.Now()) {}
  void operator()(double seconds) {
    for (int64_t end = next_ + static_cast<int64_t>(seconds * kFps); next_ < end; ++next_) {
      clock_.SleepUntil(start_ + MediaTime::FromFrameIndex(next_, kFps));
      (void)set_.WriteAudio(tone_);
      (void)set_.WriteVideo(testing_util::MakeNoiseFrame(video_.width, video_.height, next_ % 90), next_);
    }
  }

 private:
  OutputSet& set_;
  const VideoEncoderOptions video_;
  Clock& clock_;
  const AudioBuffer tone_;
  const MediaTime start_;
  int64_t next_ = 0;
};

Row RowFrom(const std::string& name, const std::string& path, const PushResult& push, WireLog& wire) {
  Row row;
  row.name = name;
  row.path = path;
  if (push.stats.outputs.empty()) {
    row.notes = absl::StrCat("failed: ", push.finish.message());
    return row;
  }
  const OutputSinkStats& out = push.stats.outputs[0];
  // Every audio packet is sent but AAC's priming, which precedes the first keyframe.
  row.audio_lost = push.stats.audio_packets - 1 - out.audio_packets;
  row.video_dropped = out.dropped_video_frames;
  row.max_queue_bytes = out.max_send_buffer_bytes;
  row.max_queue_packets = out.max_send_buffer_packets;
  const auto [good, all] = wire.KeyframeFirst();
  row.keyframe_first = good == all ? "yes" : absl::StrCat("no (", good, "/", all, ")");
  row.steps = absl::StrCat(push.stats.bitrate_steps_down, "/", push.stats.bitrate_steps_up, ", ",
                           push.stats.min_video_bitrate / 1000);
  if (const int bad = wire.UndecodableResumes(); bad > 0) absl::StrAppend(&row.notes, bad, " resumes without a keyframe; ");
  if (!push.finish.ok()) absl::StrAppend(&row.notes, "finish: ", push.finish.message());
  return row;
}

void DelayJitter(const RtmpTestServer& server, bool netem, double seconds) {
  WireLog wire;
  std::string url = server.Url("live", "delay");
  std::unique_ptr<testing_util::TcpFaultRelay> relay;
  std::string path = "netem delay 40ms 20ms";
  if (netem) {
    testing_util::SetLoopbackQdisc({"netem", "delay", "40ms", "20ms"});
  } else {
    LinkFaults faults;
    faults.delay = std::chrono::milliseconds(40);
    faults.jitter = std::chrono::milliseconds(20);
    relay = std::make_unique<testing_util::TcpFaultRelay>(server.port(), faults);
    url = absl::StrCat("rtmp://127.0.0.1:", relay->port(), "/live/delay");
    path = "TCP relay 40+-20 ms";
  }
  const PushResult push = Push(url, NoiseVideo(1'500'000), seconds, {}, wire);
  if (netem) testing_util::ClearLoopbackQdisc();
  g_rows.push_back(RowFrom("RTMP delay+jitter", path, push, wire));
}

void Stall(const RtmpTestServer& server, double seconds) {
  WireLog wire;
  testing_util::TcpFaultRelay relay(server.port(), LinkFaults{});
  const std::string url = absl::StrCat("rtmp://127.0.0.1:", relay.port(), "/live/stall");
  const int64_t stall_from = 2 * kFps, stall_to = 7 * kFps;
  const PushResult push = Push(url, NoiseVideo(1'500'000), std::max(seconds, 12.0), {}, wire, [&](int64_t i) {
    if (i == stall_from) relay.Stall();
    if (i == stall_to) relay.Resume();
  });
  Row row = RowFrom("RTMP stall 5 s", "TCP relay", push, wire);
  if (!push.stats.outputs.empty()) absl::StrAppend(&row.notes, "reconnects ", push.stats.outputs[0].reconnects);
  g_rows.push_back(row);
}

bool HasSrtProtocol() {
  void* opaque = nullptr;
  while (const char* name = avio_enum_protocols(&opaque, 1)) {
    if (std::string(name) == "srt") return true;
  }
  return false;
}

void SrtLoss(bool netem, double seconds) {
  if (!HasSrtProtocol()) {
    g_rows.push_back(Row{"SRT loss 2%", "-", "-", "-", 0, 0, 0, 0, "-", "skipped: libavformat has no libsrt"});
    return;
  }
  const int port = testing_util::FreeLoopbackPort();
  testing_util::LiveReader listener(absl::StrCat("srt://127.0.0.1:", port, "?mode=listener&latency=500000"),
                                    {{"timeout", "30000000"}});
  std::unique_ptr<testing_util::UdpFaultRelay> relay;
  int send_port = port;
  std::string path = "netem loss 2% delay 20ms 10ms";
  if (netem) {
    testing_util::SetLoopbackQdisc({"netem", "loss", "2%", "delay", "20ms", "10ms"});
  } else {
    LinkFaults faults;
    faults.loss = 0.02;
    faults.delay = std::chrono::milliseconds(20);
    faults.jitter = std::chrono::milliseconds(10);
    faults.seed = 3;
    relay = std::make_unique<testing_util::UdpFaultRelay>(port, faults);
    send_port = relay->port();
    path = "UDP relay 2%, 20+-10 ms";
  }
  WireLog wire;
  const PushResult push = Push(absl::StrCat("srt://127.0.0.1:", send_port), NoiseVideo(600'000), seconds, {}, wire);
  testing_util::PollUntil([&] { return listener.done(); }, std::chrono::seconds(10));
  const auto& read = listener.Stop();
  if (netem) testing_util::ClearLoopbackQdisc();
  Row row = RowFrom("SRT loss 2%", path, push, wire);
  if (read.ok() && read->Find(AVMEDIA_TYPE_VIDEO) && !push.stats.outputs.empty()) {
    absl::StrAppend(&row.notes, "received ", read->Find(AVMEDIA_TYPE_VIDEO)->packets.size(), "/",
                    push.stats.outputs[0].video_packets, " video, ",
                    read->Find(AVMEDIA_TYPE_AUDIO) ? read->Find(AVMEDIA_TYPE_AUDIO)->packets.size() : 0, "/",
                    push.stats.outputs[0].audio_packets, " audio");
  }
  if (relay) absl::StrAppend(&row.notes, ", ", relay->lost(), " datagrams lost");
  g_rows.push_back(row);
}

void BandwidthCap(const RtmpTestServer& server, double seconds, const std::string& no_namespace) {
  if (!no_namespace.empty()) {
    g_rows.push_back(Row{"RTMP cap 900 kbit/s", "-", "-", "-", 0, 0, 0, 0, "-", "skipped: " + no_namespace});
    return;
  }
  const auto cap = testing_util::SetLoopbackQdisc({"tbf", "rate", "900kbit", "burst", "32kbit", "latency", "400ms"});
  if (cap.exit_code != 0) {
    g_rows.push_back(Row{"RTMP cap 900 kbit/s", "-", "-", "-", 0, 0, 0, 0, "-", "skipped: tbf: " + cap.output});
    return;
  }
  WireLog wire;
  OutputSetOptions options;
  std::vector<std::string> steps;
  const SteadyClock::time_point start = SteadyClock::now();
  double first_down_s = -1;
  options.on_bitrate_step = [&](const BitrateStep& step) {
    if (first_down_s < 0 && step.down()) first_down_s = Seconds(SteadyClock::now() - start);
    steps.push_back(absl::StrCat(step.to / 1000));
  };
  const double total = std::max(2 * seconds, 40.0);
  const int64_t lift_at = static_cast<int64_t>(total / 2 * kFps);
  const PushResult push = Push(server.Url("live", "cap"), NoiseVideo(2'000'000), total, options, wire, [&](int64_t i) {
    if (i == lift_at) testing_util::ClearLoopbackQdisc();
  });
  if (g_verbose) {
    const std::string log = server.ErrorLog();
    std::fprintf(stderr, "nginx log (end):\n%s\n", log.substr(log.size() > 3000 ? log.size() - 3000 : 0).c_str());
  }
  Row row = RowFrom("RTMP cap 900 kbit/s", "tbf, lifted halfway", push, wire);
  absl::StrAppend(&row.notes, "first step down after ", absl::StrFormat("%.1f", first_down_s), " s; kbit/s ",
                  absl::StrJoin(steps, ">"));
  g_rows.push_back(row);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double Max(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// The row of a restart scenario: how soon the output was back after its
// server, whether each connection started at a keyframe (`keyframe_detail`
// adds to the count), and what the set dropped, queued and stepped.
Row RestartRow(const std::string& name, const std::string& path, const std::vector<double>& to_connected,
               WireLog& wire, const OutputSetStats& stats, const std::string& keyframe_detail) {
  Row row;
  row.name = name;
  row.path = path;
  row.reconnect = absl::StrFormat("%.2f/%.2f", Percentile(to_connected, 0.5), Max(to_connected));
  const auto [good, all] = wire.KeyframeFirst();
  row.keyframe_first = absl::StrCat(good == all ? "yes" : "no", " (", good, "/", all, keyframe_detail, ")");
  row.video_dropped = stats.outputs[0].dropped_video_frames;
  row.max_queue_bytes = stats.outputs[0].max_send_buffer_bytes;
  row.max_queue_packets = stats.outputs[0].max_send_buffer_packets;
  row.steps = absl::StrCat(stats.bitrate_steps_down, "/", stats.bitrate_steps_up);
  return row;
}

void KillRestart(RtmpTestServer& server, int cycles, int down_ms) {
  WireLog wire;
  SystemClock clock;
  OutputSetOptions options;
  options.on_packet_written = wire.Observer();
  const VideoEncoderOptions video = NoiseVideo(1'000'000);
  const int fds_open = CountEntries("/proc/self/fd");
  const int threads_open = CountEntries("/proc/self/task");
  auto set = OutputSet::Open({*ParseOutputSpec(server.Url("record", "cycles"))}, video, Speech(), options, clock);
  if (!set.ok()) {
    g_rows.push_back(Row{"RTMP kill -9 x" + std::to_string(cycles), "-", "-", "-", 0, 0, 0, 0, "-",
                         std::string(set.status().message())});
    return;
  }
  PacedFrames frames(**set, video, clock);
  auto state = [&] { return (*set)->stats().outputs[0]; };
  frames(2.0);
  const int fds_before = CountEntries("/proc/self/fd");
  const int threads_before = CountEntries("/proc/self/task");
  const double rss_before = RssMb();
  std::vector<double> to_connected, to_first_packet;
  int failed_cycles = 0;
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    server.Kill();
    const int down = cycle % 2 == 0 ? down_ms : 0;
    // Media keeps coming while the server is down.
    frames(std::max(0.1, down / 1000.0));
    if (!server.Start()) {
      ++failed_cycles;
      continue;
    }
    const SteadyClock::time_point back = SteadyClock::now();
    bool reconnected = false;
    for (int i = 0; i < 30 * kFps && !reconnected; ++i) {
      frames(1.0 / kFps);
      reconnected = state().reconnects >= cycle && state().state == OutputState::kConnected;
    }
    if (!reconnected) {
      ++failed_cycles;
      continue;
    }
    to_connected.push_back(Seconds(SteadyClock::now() - back));
    if (g_verbose) {
      std::fprintf(stderr, "cycle %d: down %d ms, connected %.2f s after back; last error: %s\n", cycle, down,
                   to_connected.back(), state().error.c_str());
    }
    // The first packet on the new connection (its keyframe) may take a frame or two.
    for (int i = 0; i < 2 * kFps; ++i) {
      {
        std::lock_guard<std::mutex> lock(wire.mu);
        if (static_cast<int>(wire.first_packet_of_connection.size()) > cycle &&
            wire.first_packet_of_connection[cycle] != SteadyClock::time_point{}) {
          to_first_packet.push_back(Seconds(wire.first_packet_of_connection[cycle] - back));
          break;
        }
      }
      frames(1.0 / kFps);
    }
    frames(1.0);
  }
  const int fds_after = CountEntries("/proc/self/fd");
  const int threads_after = CountEntries("/proc/self/task");
  const double rss_after = RssMb();
  const absl::Status finished = (*set)->Finish();
  const OutputSetStats stats = (*set)->stats();
  set->reset();
  const int fds_closed = CountEntries("/proc/self/fd");
  const int threads_closed = CountEntries("/proc/self/task");

  // What the server recorded: one FLV per publish.
  int files = 0, files_key_first = 0, audio_gaps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(server.RecordDir())) {
    auto read = testing_util::ReadBackAll(entry.path().string());
    if (!read.ok()) continue;
    ++files;
    const testing_util::ReadStream* v = read->Find(AVMEDIA_TYPE_VIDEO);
    const testing_util::ReadStream* a = read->Find(AVMEDIA_TYPE_AUDIO);
    if (v && !v->packets.empty() && v->packets.front().key) ++files_key_first;
    // An AAC frame at 48 kHz lasts 21.3 ms: a step of more than 32 ms is a gap.
    if (a) {
      for (size_t i = 1; i < a->packets.size(); ++i) audio_gaps += a->packets[i].dts_ms - a->packets[i - 1].dts_ms > 32;
    }
  }

  Row row = RestartRow(absl::StrCat("RTMP kill -9 x", cycles), absl::StrCat("nginx, down 0 / ", down_ms, " ms"),
                       to_connected, wire, stats, absl::StrCat("; files ", files_key_first, "/", files));
  row.audio_lost = audio_gaps;  // gaps inside a connection's recording
  row.notes = absl::StrFormat(
      "first packet %.2f/%.2f s after back; reconnects %d, failed cycles %d; fds %d->%d (closed %d, open %d), "
      "threads %d->%d (closed %d, open %d), RSS %.1f->%.1f MB%s",
      Percentile(to_first_packet, 0.5), Max(to_first_packet),
      static_cast<int>(stats.outputs[0].reconnects), failed_cycles, fds_before, fds_after, fds_closed, fds_open,
      threads_before, threads_after, threads_closed, threads_open, rss_before, rss_after,
      finished.ok() ? "" : absl::StrCat("; finish: ", finished.message()).c_str());
  g_rows.push_back(row);
}

// An SRT listener (the "server") closed and opened again on the same port.
void SrtRestart(int cycles, int down_ms) {
  const std::string name = absl::StrCat("SRT listener restart x", cycles);
  if (!HasSrtProtocol()) {
    g_rows.push_back(Row{name, "-", "-", "-", 0, 0, 0, 0, "-", "skipped: libavformat has no libsrt"});
    return;
  }
  const int port = testing_util::FreeLoopbackPort();
  const std::string listen_url = absl::StrCat("srt://127.0.0.1:", port, "?mode=listener&latency=500000");
  auto listener = std::make_unique<testing_util::LiveReader>(listen_url, std::map<std::string, std::string>{
                                                                             {"timeout", "60000000"}});
  WireLog wire;
  SystemClock clock;
  OutputSetOptions options;
  options.on_packet_written = wire.Observer();
  const VideoEncoderOptions video = NoiseVideo(600'000);
  auto set = OutputSet::Open({*ParseOutputSpec(absl::StrCat("srt://127.0.0.1:", port))}, video, Speech(), options,
                             clock);
  if (!set.ok()) {
    g_rows.push_back(Row{name, "-", "-", "-", 0, 0, 0, 0, "-", std::string(set.status().message())});
    return;
  }
  PacedFrames frames(**set, video, clock);
  auto state = [&] { return (*set)->stats().outputs[0]; };
  frames(2.0);
  std::vector<double> to_connected, noticed;
  int failed_cycles = 0;
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    const SteadyClock::time_point closed = SteadyClock::now();
    listener.reset();  // closes the listening socket and the connection
    bool lost = false;
    for (int i = 0; i < 30 * kFps && !lost; ++i) {
      frames(1.0 / kFps);
      lost = state().state != OutputState::kConnected;
      if (lost) noticed.push_back(Seconds(SteadyClock::now() - closed));
    }
    const int down = cycle % 2 == 0 ? down_ms : 0;
    frames(down / 1000.0);
    listener = std::make_unique<testing_util::LiveReader>(listen_url, std::map<std::string, std::string>{
                                                                          {"timeout", "60000000"}});
    const SteadyClock::time_point back = SteadyClock::now();
    bool reconnected = false;
    for (int i = 0; i < 60 * kFps && !reconnected; ++i) {
      frames(1.0 / kFps);
      reconnected = state().reconnects >= cycle && state().state == OutputState::kConnected;
    }
    if (!reconnected) {
      ++failed_cycles;
      if (g_verbose) std::fprintf(stderr, "srt cycle %d: no reconnect; %s\n", cycle, state().error.c_str());
      continue;
    }
    to_connected.push_back(Seconds(SteadyClock::now() - back));
    if (g_verbose) {
      std::fprintf(stderr, "srt cycle %d: loss noticed %.2f s after close, down %d ms, connected %.2f s after back\n",
                   cycle, noticed.empty() ? -1 : noticed.back(), down, to_connected.back());
    }
    frames(1.0);
  }
  const absl::Status finished = (*set)->Finish();
  const OutputSetStats stats = (*set)->stats();
  Row row = RestartRow(name, absl::StrCat("libsrt listener, down 0 / ", down_ms, " ms"), to_connected, wire, stats,
                       "");
  row.notes = absl::StrFormat("loss noticed %.2f/%.2f s after the listener closed; reconnects %d, failed cycles %d%s",
                              Percentile(noticed, 0.5), Max(noticed),
                              static_cast<int>(stats.outputs[0].reconnects), failed_cycles,
                              finished.ok() ? "" : absl::StrCat("; finish: ", finished.message()).c_str());
  g_rows.push_back(row);
}

void PrintTable() {
  std::printf("\n| scenario | path | reconnect p50/max s | keyframe first | audio lost | video dropped | "
              "max queue bytes/packets | bitrate steps down/up, lowest kbit/s | notes |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : g_rows) {
    std::printf("| %s | %s | %s | %s | %lld | %lld | %lld/%lld | %s | %s |\n", r.name.c_str(), r.path.c_str(),
                r.reconnect.c_str(), r.keyframe_first.c_str(), static_cast<long long>(r.audio_lost),
                static_cast<long long>(r.video_dropped), static_cast<long long>(r.max_queue_bytes),
                static_cast<long long>(r.max_queue_packets), r.steps.c_str(), r.notes.c_str());
  }
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--seconds") {
      options.seconds = std::stod(value());
    } else if (arg == "--cycles") {
      options.cycles = std::stoi(value());
    } else if (arg == "--down-ms") {
      options.down_ms = std::stoi(value());
    } else if (arg == "--no-netns") {
      options.no_netns = true;
    } else if (arg == "--only") {
      options.only = value();
    } else if (arg == "--verbose") {
      options.verbose = true;
      g_verbose = true;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (!RtmpTestServer::Available()) {
    std::fprintf(stderr, "%s\n", RtmpTestServer::kMissing);
    return 1;
  }
  std::string no_namespace;
  if (!testing_util::InNetworkNamespace()) {
    no_namespace = options.no_netns ? "--no-netns" : testing_util::WhyNoNetworkNamespace();
    if (no_namespace.empty()) {
      // Again, inside a namespace of its own, with its output going straight to ours.
      std::vector<std::string> args = {"unshare", "-rn", std::filesystem::read_symlink("/proc/self/exe").string()};
      for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
      std::vector<char*> raw;
      for (std::string& a : args) raw.push_back(a.data());
      raw.push_back(nullptr);
      setenv(testing_util::kInNetnsVariable, "1", 1);
      execvp("unshare", raw.data());
      no_namespace = absl::StrCat("exec unshare: ", std::strerror(errno));
    }
    std::printf("no network namespace (%s): loopback is shared, the bandwidth cap is skipped\n", no_namespace.c_str());
  } else if (!testing_util::BringLoopbackUp()) {
    std::printf("cannot bring the namespace's loopback up\n");
    return 1;
  }
  const bool netem = no_namespace.empty() && testing_util::HasNetem();
  std::printf("network namespace: %s; faults: %s\n", no_namespace.empty() ? "yes (unshare -rn)" : "no",
              netem ? "tc netem" : "user-space relays (this kernel has no sch_netem, or no namespace to use it in)");
  ScopedLibavLogLevel quiet(options.verbose ? AV_LOG_WARNING : AV_LOG_FATAL);
  RtmpTestServer server;
  if (!server.Start()) {
    std::fprintf(stderr, "nginx did not start:\n%s\n", server.ErrorLog().c_str());
    return 1;
  }
  auto run = [&](const char* name, const std::function<void()>& scenario) {
    if (!options.only.empty() && options.only != name) return;
    std::printf("%s...\n", name);
    std::fflush(stdout);
    scenario();
  };
  run("delay", [&] { DelayJitter(server, netem, options.seconds); });
  run("stall", [&] { Stall(server, options.seconds); });
  run("srt", [&] { SrtLoss(netem, options.seconds); });
  run("cap", [&] { BandwidthCap(server, options.seconds, no_namespace); });
  run("kill", [&] { KillRestart(server, options.cycles, options.down_ms); });
  run("srt-restart", [&] { SrtRestart(std::min(options.cycles, 6), options.down_ms); });
  PrintTable();
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) { return lingcast::Main(argc, argv); }
