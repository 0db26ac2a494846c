#include "output/srt_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"
#include "core/atomic_file.h"

namespace lingcast {
namespace {

// One subtitle line: CR/LF become spaces and surrounding blanks go.
std::string OneLine(const std::string& text) {
  std::string line;
  line.reserve(text.size());
  for (char c : text) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::string FormatSrtTimestamp(MediaTime t) {
  const int64_t total_ms = t.micros() / 1000;
  return absl::StrFormat("%02d:%02d:%02d,%03d", total_ms / 3'600'000, total_ms / 60'000 % 60,
                         total_ms / 1000 % 60, total_ms % 1000);
}

absl::StatusOr<std::string> FormatSrt(const std::vector<SubtitleCue>& cues) {
  std::string out;
  MediaTime previous_start = MediaTime::Zero();
  for (size_t i = 0; i < cues.size(); ++i) {
    const SubtitleCue& cue = cues[i];
    const std::string where = absl::StrFormat("subtitle cue %d (%s --> %s)", i + 1, cue.start.ToString(),
                                              cue.end.ToString());
    if (cue.start < MediaTime::Zero()) return absl::InvalidArgumentError(where + ": starts before 0");
    if (cue.end <= cue.start) return absl::InvalidArgumentError(where + ": ends before it starts");
    if (cue.start < previous_start) {
      return absl::InvalidArgumentError(where + ": starts before the previous cue");
    }
    previous_start = cue.start;
    const std::string primary = OneLine(cue.primary.text);
    if (primary.empty()) return absl::InvalidArgumentError(where + ": has no text");
    const std::string secondary = OneLine(cue.secondary.text);
    absl::StrAppend(&out, i + 1, "\n", FormatSrtTimestamp(cue.start), " --> ", FormatSrtTimestamp(cue.end), "\n",
                    primary, "\n");
    if (!secondary.empty()) absl::StrAppend(&out, secondary, "\n");
    out += "\n";
  }
  return out;
}

absl::Status WriteSrtFile(const std::string& path, const std::vector<SubtitleCue>& cues) {
  LC_RETURN_IF_ERROR(CheckOutputPath(path));
  LC_ASSIGN_OR_RETURN(std::string document, FormatSrt(cues));
  return WriteFileAtomically(path, document);
}

}  // namespace lingcast
