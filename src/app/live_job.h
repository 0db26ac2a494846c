// `lingcast live`: a host speaks, the avatar interprets. Wires the stages of
// audio/ingest_stage.h, live_hearing.h, tts/voice_stage.h and
// output/playout_stage.h into one pipeline, runs it (app/job_runner.h) until
// the input ends or SIGINT/SIGTERM, and returns the report.
//
// Stopping on a signal: the input stops at once (the utterance in flight is
// still finished and decided), lines that have not started are not said, the
// line being said is finished, the outputs are flushed, and the job returns
// normally. If that takes longer than `kLiveStopDeadlineSeconds`, the pipeline is
// cancelled and the job fails.
#pragma once

#include <cstdio>
#include <istream>

#include "absl/status/statusor.h"
#include "app/live_options.h"
#include "app/signals.h"
#include "core/logger.h"
#include "nlohmann/json.hpp"

namespace lingcast {

inline constexpr int kLiveStopDeadlineSeconds = 20;

// The report (see output/live_report.h), also written to options.report_path when set.
// `status` gets the live status line (a terminal; null for none).
absl::StatusOr<nlohmann::json> RunLive(const LiveOptions& options, Logger& logger, SignalWatcher& signals,
                                       std::istream& stdin_stream, std::FILE* status);

}  // namespace lingcast
