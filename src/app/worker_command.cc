#include "app/worker_command.h"

#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <functional>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "app/render_options.h"
#include "app/render_queue.h"
#include "app/signals.h"
#include "core/status.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

struct QueueFlags {
  RenderQueueOptions queue;
  double claim_idle_s = 60;
  std::string name;  // the worker's consumer name
  bool json = false;
  std::vector<std::string> render_args;  // submit
};

void AddQueueFlags(CLI::App& c, QueueFlags& flags) {
  c.add_option("--redis", flags.queue.url, "Redis server: redis://HOST[:PORT][/DB]")->capture_default_str();
  c.add_option("--stream", flags.queue.stream, "The jobs' stream (STREAM:done and STREAM:dead beside it)")
      ->capture_default_str();
  c.add_option("--group", flags.queue.group, "The workers' consumer group")->capture_default_str();
}

// Checks `args` as `lingcast render` would take them (InvalidArgument with
// CLI11's message), without running anything.
absl::Status CheckRenderArguments(const std::vector<std::string>& args) {
  CLI::App app;
  const Command render = AddRenderCommand(app);
  std::vector<std::string> argv = {"lingcast", "render"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<const char*> pointers;
  for (const std::string& a : argv) pointers.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(absl::StrCat("render job: ", error.what()));
  }
  return absl::OkStatus();
}

struct ChildResult {
  int exit_code = 1;
  std::string error;  // the end of its stderr
};

