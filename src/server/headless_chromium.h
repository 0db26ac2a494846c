// Debian's chromium, headless, driven over its DevTools protocol with this
// module's WebSocket test client: how the app's test and bench see the OBS
// overlay as a browser source shows it.
#pragma once

#include <string>
#include <sys/types.h>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "server/test_client.h"

namespace lingcast::testing_util {

inline constexpr char kChromiumPath[] = "/usr/bin/chromium";

// A headless chromium showing `url` with its profile in `profile_dir`, killed
// when this object goes.
class HeadlessChromium {
 public:
  HeadlessChromium(const std::string& url, const std::string& profile_dir);
  ~HeadlessChromium();
  HeadlessChromium(const HeadlessChromium&) = delete;
  HeadlessChromium& operator=(const HeadlessChromium&) = delete;

  // A WebSocket to the DevTools target of the page whose URL contains
  // `url_part`, once chromium listens and has opened it (bounded waits: a
  // safety net against a hung browser, not a timing assertion).
  absl::StatusOr<TestConnection> ConnectToPage(const std::string& url_part);
  // What chromium printed, for a failure's message.
  std::string log() const;

 private:
  // The DevTools port, from the file chromium writes once it listens; 0 if it never does.
  int DevToolsPort();

  std::string log_path_;
  std::string port_file_;
  pid_t pid_ = -1;
};

// One DevTools call on a page's socket (`id` unique per call); its result object.
absl::StatusOr<nlohmann::json> DevToolsCall(TestConnection& page, int id, const std::string& method,
                                            const nlohmann::json& params);
// A JavaScript expression evaluated in the page; its value when a string, else "".
absl::StatusOr<std::string> EvaluateString(TestConnection& page, int id, const std::string& expression);

}  // namespace lingcast::testing_util
