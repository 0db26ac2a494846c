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

HeadlessChromium::HeadlessChromium(const std::string& url, const std::string& profile_dir) {
  std::filesystem::create_directories(profile_dir);
  log_path_ = profile_dir + "/chromium.log";
  port_file_ = profile_dir + "/profile/DevToolsActivePort";
  pid_ = fork();
  if (pid_ == 0) {
    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(log, STDERR_FILENO);
    dup2(log, STDOUT_FILENO);
    const std::string profile = "--user-data-dir=" + profile_dir + "/profile";
    execl(kChromiumPath, kChromiumPath, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--remote-debugging-port=0", "--window-size=1280,720", profile.c_str(), url.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
}

HeadlessChromium::~HeadlessChromium() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

int HeadlessChromium::DevToolsPort() {
  for (int i = 0; i < 600; ++i) {
    std::ifstream file(port_file_);
    int port = 0;
    if (file >> port && port > 0) return port;
    usleep(50'000);
  }
  return 0;
}

absl::StatusOr<TestConnection> HeadlessChromium::ConnectToPage(const std::string& url_part) {
  const int devtools = DevToolsPort();
  if (devtools <= 0) return absl::UnavailableError(absl::StrCat("chromium never listened for DevTools: ", log()));
  std::string page_path, listed;
  for (int i = 0; i < 200 && page_path.empty(); ++i) {
    LC_ASSIGN_OR_RETURN(TestConnection listing, TestConnection::Connect(devtools));
    LC_RETURN_IF_ERROR(listing.Send(HttpRequestText("GET", "/json/list")));
    LC_ASSIGN_OR_RETURN(RawResponse pages, listing.ReadResponse());
    listed = pages.body;
    for (const nlohmann::json& p : nlohmann::json::parse(pages.body, nullptr, false)) {
      if (p.value("type", "") == "page" && p.value("url", "").find(url_part) != std::string::npos) {
        page_path = p["webSocketDebuggerUrl"].get<std::string>();
      }
    }
    if (page_path.empty()) usleep(50'000);
  }
  if (page_path.empty()) return absl::NotFoundError(absl::StrCat("chromium opened no page at ", url_part, ": ", listed));
  LC_ASSIGN_OR_RETURN(TestConnection page, TestConnection::Connect(devtools));
  LC_RETURN_IF_ERROR(page.UpgradeToWebSocket(page_path.substr(page_path.find("/devtools/"))));
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