// `lingcast render ARGS --quiet` as a child that dies with the worker;
// `heartbeat` runs every `heartbeat_every` while it renders.
ChildResult RunRenderChild(const std::vector<std::string>& args, absl::Duration heartbeat_every,
                           const std::function<void()>& heartbeat) {
  // Built before fork(): the child only calls async-signal-safe functions.
  std::vector<std::string> argv = {"lingcast", "render"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--quiet");
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return {1, "pipe failed"};
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // A killed worker's job is taken over by another: its render must not go on.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    dup2(pipe_fds[1], STDERR_FILENO);
    execv("/proc/self/exe", pointers.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    return {1, "fork failed"};
  }
  std::string output;
  char buffer[4096];
  const int heartbeat_ms = static_cast<int>(std::max<int64_t>(100, absl::ToInt64Milliseconds(heartbeat_every)));
  for (;;) {
    pollfd ready{pipe_fds[0], POLLIN, 0};
    const int n_ready = poll(&ready, 1, heartbeat_ms);
    if (n_ready == 0) {
      heartbeat();
      continue;
    }
    if (n_ready < 0 && errno == EINTR) continue;
    const ssize_t n = n_ready < 0 ? -1 : read(pipe_fds[0], buffer, sizeof(buffer));
    if (n <= 0) break;  // the child's stderr closed: it has ended
    output.append(buffer, static_cast<size_t>(n));
    if (output.size() > 16384) output.erase(0, output.size() - 4096);
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  const size_t last_line = output.rfind('\n');
  result.error = last_line == std::string::npos ? output : output.substr(last_line + 1);
  return result;
}

int RunWorker(const QueueFlags& flags, Logger& logger) {
  RenderQueueOptions options = flags.queue;
  options.claim_idle = absl::Milliseconds(static_cast<int64_t>(flags.claim_idle_s * 1000));
  if (options.max_tries < 1) {
    return ReportCommandStatus(absl::InvalidArgumentError("--max-tries must be at least 1"));
  }
  if (flags.claim_idle_s < 1) {
    return ReportCommandStatus(absl::InvalidArgumentError(
        "--claim-idle must be at least 1 s: a running job keeps its claim every third of it"));
  }
  SignalWatcher signals;
  std::atomic<bool> stop{false};
  signals.SetHandler([&stop](int) { stop.store(true); });
  absl::StatusOr<std::unique_ptr<RenderQueue>> queue = RenderQueue::Connect(options);
  if (!queue.ok()) return ReportCommandStatus(queue.status());
  const std::string consumer = flags.name.empty() ? absl::StrCat("worker-", getpid()) : flags.name;
  logger.Info("worker", "waiting for jobs", {{"stream", options.stream}, {"consumer", consumer}});
  int64_t done = 0, failed = 0, dead = 0;
  while (!stop.load()) {
    absl::StatusOr<std::optional<RenderJob>> next = (*queue)->Next(consumer, absl::Seconds(1));
    if (!next.ok()) return ReportCommandStatus(next.status());
    if (!next->has_value()) continue;
    const RenderJob& job = **next;
    if (job.deliveries > options.max_tries) {
      logger.Warn("worker", "job given up", {{"job", job.id}, {"tries", absl::StrCat(job.deliveries - 1)}});
      if (absl::Status s = (*queue)->DeadLetter(job, absl::StrCat("gave up after ", job.deliveries - 1, " tries"));
          !s.ok()) {
        return ReportCommandStatus(s);
      }
      ++dead;
      continue;
    }
    logger.Info("worker", "job", {{"job", job.id}, {"args", absl::StrJoin(job.args, " ")}});
    const ChildResult result = RunRenderChild(job.args, options.claim_idle / 3, [&] {
      if (absl::Status kept = (*queue)->KeepClaimed(job, consumer); !kept.ok()) {
        logger.Warn("worker", "could not keep the job claimed", {{"job", job.id}, {"error", std::string(kept.message())}});
      }
    });
    absl::Status recorded;
    if (result.exit_code == 0) {
      recorded = (*queue)->Done(job, consumer);
      ++done;
    } else if (result.exit_code == 2) {
      // A bad command line or input: another try cannot succeed.
      recorded = (*queue)->DeadLetter(job, result.error);
      ++dead;
    } else {
      // Left pending: claimed again (here or elsewhere) once idle for --claim-idle.
      logger.Warn("worker", "job failed", {{"job", job.id}, {"exit", absl::StrCat(result.exit_code)},
                                           {"error", result.error}});
      ++failed;
    }
    if (!recorded.ok()) return ReportCommandStatus(recorded);
    if (!flags.json) {
      std::fprintf(stderr, "worker: %s %s (%lld done, %lld failed, %lld dead-lettered)\n", job.id.c_str(),
                   result.exit_code == 0 ? "done" : "failed", static_cast<long long>(done),
                   static_cast<long long>(failed), static_cast<long long>(dead));
    }
  }
  if (flags.json) {
    std::cout << nlohmann::json{{"done", done}, {"failed", failed}, {"dead_lettered", dead}}.dump() << std::endl;
  }
  return 0;
}

int RunSubmit(const QueueFlags& flags) {
  if (absl::Status checked = CheckRenderArguments(flags.render_args); !checked.ok()) {
    return ReportCommandStatus(checked);
  }
  absl::StatusOr<std::unique_ptr<RenderQueue>> queue = RenderQueue::Connect(flags.queue);
  if (!queue.ok()) return ReportCommandStatus(queue.status());
  absl::StatusOr<std::string> id = (*queue)->Submit(flags.render_args);
  if (!id.ok()) return ReportCommandStatus(id.status());
  std::cout << (flags.json ? nlohmann::json{{"id", *id}}.dump() : *id) << std::endl;
  return 0;
}

}  // namespace

Command AddWorkerCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand("worker", "Render jobs from a Redis Stream (docs/serve.md)");
  auto flags = std::make_shared<QueueFlags>();
  AddQueueFlags(*command, *flags);
  command->add_option("--claim-idle", flags->claim_idle_s, "Seconds a job may sit with a silent worker before another takes it")
      ->capture_default_str();
  command->add_option("--max-tries", flags->queue.max_tries, "Tries before a job goes to STREAM:dead")
      ->capture_default_str();
  command->add_option("--name", flags->name, "This worker's name in the group (default worker-PID)");
  command->add_flag("--json", flags->json, "Print a JSON summary when it stops");
  return {command, [flags](Logger& logger) { return RunWorker(*flags, logger); }};
}

Command AddSubmitCommand(CLI::App& app) {
  CLI::App* command =
      app.add_subcommand("submit", "Add a render job to a Redis Stream: lingcast submit -- SCRIPT -o OUT.mp4 [render flags]");
  auto flags = std::make_shared<QueueFlags>();
  AddQueueFlags(*command, *flags);
  command->add_option("render", flags->render_args, "The `lingcast render` command line, after --")->required();
  command->add_flag("--json", flags->json, "Print {\"id\": ...} instead of the bare id");
  return {command, [flags](Logger&) { return RunSubmit(*flags); }};
}

}  // namespace lingcast
