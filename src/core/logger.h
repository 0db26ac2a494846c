// Logger: structured logs (logfmt: ts=… level=… component=… msg="…" key=value)
// on stderr. Quiet by default: only warnings and errors are printed unless the
// user asks for more (--verbose / --log-level). There is no global logger; the
// app creates one and hands it to whatever needs to log.
#pragma once

#include <cstdio>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace lingcast {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

absl::StatusOr<LogLevel> ParseLogLevel(std::string_view name);

class Logger {
 public:
  using Field = std::pair<std::string_view, std::string>;

  // Where a logger without a FILE hands its records instead of printing them:
  // the neural plug-in's logger forwards its records across the C ABI to the
  // host's (neural/plugin/lingcast_plugin_abi.h), which prints them.
  using Forward = std::function<void(LogLevel level, std::string_view component, std::string_view message,
                                     absl::Span<const Field> fields)>;

  explicit Logger(LogLevel level = LogLevel::kWarning, std::FILE* out = stderr)
      : level_(level), out_(out) {}
  Logger(LogLevel level, Forward forward) : level_(level), forward_(std::move(forward)), out_(nullptr) {}

  LogLevel level() const { return level_; }

  bool Enabled(LogLevel level) const { return level >= level_ && level_ != LogLevel::kOff; }
  void Log(LogLevel level, std::string_view component, std::string_view message,
           std::initializer_list<Field> fields = {});
  // The same with fields known only at run time (a record forwarded by a plug-in).
  void LogFields(LogLevel level, std::string_view component, std::string_view message,
                 absl::Span<const Field> fields);

  void Debug(std::string_view c, std::string_view m, std::initializer_list<Field> f = {}) { Log(LogLevel::kDebug, c, m, f); }
  void Info(std::string_view c, std::string_view m, std::initializer_list<Field> f = {}) { Log(LogLevel::kInfo, c, m, f); }
  void Warn(std::string_view c, std::string_view m, std::initializer_list<Field> f = {}) { Log(LogLevel::kWarning, c, m, f); }
  void Error(std::string_view c, std::string_view m, std::initializer_list<Field> f = {}) { Log(LogLevel::kError, c, m, f); }

  // Formats one record without printing it (exposed for tests).
  static std::string Format(LogLevel level, std::string_view component, std::string_view message,
                            absl::Span<const Field> fields);

 private:
  const LogLevel level_;
  const Forward forward_;  // empty: records are printed to out_
  std::mutex mu_;
  std::FILE* out_ ABSL_GUARDED_BY(mu_);
};

}  // namespace lingcast
