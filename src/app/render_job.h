// `lingcast render SCRIPT -o OUT.mp4`: the offline job, end to end.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "app/render_options.h"
#include "app/signals.h"
#include "core/logger.h"
#include "output/output_sink.h"

namespace lingcast {

struct RenderSummary {
  std::string output;
  std::string subtitles_output;  // the .srt sidecar, when --subtitles srt
  double duration_s = 0;         // of the output (audio)
  int64_t frames = 0;
  int width = 0, height = 0, fps = 0;
  int lines = 0;                 // spoken utterances
  std::string voice;             // who spoke: the TtsEngine's name ("piper+espeak-ng", "espeak-ng")
  std::string renderer;          // what drew the frames: "cpu" or "cuda" (--renderer)
  double wall_s = 0;
  double x_realtime = 0;         // duration_s / wall_s
  double peak_rss_mb = 0;
  double tts_s = 0, render_s = 0, encode_s = 0;  // compute time per stage
  int64_t bytes = 0;             // all outputs together
  std::vector<OutputSinkStats> outputs;  // one per --out, in order
};

// Runs the whole render. User errors (bad script, options, paths, voices) are
// InvalidArgument/NotFound/...; an interrupted render (SIGINT/SIGTERM) is
// Cancelled. On any error nothing is left at the output path. `signals` must
// have been created before any thread (see signals.h).
absl::StatusOr<RenderSummary> RunRender(const RenderOptions& options, Logger& logger,
                                        SignalWatcher& signals);

std::string RenderSummaryJson(const RenderSummary& summary);
std::string RenderSummaryLine(const RenderSummary& summary);

}  // namespace lingcast
