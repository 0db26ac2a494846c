// `lingcast live`: a host speaks, the avatar interprets. Wires the stages of
// audio/ingest_stage.h, mt/follow_stage.h, mt/translate_stage.h,
// tts/voice_stage.h and output/playout_stage.h into one pipeline, runs it
// (app/job_runner.h) until the input ends or SIGINT/SIGTERM, and returns the
// report.
//
// Stopping on a signal: the input stops at once (the utterance in flight is
// still finished and decided), lines that have not started are not said, the
// line being said is finished, the outputs are flushed, and the job returns
// normally. If that takes longer than `kLiveStopDeadlineSeconds`, the pipeline is
// cancelled and the job fails.
#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "app/live_options.h"
#include "app/signals.h"
#include "core/degradation_ladder.h"
#include "core/logger.h"
#include "nlohmann/json.hpp"
#include "graph/pipeline.h"
#include "output/live_report.h"

namespace lingcast {

class EngineCache;

inline constexpr int kLiveStopDeadlineSeconds = 20;

// What a running live job has done so far (any thread, while it runs).
struct LiveProgress {
  LiveCounters counters;
  int64_t lines = 0;      // decided
  int64_t skipped = 0;    // stale under the lag policy
  MediaTime planned_lag;  // how far the avatar is behind the host now
  nlohmann::json report;  // the live report's lines and summary so far (output/live_report.h)
  std::vector<ChannelStats> queues;  // every connection of the graph: depth now, high water, drops
  nlohmann::json degradation;        // the watchdog's report (app/live_watchdog.h); null with it off
};

// One live show: Create() checks the options, opens the input, loads the
// engines, opens the outputs and wires the graph (so every user mistake fails
// there, before anything runs); Run() runs it once. The server holds many.
class LiveJob {
 public:
  struct Impl;
  // `engines`: where the voice and a Whisper recognizer come from when shared
  // with other jobs (the server's sessions; app/engine_cache.h); null: its own.
  static absl::StatusOr<std::unique_ptr<LiveJob>> Create(const LiveOptions& options, Logger& logger,
                                                         std::istream& stdin_stream, EngineCache* engines = nullptr);
  ~LiveJob();
  LiveJob(const LiveJob&) = delete;
  LiveJob& operator=(const LiveJob&) = delete;

  // Until the input ends, a stop (a signal to `signals` when given, or
  // RequestStop()) has wound it down, or a stage fails; then the report (see
  // output/live_report.h), also written to options.report_path when set.
  // `status` gets the live status line (a terminal; null for none).
  absl::StatusOr<nlohmann::json> Run(SignalWatcher* signals, std::FILE* status);
  // What a stop signal does, from any thread, before or while it runs.
  void RequestStop();
  LiveProgress Progress() const;
  // One --control command (mt/live_control.h) from the server, applied to the
  // next line decided; needs options.control_in_process. InvalidArgument with
  // the parser's reason when it is not a command.
  absl::Status SubmitCorrection(const std::string& command);
  // Decisions, captions and speech as they happen (output/live_report.h); set before Run().
  void SetEventObserver(LiveEventObserver observer);
  // The watchdog's readings from `source` instead of the process's memory and
  // the voice's lag: pressure put in by tests and the soak bench. Before Run();
  // nothing with --watchdog off.
  void SetPressureSource(std::function<PressureReading(const LiveCounters&)> source);
  // The server's process-wide degradation level (0-3): this show stays at
  // least that far down the ladder. Any thread; nothing with --watchdog off.
  void SetDegradationFloor(int level);

 private:
  explicit LiveJob(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// What Create() checks first, without engines, inputs or outputs: the look
// (avatar, background, subtitle style, title) and the script. For the server,
// so a bad session is refused before it starts.
absl::Status CheckLiveLookAndScript(const LiveOptions& options);

// Create() then Run(&signals, status).
absl::StatusOr<nlohmann::json> RunLive(const LiveOptions& options, Logger& logger, SignalWatcher& signals,
                                       std::istream& stdin_stream, std::FILE* status);

}  // namespace lingcast
