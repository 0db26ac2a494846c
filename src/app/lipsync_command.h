// `lingcast lipsync IN_AUDIO [--dialog TEXT_FILE] [--format tsv|json] [--fps N] [-o OUT]`:
// mouth cues for a recording in Rhubarb Lip Sync's layouts, so tools that read
// Rhubarb's output read ours.
//
//   tsv:  one line per cue, "SECONDS<TAB>SHAPE" (seconds with 2 decimals,
//         shapes A-H and X), contiguous from 0.00, the last line X at the end
//         of the audio;
//   json: {"metadata": {"soundFile": IN_AUDIO, "duration": SECONDS},
//          "mouthCues": [{"start": S, "end": S, "value": "X"}, ...]}
//
// The method (ASR alignment with the dialog, or audio-only) is logged at info
// level and returned. Errors (exit 2), one line each, nothing written: missing
// or undecodable audio, an unknown format, fps out of 1..120, an unreadable
// dialog, an output path that cannot be written.
#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "app/command.h"
#include "core/logger.h"
#include "core/media_time.h"
#include "lipsync/dialog_alignment.h"
#include "media/viseme.h"

namespace lingcast {

struct LipsyncCommandOptions {
  std::string input;
  std::string dialog_path;
  std::string format = "tsv";
  double fps = 30;
  std::string output_path;  // empty: `out`
  std::string model_dir;    // pocketsphinx en-us folder; empty = the default
};

struct LipsyncSummary {
  LipSyncMethod method = LipSyncMethod::kAudioOnly;
  std::string note;
  int cues = 0;
};

absl::StatusOr<LipsyncSummary> RunLipsyncCommand(const LipsyncCommandOptions& options, std::ostream& out,
                                                 Logger& logger);

// The layouts, exposed for tests. `track`'s gaps are X; cue times are rounded
// to centiseconds, cues that round to nothing are dropped and equal neighbours
// merged; everything past `duration` is cut.
std::string FormatRhubarbTsv(const VisemeTrack& track, MediaTime duration);
std::string FormatRhubarbJson(const VisemeTrack& track, MediaTime duration, const std::string& sound_file);

// `lingcast lipsync IN ...`: its flags, and RunLipsyncCommand to stdout (or -o),
// then one summary line on stderr.
Command AddLipsyncCommand(CLI::App& app);

}  // namespace lingcast
