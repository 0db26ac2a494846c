// The one binding of `lingcast live`'s settings: its flags on the command line,
// and through the very same flags the server's session settings (JSON keyed by
// the long option names), so both are parsed, converted and validated by the
// same code and fail with the same one-line messages.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "app/live_options.h"
#include "nlohmann/json.hpp"

namespace lingcast {

// The flags as typed: the ones that are not LiveOptions fields as such are
// converted by LiveOptionsFromFlags.
struct LiveFlags {
  LiveOptions options;
  std::string source = "en", target = "zh", size = "1280x720", lag_policy = "speedup", clock = "realtime";
  double max_lag_s = 4;
  double source_timeout_s = 10;
  std::vector<std::string> engines = {"tm"};
  bool no_provisional = false;
  std::string watchdog = "on", watch_lag = "3,1", watch_memory = "off", watch_gpu_memory = "off";
};

// Registers every `live` flag on `command`, bound to `flags` (which must outlive
// it): each config of live_options.h by its own binder, once.
void AddLiveFlags(CLI::App& command, LiveFlags& flags);

// The typed flags as options, checked (ValidateLiveOptions): one clear error.
absl::StatusOr<LiveOptions> LiveOptionsFromFlags(const LiveFlags& flags);

// A watchdog's marks as --watch-lag and --watch-memory take them: "HIGH,LOW"
// (two numbers, HIGH above LOW) or "off" (both 0: not watched).
absl::Status ParseWatchMarks(const char* flag, const std::string& text, double* high, double* low);

// A session's settings as the server takes them: a JSON object whose keys are
// `live`'s long option names with dashes as underscores ("in", "out",
// "source_timeout", "asr_model", ...). Values: a string or number for an option,
// an array of them for a repeatable one (--out, --tm, --engine), true/false for a
// flag. Keys in `refused` are not taken (the server's own concerns, like
// "report"); an unknown or refused key, a value of the wrong type and every
// CLI/validation error is InvalidArgument with the message the CLI would give.
absl::StatusOr<LiveOptions> LiveOptionsFromSettings(const nlohmann::json& settings,
                                                    const std::set<std::string>& refused);

// The settings above as the command line they stand for ("in": "a.wav" ->
// "--in", "a.wav"), for error messages and logs; fails like LiveOptionsFromSettings.
absl::StatusOr<std::vector<std::string>> SettingsToArguments(const CLI::App& command, const nlohmann::json& settings,
                                                             const std::set<std::string>& refused);

}  // namespace lingcast
