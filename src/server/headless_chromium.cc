#include "server/headless_chromium.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast::testing_util {

HeadlessChromium::HeadlessChromium(const std::string& profile_dir) : profile_dir_(profile_dir) {
  std::filesystem::create_directories(profile_dir);
  log_path_ = profile_dir + "/chromium.log";
  port_file_ = profile_dir + "/profile/DevToolsActivePort";
  Launch();
}

void HeadlessChromium::Launch() {
  exit_status_ = -1;
  pid_ = fork();
  if (pid_ == 0) {
    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(log, STDERR_FILENO);
    dup2(log, STDOUT_FILENO);
    const std::string profile = "--user-data-dir=" + profile_dir_ + "/profile";
    // Nothing a test needs from the network or the desktop: no updates, sync,
    // extensions or crash reports to start first.
    execl(kChromiumPath, kChromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--no-default-browser-check", "--disable-extensions", "--disable-component-update",
          "--disable-background-networking", "--disable-sync", "--disable-crash-reporter", "--mute-audio",
          "--remote-debugging-port=0", "--window-size=1280,720", profile.c_str(), "about:blank",
          static_cast<char*>(nullptr));
    _exit(127);
  }
}

HeadlessChromium::~HeadlessChromium() { Kill(); }

void HeadlessChromium::Kill() {
  if (pid_ > 0 && exit_status_ < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

absl::Status HeadlessChromium::WaitUntilListening() {
  if (devtools_port_ > 0) return absl::OkStatus();
  // Two tries of a minute: a browser that hangs while starting is killed and
  // started once more.
  std::string first_log;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0) {
      first_log = log();
      Kill();
      Launch();
    }
    if (pid_ < 0) return absl::UnavailableError(absl::StrCat("could not start ", kChromiumPath));
    for (int i = 0; i < 1200; ++i) {
      std::ifstream file(port_file_);
      if (int port = 0; file >> port && port > 0) {
        devtools_port_ = port;
        return absl::OkStatus();
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_status_ = status;
        return absl::UnavailableError(absl::StrCat(
            "chromium ended before it listened for DevTools (",
            WIFEXITED(status) ? absl::StrCat("exit ", WEXITSTATUS(status)) : absl::StrCat("signal ", WTERMSIG(status)),
            "): ", log()));
      }
      usleep(50'000);
    }
  }
  return absl::UnavailableError(absl::StrCat("chromium has not listened for DevTools in two tries of 60 s: ",
                                             first_log, " / ", log()));
}

absl::StatusOr<TestConnection> HeadlessChromium::OpenPage(const std::string& url) {
  LC_RETURN_IF_ERROR(WaitUntilListening());
  LC_ASSIGN_OR_RETURN(TestConnection browser, TestConnection::Connect(devtools_port_));
  LC_RETURN_IF_ERROR(browser.Send(HttpRequestText("PUT", absl::StrCat("/json/new?", url))));
  LC_ASSIGN_OR_RETURN(RawResponse opened, browser.ReadResponse());
  const nlohmann::json target = nlohmann::json::parse(opened.body, nullptr, false);
  const std::string socket_url = target.is_object() ? target.value("webSocketDebuggerUrl", "") : "";
  const size_t path = socket_url.find("/devtools/");
  if (path == std::string::npos) {
    return absl::UnavailableError(absl::StrCat("chromium opened no tab for ", url, ": ", opened.body));
  }
  LC_ASSIGN_OR_RETURN(TestConnection page, TestConnection::Connect(devtools_port_));
  LC_RETURN_IF_ERROR(page.UpgradeToWebSocket(socket_url.substr(path)));
  return page;
}

std::string HeadlessChromium::log() const {
  std::ifstream log(log_path_);
  std::stringstream text;
  text << log.rdbuf();
  return text.str();
}

absl::StatusOr<nlohmann::json> DevToolsCall(TestConnection& page, int id, const std::string& method,
                                            const nlohmann::json& params) {
  LC_RETURN_IF_ERROR(page.SendWsFrame(1, nlohmann::json{{"id", id}, {"method", method}, {"params", params}}.dump()));
  // Events the page sends meanwhile come first; a reply carries our id.
  for (int i = 0; i < 100; ++i) {
    LC_ASSIGN_OR_RETURN(WsFrame frame, page.ReadWsMessage());
    const nlohmann::json reply = nlohmann::json::parse(frame.payload, nullptr, false);
    if (reply.value("id", -1) == id) return reply.value("result", nlohmann::json::object());
  }
  return absl::DeadlineExceededError(absl::StrCat("no DevTools reply to ", method));
}

absl::StatusOr<std::string> EvaluateString(TestConnection& page, int id, const std::string& expression) {
  LC_ASSIGN_OR_RETURN(nlohmann::json result,
                      DevToolsCall(page, id, "Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}}));
  const nlohmann::json value = result["result"].value("value", nlohmann::json());
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace lingcast::testing_util
