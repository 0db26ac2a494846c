#include "mt/live_control.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "text/utf8.h"

namespace lingcast {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kFollowInterval = std::chrono::milliseconds(200);  // a file that has not grown

std::string Trim(const std::string& s) { return std::string(absl::StripAsciiWhitespace(s)); }

// The command's first word, lower case ("video" for "VIDEO 1280x720").
std::string VerbOf(const std::string& trimmed_line) {
  return absl::AsciiStrToLower(trimmed_line.substr(0, trimmed_line.find_first_of(" \t")));
}

bool ParsePositive(absl::string_view text, int* out) {
  return !text.empty() && text.find_first_not_of("0123456789") == absl::string_view::npos &&
         absl::SimpleAtoi(text, out);
}

// video WxH@FPS | video WxH | video @FPS, checked by --size's and --fps's rules.
absl::StatusOr<ControlCommand> ParseVideoCommand(const std::string& line, const std::string& argument) {
  const std::string usage =
      absl::StrCat("\"", line, "\": expected video WIDTHxHEIGHT[@FPS] or video @FPS, e.g. video 1280x720@30");
  const size_t at = argument.find('@');
  const std::string size = argument.substr(0, at);
  const std::string fps = at == std::string::npos ? "" : argument.substr(at + 1);
  ControlCommand command;
  command.kind = ControlCommand::Kind::kVideo;
  command.text = line;
  if (argument.empty() || (at != std::string::npos && fps.empty()) || (size.empty() && fps.empty())) {
    return absl::InvalidArgumentError(usage);
  }
  if (!size.empty()) {
    const size_t x = size.find_first_of("xX");
    if (x == std::string::npos || !ParsePositive(absl::string_view(size).substr(0, x), &command.video.width) ||
        !ParsePositive(absl::string_view(size).substr(x + 1), &command.video.height)) {
      return absl::InvalidArgumentError(usage);
    }
    if (absl::Status ok = CheckFrameSize(command.video.width, command.video.height); !ok.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("\"", line, "\": size ", size, " ", ok.message()));
    }
  }
  if (!fps.empty()) {
    if (!ParsePositive(fps, &command.video.fps)) return absl::InvalidArgumentError(usage);
    if (absl::Status ok = CheckLiveFps(command.video.fps); !ok.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("\"", line, "\": frame rate ", fps, " ", ok.message()));
    }
  }
  return command;
}

}  // namespace

absl::StatusOr<ControlCommand> ParseControlCommand(const std::string& text) {
  const std::string line = Trim(text);
  const size_t space = line.find_first_of(" \t");
  const std::string verb = VerbOf(line);
  const size_t equals = line.find('=');
  if (verb == "video") return ParseVideoCommand(line, space == std::string::npos ? "" : Trim(line.substr(space)));
  if (verb != "line" && verb != "term" && verb != "tm") {
    return absl::InvalidArgumentError(absl::StrCat("unknown command \"", verb, "\" (use line N = TEXT, term SOURCE = TEXT, tm SOURCE = TEXT or video WIDTHxHEIGHT@FPS)"));
  }
  if (space == std::string::npos || equals == std::string::npos || equals < space) {
    return absl::InvalidArgumentError(absl::StrCat("\"", line, "\": expected ", verb, verb == "line" ? " N" : " SOURCE", " = TEXT"));
  }
  ControlCommand command;
  command.text = line;
  const std::string left = Trim(line.substr(space, equals - space));
  command.target = Trim(line.substr(equals + 1));
  if (left.empty() || command.target.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", line, "\": both sides of = must have text"));
  }
  if (!ValidateUtf8(command.target).ok() || !ValidateUtf8(left).ok()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", line, "\" is not valid UTF-8"));
  }
  if (verb == "line") {
    command.kind = ControlCommand::Kind::kLine;
    if (!absl::SimpleAtoi(left, &command.line_number) || command.line_number < 1) {
      return absl::InvalidArgumentError(absl::StrCat("\"", line, "\": \"", left, "\" is not a line number"));
    }
  } else {
    command.kind = verb == "term" ? ControlCommand::Kind::kTerm : ControlCommand::Kind::kMemory;
    command.source = left;
  }
  return command;
}

