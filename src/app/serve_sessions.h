// What `lingcast serve` runs in a session: a live show (app/live_job.h) built
// from the session's JSON settings through `live`'s own flags
// (app/live_flags.h), with every file path confined to the directories the
// server was given, its corrections from the API and its events to the
// session's stream.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "app/engine_cache.h"
#include "app/live_options.h"
#include "core/logger.h"
#include "nlohmann/json.hpp"
#include "server/session_manager.h"

namespace lingcast {

// Where a session's files may be (`serve --media-dir/--output-dir`).
struct ServeDirectories {
  std::string media = ".";    // inputs: --in, --script, --tm, --glossary, --avatar, --background
  std::string output = ".";   // what a session writes: file and HLS outputs, --corrections
  std::vector<std::string> models;  // model checkpoints (--asr-model, --tts-model, --marian-model)
};

// The settings the server does not take from a session: the report is kept by
// the server (GET .../report), corrections come from the API, and there is no
// terminal.
const std::set<std::string>& RefusedSessionSettings();

// Resolves every file path of `options` against its directory (a relative path
// is taken from there) and fails with InvalidArgument naming the setting when
// one is outside it (links followed). Network URLs are left as they are; stdin
// ("-") is refused.
absl::Status ConfineSessionPaths(LiveOptions& options, const ServeDirectories& directories);

// The settings as a live show's options: LiveOptionsFromSettings, then
// ConfineSessionPaths; the server's own fields set (quiet, corrections from the API).
absl::StatusOr<LiveOptions> SessionOptions(const nlohmann::json& settings, const ServeDirectories& directories);

// The SessionManager's factory for live shows: `check` parses and confines
// (a 400 on any mistake), `create` opens and loads everything on the session's
// thread, its voice and Whisper from `engines` (one copy for every session).
// `logger` and `engines` outlive the manager.
SessionFactory LiveSessionFactory(ServeDirectories directories, Logger& logger, EngineCache& engines);

}  // namespace lingcast
