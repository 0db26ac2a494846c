// Network namespaces for the fault tests and bench/network_faults: a private
// loopback whose qdisc a test may change (`tc ... tbf` for a bandwidth cap,
// `tc ... netem` where the kernel has it) without touching the machine's.
//
// A process can enter a new user namespace only while it has one thread, so a
// test reruns itself: RerunInNetworkNamespace() runs `unshare -rn` on this
// binary with --gtest_filter naming the test and LINGCAST_IN_NETNS=1 set; the
// rerun finds InNetworkNamespace() true, brings its loopback up and does the
// work. Header-only, without GoogleTest, so the bench uses it too.
#pragma once

#include <fcntl.h>
#include <net/if.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace lingcast::testing_util {

inline constexpr char kInNetnsVariable[] = "LINGCAST_IN_NETNS";

inline bool InNetworkNamespace() { return std::getenv(kInNetnsVariable) != nullptr; }

struct CommandResult {
  int exit_code = -1;  // -1: could not be started
  std::string output;  // stdout and stderr
};

// Runs argv[0] (found on PATH) with `extra_env` added; waits for it.
inline CommandResult RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {}) {
  CommandResult result;
  std::string log = (std::filesystem::temp_directory_path() / "lingcast_cmd_XXXXXX").string();
  const int log_fd = mkstemp(log.data());
  if (log_fd < 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings = extra_env;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  std::vector<char*> env;
  for (std::string& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(log_fd);
  if (spawned == 0) {
    int status = 0;
    waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    result.output = std::string("cannot start ") + argv[0] + ": " + std::strerror(spawned);
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  result.output += text.str();
  std::filesystem::remove(log);
  return result;
}

// Empty when this user may make a network namespace, else why not.
inline std::string WhyNoNetworkNamespace() {
  const CommandResult probe = RunCommand({"unshare", "-rn", "true"});
  if (probe.exit_code == 0) return "";
  return "cannot make a network namespace (unshare -rn): " +
         (probe.output.empty() ? std::string("exit ") + std::to_string(probe.exit_code) : probe.output);
}

// In a new namespace loopback starts down. Brought up with a 1500-byte MTU (SetLoopbackMtu).
inline bool SetLoopbackMtu(int mtu);
inline bool BringLoopbackUp() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  bool ok = ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP | IFF_RUNNING);
  ok = ok && ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  close(fd);
  return ok && SetLoopbackMtu(1500);
}

// Loopback's MTU is 64 KiB, and tbf drops every packet larger than its burst
// that is not a GSO packet it could split: one keyframe sent as a single 16 KB
// segment would be dropped on every retransmission until TCP gives up. A real
// uplink carries 1500-byte packets; shape a loopback set to that.
inline bool SetLoopbackMtu(int mtu) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  request.ifr_mtu = mtu;
  const bool ok = ioctl(fd, SIOCSIFMTU, &request) == 0;
  close(fd);
  return ok;
}

// `tc qdisc replace dev lo root <qdisc...>` / `tc qdisc del dev lo root`.
inline CommandResult SetLoopbackQdisc(const std::vector<std::string>& qdisc) {
  std::vector<std::string> argv = {"tc", "qdisc", "replace", "dev", "lo", "root"};
  argv.insert(argv.end(), qdisc.begin(), qdisc.end());
  return RunCommand(argv);
}
inline CommandResult ClearLoopbackQdisc() { return RunCommand({"tc", "qdisc", "del", "dev", "lo", "root"}); }

// Whether this kernel has sch_netem (tried on the namespace's loopback, then removed).
inline bool HasNetem() {
  const bool ok = SetLoopbackQdisc({"netem", "delay", "1ms"}).exit_code == 0;
  if (ok) ClearLoopbackQdisc();
  return ok;
}

// Reruns `/proc/self/exe` with `args` in a new user + network namespace.
inline CommandResult RerunInNetworkNamespace(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"unshare", "-rn", std::filesystem::read_symlink("/proc/self/exe").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, {std::string(kInNetnsVariable) + "=1"});
}

}  // namespace lingcast::testing_util
