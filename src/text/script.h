// The render script: what the anchor says, its translations, and the pauses.
// The format is specified in docs/script-format.md.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "media/text_segment.h"

namespace lingcast {

// A pause from a blank line (kDefaultPause), or from `@pause SECONDS`.
inline constexpr MediaTime kDefaultScriptPause = MediaTime::Millis(600);
inline constexpr double kMaxScriptPauseSeconds = 60.0;

// One spoken item: segments[0] is spoken, segments[1..] are its translations.
struct ScriptLine {
  int line_number = 0;  // 1-based line in the file
  std::vector<TextSegment> segments;
};

struct ScriptPause {
  int line_number = 0;
  MediaTime duration;
};

// `@emotion NAME`: the avatar's expression from the next line on, one of
// kScriptEmotions (the avatar module's Expression names).
struct ScriptEmotion {
  int line_number = 0;
  std::string name;
};
inline constexpr const char* kScriptEmotions[] = {"neutral", "smile", "surprised", "thinking"};

// `@title NAME|SUBTITLE` (or `@title NAME`): the lower-third title from the next
// item on, until the next `@title`; `@title off` clears it (text empty). The
// text is checked here (a name, at most one '|') so a render fails before it starts.
struct ScriptTitle {
  int line_number = 0;
  std::string text;  // as written after `@title`, trimmed; empty for `@title off`
};

using ScriptItem = std::variant<ScriptLine, ScriptPause, ScriptEmotion, ScriptTitle>;

struct Script {
  std::string filename;
  std::vector<ScriptItem> items;

  // Number of ScriptLine items.
  int spoken_line_count() const;
};

// Reads and parses a script file. NotFound / PermissionDenied name the file;
// format errors are InvalidArgument "FILE:LINE:COL: what is wrong".
absl::StatusOr<Script> ParseScriptFile(const std::string& path);

// Parses script text; `filename` is used in error messages and Script::filename.
absl::StatusOr<Script> ParseScriptText(std::string_view text, std::string_view filename);

}  // namespace lingcast
