// Debian's chromium, headless, driven over its DevTools protocol with this
// module's WebSocket test client: how the app's test and bench see the OBS
// overlay as a browser source shows it.
#pragma once

#include <string>
#include <sys/types.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/test_client.h"

namespace lingcast::testing_util {

inline constexpr char kChromiumPath[] = "/usr/bin/chromium";

// A headless chromium with its profile in `profile_dir`, started on a blank
// page and killed when this object goes. Start it before the show: a cold
// chromium on a busy machine (CI, the binary not yet in the page cache) can
// take tens of seconds to listen, and a show on the real clock does not wait.
class HeadlessChromium {
 public:
  explicit HeadlessChromium(const std::string& profile_dir);
  ~HeadlessChromium();
  HeadlessChromium(const HeadlessChromium&) = delete;
  HeadlessChromium& operator=(const HeadlessChromium&) = delete;

  // Until chromium listens for DevTools: Unavailable with its exit status and
  // log if it died first. One that has not listened in a minute is killed and
  // started again, once (a safety net against a hung browser, not a timing
  // assertion).
  absl::Status WaitUntilListening();
  // Opens `url` in a new tab; a WebSocket to that tab's DevTools target.
  absl::StatusOr<TestConnection> OpenPage(const std::string& url);
  // What chromium printed, for a failure's message.
  std::string log() const;

 private:
  void Launch();  // forks and execs chromium on a blank page
  void Kill();    // the running chromium, if any, killed and reaped

  std::string profile_dir_;
  std::string log_path_;
  std::string port_file_;
  pid_t pid_ = -1;
  int exit_status_ = -1;  // once reaped
  int devtools_port_ = 0;
};

// One DevTools call on a page's socket (`id` unique per call); its result object.
absl::StatusOr<nlohmann::json> DevToolsCall(TestConnection& page, int id, const std::string& method,
                                            const nlohmann::json& params);
// A JavaScript expression evaluated in the page; its value when a string, else "".
absl::StatusOr<std::string> EvaluateString(TestConnection& page, int id, const std::string& expression);

}  // namespace lingcast::testing_util
