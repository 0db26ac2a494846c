// RtmpTestServer: a real RTMP server for tests, nginx with Debian's RTMP module
// (libnginx-mod-rtmp), run as a child process on free loopback ports with a
// config in a scratch directory. Applications:
//   live    relays a published stream to players (timestamps untouched)
//   auth    refuses every publish (on_publish answers 403)
//   record  like live, and records each publish to its own FLV in RecordDir()
// Tests kill -9 it and start it again on the same port. Also used by
// bench/output_bench (so it does not depend on GoogleTest).
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace lingcast::testing_util {

inline constexpr char kNginxBinary[] = "/usr/sbin/nginx";
inline constexpr char kRtmpModule[] = "/usr/lib/nginx/modules/ngx_rtmp_module.so";

// A loopback TCP port nobody listens on right now.
inline int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    socklen_t len = sizeof(addr);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

inline bool AcceptsConnections(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// Polls `condition` until it holds or `timeout` passes (for real network
// events on a loaded machine: generous deadlines, never a fixed sleep).
template <typename Condition>
bool PollUntil(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

class RtmpTestServer {
 public:
  static bool Available() {
    return std::filesystem::exists(kNginxBinary) && std::filesystem::exists(kRtmpModule);
  }
  static constexpr const char* kMissing =
      "nginx with libnginx-mod-rtmp is not installed (scripts/install-deps.sh installs it)";

  RtmpTestServer() : dir_(MakeTempDir()), rtmp_port_(FreeLoopbackPort()), http_port_(FreeLoopbackPort()) {
    std::filesystem::create_directories(dir_.File("tmp"));
    std::filesystem::create_directories(dir_.File("rec"));
    // As root, nginx hands its temp paths to "nobody"; in a user namespace
    // (the network fault tests) that user is not mapped and the chown fails, so
    // a root nginx keeps them as root. The RTMP module's access log defaults to
    // /var/log/nginx, which a namespace's root may not open: off.
    std::ofstream(dir_.File("nginx.conf")) << absl::StrCat(R"(
load_module )", kRtmpModule, R"(;
)", geteuid() == 0 ? "user root root;\n" : "", R"(daemon off;
master_process off;
worker_processes 1;
error_log )", dir_.File("error.log"), R"( info;
pid )", dir_.File("nginx.pid"), R"(;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path )", dir_.File("tmp"), R"(;
  proxy_temp_path )", dir_.File("tmp"), R"(;
  fastcgi_temp_path )", dir_.File("tmp"), R"(;
  uwsgi_temp_path )", dir_.File("tmp"), R"(;
  scgi_temp_path )", dir_.File("tmp"), R"(;
  server { listen 127.0.0.1:)", http_port_, R"(; location /deny { return 403; } }
}
rtmp {
  access_log off;
  server {
    listen 127.0.0.1:)", rtmp_port_, R"(;
    application live { live on; }
    application record { live on; record all; record_path )", dir_.File("rec"), R"(; record_unique on; }
    application auth { live on; on_publish http://127.0.0.1:)", http_port_, R"(/deny; }
  }
}
)");
  }
  ~RtmpTestServer() {
    Stop();
    std::error_code ignored;
    std::filesystem::remove_all(dir_.path(), ignored);
  }
  RtmpTestServer(const RtmpTestServer&) = delete;
  RtmpTestServer& operator=(const RtmpTestServer&) = delete;

  // Starts nginx and waits until it accepts connections.
  bool Start() {
    if (pid_ > 0) return true;
    const std::string prefix = dir_.path() + "/";
    const std::string conf = dir_.File("nginx.conf");
    const std::string error_log = dir_.File("error.log");
    const char* argv[] = {kNginxBinary, "-p", prefix.c_str(), "-c", conf.c_str(), "-e", error_log.c_str(), nullptr};
    // nginx gets a clean signal mask whatever thread starts it: a thread that
    // blocks signals (SignalWatcher's, an output's sender) would pass its mask on,
    // and nginx would ignore the SIGTERM that stops it.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    const int spawned = posix_spawn(&pid_, kNginxBinary, nullptr, &attr, const_cast<char* const*>(argv), environ);
    posix_spawnattr_destroy(&attr);
    if (spawned != 0) {
      pid_ = -1;
      return false;
    }
    return PollUntil([this] { return AcceptsConnections(rtmp_port_); });
  }
  // kill -9, as a crash or a pulled plug would.
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  std::string Url(const std::string& app, const std::string& key) const {
    return absl::StrCat("rtmp://127.0.0.1:", rtmp_port_, "/", app, "/", key);
  }
  int port() const { return rtmp_port_; }
  std::string RecordDir() const { return dir_.File("rec"); }
  std::string ErrorLog() const {
    std::ifstream in(dir_.File("error.log"));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Whether a player has asked for `key` (nginx logs each play at level info).
  bool HasPlayer(const std::string& key) const {
    return ErrorLog().find(absl::StrCat("play: name='", key, "'")) != std::string::npos;
  }

 private:
  struct Dir {
    std::string root;
    std::string File(const std::string& name) const { return root + "/" + name; }
    const std::string& path() const { return root; }
  };
  static Dir MakeTempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "lingcast_nginx_XXXXXX").string();
    const char* made = mkdtemp(pattern.data());
    return Dir{made ? made : "/tmp"};
  }

  Dir dir_;
  const int rtmp_port_;
  const int http_port_;
  pid_t pid_ = -1;
};

}  // namespace lingcast::testing_util
