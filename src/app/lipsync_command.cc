#include "app/lipsync_command.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "audio/audio_decoder.h"
#include "core/atomic_file.h"
#include "core/status.h"
#include "nlohmann/json.hpp"

namespace lingcast {
namespace {

struct Centicue {
  int64_t start = 0;  // centiseconds
  int64_t end = 0;
  char shape = 'X';
};

int64_t Centis(MediaTime t) { return static_cast<int64_t>(std::llround(static_cast<double>(t.micros()) / 1e4)); }

// Contiguous cues from 0 to the end of the audio, on the centisecond grid
// Rhubarb prints.
std::vector<Centicue> Contiguous(const VisemeTrack& track, MediaTime duration) {
  const int64_t end = std::max<int64_t>(0, Centis(duration));
  std::vector<Centicue> cues;
  auto add = [&](int64_t from, int64_t to, char shape) {
    from = std::clamp<int64_t>(from, 0, end);
    to = std::clamp<int64_t>(to, 0, end);
    if (!cues.empty()) from = std::max(from, cues.back().end);
    if (to <= from) return;
    if (!cues.empty() && cues.back().end < from) cues.push_back({cues.back().end, from, 'X'});
    if (cues.empty() && from > 0) cues.push_back({0, from, 'X'});
    if (!cues.empty() && cues.back().shape == shape) {
      cues.back().end = to;
    } else {
      cues.push_back({from, to, shape});
    }
  };
  for (const VisemeCue& c : track.cues) add(Centis(c.start), Centis(c.end), VisemeLetter(c.shape));
  add(cues.empty() ? 0 : cues.back().end, end, 'X');
  return cues;
}

std::string Seconds(int64_t centis) { return absl::StrFormat("%d.%02d", centis / 100, centis % 100); }

absl::Status CheckOptions(const LipsyncCommandOptions& options) {
  if (options.format != "tsv" && options.format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format must be tsv or json, got '", options.format, "'"));
  }
  if (!(options.fps >= 1 && options.fps <= 120)) {
    return absl::InvalidArgumentError(absl::StrFormat("--fps must be between 1 and 120, got %g", options.fps));
  }
  if (!options.dialog_path.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(options.dialog_path, ec)) {
      return absl::NotFoundError(absl::StrCat(options.dialog_path, ": dialog file not found"));
    }
    if (std::filesystem::is_directory(options.dialog_path, ec)) {
      return absl::InvalidArgumentError(absl::StrCat(options.dialog_path, ": is a folder, not a dialog text file"));
    }
    std::ifstream probe(options.dialog_path);
    if (!probe) return absl::PermissionDeniedError(absl::StrCat(options.dialog_path, ": cannot read the dialog file"));
  }
  if (!options.output_path.empty()) LC_RETURN_IF_ERROR(CheckOutputPath(options.output_path));
  return absl::OkStatus();
}

}  // namespace

std::string FormatRhubarbTsv(const VisemeTrack& track, MediaTime duration) {
  const std::vector<Centicue> cues = Contiguous(track, duration);
  std::string out;
  for (const Centicue& c : cues) absl::StrAppend(&out, Seconds(c.start), "\t", std::string(1, c.shape), "\n");
  // A closing line at the end of the audio, as Rhubarb writes it: the mouth at rest.
  absl::StrAppend(&out, Seconds(cues.empty() ? 0 : cues.back().end), "\tX\n");
  return out;
}

std::string FormatRhubarbJson(const VisemeTrack& track, MediaTime duration, const std::string& sound_file) {
  const std::vector<Centicue> cues = Contiguous(track, duration);
  std::string out = absl::StrCat("{\n  \"metadata\": {\n    \"soundFile\": ", nlohmann::json(sound_file).dump(),
                                 ",\n    \"duration\": ", Seconds(std::max<int64_t>(0, Centis(duration))),
                                 "\n  },\n  \"mouthCues\": [\n");
  for (size_t i = 0; i < cues.size(); ++i) {
    absl::StrAppend(&out, "    { \"start\": ", Seconds(cues[i].start), ", \"end\": ", Seconds(cues[i].end),
                    ", \"value\": \"", std::string(1, cues[i].shape), "\" }", i + 1 < cues.size() ? "," : "", "\n");
  }
  absl::StrAppend(&out, "  ]\n}\n");
  return out;
}

absl::StatusOr<LipsyncSummary> RunLipsyncCommand(const LipsyncCommandOptions& options, std::ostream& out,
                                                 Logger& logger) {
  LC_RETURN_IF_ERROR(CheckOptions(options));
  LC_ASSIGN_OR_RETURN(AudioBuffer audio, DecodeAudioFile(options.input, AudioVisemeOptions::kSampleRate));

  RecordingLipSyncOptions lipsync;
  lipsync.dialog_path = options.dialog_path;
  lipsync.model_dir = options.model_dir;
  lipsync.frame_rate = options.fps;
  LC_ASSIGN_OR_RETURN(RecordingLipSync result, LipSyncRecording(audio, lipsync));
  logger.Info("lipsync", absl::StrCat("method ", LipSyncMethodName(result.method)), {{"why", result.note}});

  const std::string text = options.format == "json"
                               ? FormatRhubarbJson(result.track, audio.duration(), options.input)
                               : FormatRhubarbTsv(result.track, audio.duration());
  if (options.output_path.empty()) {
    out << text;
    out.flush();
    if (!out) return absl::InternalError("cannot write the mouth cues to stdout");
  } else {
    LC_ASSIGN_OR_RETURN(TempFile temp, TempFile::Create(options.output_path));
    {
      std::ofstream file(temp.open_path(), std::ios::binary);
      file << text;
      file.flush();
      if (!file) return absl::InternalError(absl::StrCat("cannot write ", options.output_path));
    }
    LC_RETURN_IF_ERROR(temp.Commit());
  }
  LipsyncSummary summary;
  summary.method = result.method;
  summary.note = result.note;
  summary.cues = static_cast<int>(result.track.cues.size());
  return summary;
}

namespace {

int RunFromFlags(const LipsyncCommandOptions& lipsync_options, Logger& logger) {
  absl::StatusOr<LipsyncSummary> summary = RunLipsyncCommand(lipsync_options, std::cout, logger);
  if (!summary.ok()) return ReportCommandStatus(summary.status());
  std::fprintf(stderr, "lipsync: %d cues, method %s (%s)\n", summary->cues, LipSyncMethodName(summary->method),
               summary->note.c_str());
  return 0;
}

}  // namespace

Command AddLipsyncCommand(CLI::App& app) {
  CLI::App* lipsync_cmd = app.add_subcommand(
      "lipsync", "Mouth cues (shapes A-H, X) for a recording, in Rhubarb Lip Sync's TSV or JSON layout");
  auto flags = std::make_shared<LipsyncCommandOptions>();
  LipsyncCommandOptions& lipsync_options = *flags;
  lipsync_cmd->add_option("input", lipsync_options.input, "Audio or video file")->required();
  lipsync_cmd->add_option("--dialog", lipsync_options.dialog_path,
                          "Text file of what is said (English: aligned with the recognizer)");
  lipsync_cmd->add_option("--format", lipsync_options.format, "tsv or json")->capture_default_str();
  lipsync_cmd->add_option("--fps", lipsync_options.fps, "Video frame rate the cues snap to (1-120)")
      ->capture_default_str();
  lipsync_cmd->add_option("-o,--output", lipsync_options.output_path, "Output file (written atomically); stdout when absent");
  return {lipsync_cmd, [flags](Logger& logger) { return RunFromFlags(*flags, logger); }};
}

}  // namespace lingcast
