#include "core/logger.h"

#include <chrono>
#include <ctime>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lingcast {
namespace {

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warn";
    case LogLevel::kError: return "error";
    case LogLevel::kOff: return "off";
  }
  return "?";
}

// Quotes a logfmt value when it holds spaces, quotes or '='.
std::string Quote(std::string_view v) {
  bool needs = v.empty();
  for (char c : v) needs |= (c == ' ' || c == '"' || c == '=' || c == '\n' || c == '\t');
  if (!needs) return std::string(v);
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(std::string_view name) {
  const std::string n = absl::AsciiStrToLower(std::string(name));
  if (n == "debug") return LogLevel::kDebug;
  if (n == "info") return LogLevel::kInfo;
  if (n == "warn" || n == "warning") return LogLevel::kWarning;
  if (n == "error") return LogLevel::kError;
  if (n == "off" || n == "none") return LogLevel::kOff;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level '", std::string(name), "' (expected debug, info, warn, error or off)"));
}

std::string Logger::Format(LogLevel level, std::string_view component, std::string_view message,
                           absl::Span<const Field> fields) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const int millis = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string line = absl::StrFormat("ts=%04d-%02d-%02dT%02d:%02d:%02d.%03dZ level=%s component=%s msg=%s",
                                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                                     tm.tm_min, tm.tm_sec, millis, LevelName(level),
                                     Quote(component), Quote(message));
  for (const auto& [key, value] : fields) absl::StrAppend(&line, " ", std::string(key), "=", Quote(value));
  return line;
}

void Logger::Log(LogLevel level, std::string_view component, std::string_view message,
                 std::initializer_list<Field> fields) {
  LogFields(level, component, message, absl::Span<const Field>(fields.begin(), fields.size()));
}

void Logger::LogFields(LogLevel level, std::string_view component, std::string_view message,
                       absl::Span<const Field> fields) {
  if (!Enabled(level)) return;
  if (forward_) {
    forward_(level, component, message, fields);
    return;
  }
  const std::string line = Format(level, component, message, fields);
  std::lock_guard lock(mu_);
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace lingcast
