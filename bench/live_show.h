// The bench shows of live_bench and serve_bench: an English host following a
// script (with ad-libs), written as a 16 kHz WAV by a real voice.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace lingcast {

// What the bench's host says and with which voice.
struct ShowSpec {
  bool eleven = false;       // the eleven-line show (a skip, two lines out of order) instead of the seven-line one
  bool neural_host = false;  // the installed English neural voice instead of espeak-ng en-gb
};

// The script's lines, {English, Mandarin}.
const std::vector<std::pair<std::string, std::string>>& Lines(const ShowSpec& spec);
// What the host says, in order (script lines and ad-libs).
std::vector<std::string> Show(const ShowSpec& spec);
// The show `repeats` times as a 16-bit mono 16 kHz WAV, 1.2 s between lines.
absl::Status WriteHost(const std::string& path, int repeats, const ShowSpec& spec);
// The script of the show, in lingcast's script format.
absl::Status WriteScript(const std::string& path, const ShowSpec& spec);
// The duration of a WAV WriteHost wrote.
double Seconds(const std::string& wav);
// A new folder lingcast_NAME_XXXXXX under the temporary directory holding the
// show once (host.wav) and its script (show.script).
absl::StatusOr<std::filesystem::path> WriteShowDir(const std::string& name, const ShowSpec& spec);

}  // namespace lingcast
