#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace lingcast::e2e {

std::string LingcastBinary() { return std::string(LINGCAST_BINARY_DIR) + "/lingcast"; }

RunResult RunLingcast(const std::vector<std::string>& args, const RunOptions& options) {
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0 || pipe(in_pipe) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    close(in_pipe[0]);
    close(in_pipe[1]);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]);
    close(err_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    std::vector<char*> argv;
    std::string binary = LingcastBinary();
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(in_pipe[0]);
  // The child's stdin (the given text, then end of file) is written as the child
  // reads it, while its output is read: audio on stdin is larger than a pipe's
  // buffer. A child that exits without reading all of it closes the pipe: the
  // write fails with EPIPE instead of killing this process.
  signal(SIGPIPE, SIG_IGN);
  size_t written = 0;
  int stdin_fd = in_pipe[1];
  if (options.stdin_text.empty()) {
    close(stdin_fd);
    stdin_fd = -1;
  } else {
    fcntl(stdin_fd, F_SETFL, fcntl(stdin_fd, F_GETFL) | O_NONBLOCK);  // partial writes, never a wait
  }
  RunResult result;
  bool signalled = false;
  std::array<pollfd, 3> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {stdin_fd, POLLOUT, 0}}};
  int open_outputs = 2;
  char buffer[4096];
  while (open_outputs > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) break;
    if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(fds[2].fd, options.stdin_text.data() + written,
                              std::min<size_t>(options.stdin_text.size() - written, 65536));
      if (n > 0) written += static_cast<size_t>(n);
      const bool again = n < 0 && (errno == EAGAIN || errno == EINTR);
      if ((n <= 0 && !again) || written == options.stdin_text.size()) {
        close(fds[2].fd);
        fds[2].fd = -1;
      }
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_outputs;
        continue;
      }
      (i == 0 ? result.out : result.err).append(buffer, static_cast<size_t>(n));
      if (i == 1 && !signalled && !options.signal_on_stderr.empty() &&
          result.err.find(options.signal_on_stderr) != std::string::npos) {
        kill(pid, options.signal);
        signalled = true;
      }
    }
  }
  if (fds[2].fd >= 0) close(fds[2].fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace lingcast::e2e