absl::StatusOr<std::unique_ptr<LiveControl>> LiveControl::Open(const std::string& path) {
  if (path == "-") return std::unique_ptr<LiveControl>(new LiveControl("stdin", STDIN_FILENO, false, false));
  // Non-blocking: opening a FIFO must not wait for its writer.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string message = absl::StrCat("--control ", path, ": ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat("--control ", path, " is a directory, not a file or FIFO"));
  }
  return std::unique_ptr<LiveControl>(new LiveControl(path, fd, true, true));
}

std::unique_ptr<LiveControl> LiveControl::InProcess() {
  return std::unique_ptr<LiveControl>(new LiveControl("api", -1, false, false));
}

LiveControl::LiveControl(std::string path, int fd, bool owns_fd, bool follow_at_eof)
    : path_(std::move(path)), fd_(fd), owns_fd_(owns_fd), follow_at_eof_(follow_at_eof) {
  if (fd_ < 0) return;  // in-process: nothing to read
  // What is there already applies before the show starts.
  if (follow_at_eof_) ReadAvailable();
  reader_ = std::thread([this] { ReadLoop(); });
}

absl::Status LiveControl::Submit(const std::string& text, const std::string& where) {
  absl::StatusOr<ControlCommand> command = ParseControlCommand(text);
  if (!command.ok()) return command.status();
  std::lock_guard<std::mutex> lock(mu_);
  const bool video_line = command->kind == ControlCommand::Kind::kVideo;
  Queue(ControlInput{std::move(command), where}, video_line);
  return absl::OkStatus();
}

void LiveControl::Queue(ControlInput input, bool video_line) {
  if (!video_line) {
    pending_.push_back(std::move(input));
  } else if (input.command.ok()) {
    pending_video_.push_back(input.command->video);
  } else {
    // Not a correction that failed: the playout reports it with the video switches.
    const absl::Status& why = input.command.status();
    pending_video_.push_back(
        absl::Status(why.code(), absl::StrCat("bad video command at ", input.where, ": ", why.message())));
  }
}

std::vector<absl::StatusOr<VideoChange>> LiveControl::TakeVideoChanges() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(pending_video_, {});
}

LiveControl::~LiveControl() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (reader_.joinable()) reader_.join();
  if (owns_fd_) close(fd_);
}

std::vector<ControlInput> LiveControl::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(pending_, {});
}

void LiveControl::AddLines(const char* data, size_t size) {
  partial_.append(data, size);
  std::vector<std::pair<ControlInput, bool>> lines;  // and whether it is a `video` line
  for (size_t newline; (newline = partial_.find('\n')) != std::string::npos;) {
    std::string line = partial_.substr(0, newline);
    partial_.erase(0, newline + 1);
    ++line_number_;
    const std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    lines.push_back({{ParseControlCommand(trimmed), absl::StrCat(path_, ":", line_number_)}, VerbOf(trimmed) == "video"});
  }
  if (lines.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [line, video_line] : lines) Queue(std::move(line), video_line);
}

void LiveControl::ReadAvailable() {
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fd_, buffer, sizeof(buffer));
    if (n <= 0) return;
    AddLines(buffer, static_cast<size_t>(n));
  }
}

void LiveControl::ReadLoop() {
  char buffer[4096];
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(kPollInterval.count()));
    if (ready < 0 && errno != EINTR) return;
    if (ready <= 0) continue;
    const ssize_t n = read(fd_, buffer, sizeof(buffer));
    if (n > 0) {
      AddLines(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    // The end, for now: stdin is done for good; a file may grow, a FIFO may get
    // a new writer, so look again a little later.
    if (!follow_at_eof_) return;
    std::unique_lock<std::mutex> lock(mu_);
    if (wake_.wait_for(lock, kFollowInterval, [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stopping_; })) return;
  }
}

}  // namespace lingcast
