// LiveMonitor: what `lingcast live` measured, collected while it runs (the
// playout and the app thread's status line read and write it from different
// threads) and written as the --report JSON at the end.
//
// Per line the avatar interpreted (or showed as subtitles only):
//   start_offset_ms     its speech starts on the output - the host's utterance starts
//   end_offset_ms       its speech ends on the output  - the host's utterance ends
//   compute_latency_ms  the first sample of its speech written to the outputs - the
//                       moment the audio that decided it arrived (the VAD endpoint,
//                       or the earlier partial that committed a script line), less
//                       the queue wait
//   queue_wait_ms       how long the line, ready, waited for the avatar to finish
//                       the line before it and pause (the lag policy bounds it)
//   provisional_updates   provisional captions of its utterance before it was decided
//   first_provisional_ms  the first of them drawn on the output - the host's utterance starts
// (the SimulEval StartOffset / EndOffset, and DESIGN.md's compute latency).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/sync.h"
#include "media/live_messages.h"
#include "media/video_format.h"
#include "core/latency_tracker.h"
#include "nlohmann/json.hpp"

namespace lingcast {

struct LiveLineRecord {
  HeardLine line;
  std::optional<UtteranceEnded> utterance;  // once the host's utterance has ended
  bool spoken = false;                      // the avatar said it
  bool skipped = false;                     // stale under the lag policy
  double rate = 1.0;
  std::optional<MediaTime> speech_start;    // on the output timeline
  std::optional<MediaTime> speech_end;
  std::optional<MediaTime> compute_latency;
  std::optional<MediaTime> queue_wait;

  std::optional<MediaTime> start_offset() const;
  std::optional<MediaTime> end_offset() const;
};

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0;
  int64_t count = 0;
};
// Nearest-rank percentiles of `values` (all zero when empty).
Percentiles ComputePercentiles(std::vector<double> values);
// The same over the values of two ranges, each sorted ascending, without
// merging them: O(log n) a percentile.
Percentiles PercentilesOfSorted(std::span<const double> a, std::span<const double> b);

// Counters the stages bump and the status line reads.
struct LiveCounters {
  int64_t frames = 0;             // video frames written
  int64_t video_drops = 0;        // frames not rendered because the playout ran late
  int64_t video_switches = 0;     // live size / frame rate changes applied (the `video` command)
  int64_t audio_drops = 0;        // samples of speech or host audio lost (should stay 0)
  int64_t passthrough_underruns = 0;  // host audio that had not arrived in time (silence written)
  int64_t voice_underruns = 0;    // samples of a line in play not yet synthesized (silence written)
  MediaTime output_time;          // end of the audio written
  MediaTime host_time;            // end of the host audio taken in
  int queued_lines = 0;           // waiting for the avatar
  bool speaking = false;
  VideoFormat video;              // the picture now (it changes with the `video` command)
};

// What a live show does as it happens, one JSON object per event, for the
// server's event stream and overlay (docs/serve.md lists the fields):
//   {"type":"decision", "line", "line_number", "source", "translation", "engine", "skipped", "at_ms"}
//   {"type":"subtitle", "line", "primary", "secondary", "from_ms", "until_ms"}  (what the video shows)
//   {"type":"caption", "utterance", "update", "source", "stable", "provisional", "at_ms"}  (provisional)
//   {"type":"speech_start", "line", "at_ms"}, {"type":"speech_end", "line", "at_ms"}
//   {"type":"video", "width", "height", "fps", "at_ms"}  (a live video switch applied)
// Times are on the session's timeline. Called on the playout's thread: it must
// not block (queue the event and return).
using LiveEventObserver = std::function<void(const nlohmann::json& event)>;

class LiveMonitor {
 public:
  // Before the show starts (the playout reads it without a lock).
  void SetObserver(LiveEventObserver observer) { observer_ = std::move(observer); }
  // Called with the counters at every output tick, on the playout's thread
  // (the watchdog's clock: app/live_watchdog.h). Before the show starts.
  void SetTickObserver(std::function<void(const LiveCounters&)> observer) { tick_observer_ = std::move(observer); }
  bool observed() const { return static_cast<bool>(observer_); }
  // Passes `event` to the observer, if any.
  void Publish(const nlohmann::json& event) const;

  void LineQueued(const SpokenLine& line);
  void UtteranceEnd(const UtteranceEnded& ended);
  void SpeechStarted(int64_t id, MediaTime at, MediaTime compute_latency, MediaTime queue_wait);
  void SpeechEnded(int64_t id, MediaTime at);
  // The first frame (output timeline) that showed a provisional caption of `utterance`.
  void CaptionShown(int64_t utterance, MediaTime at);
  void UpdateCounters(const LiveCounters& counters);

  LiveCounters counters() const;
  // The records kept (the last kKeptRecords lines), by decision order.
  std::vector<LiveLineRecord> records() const;
  // Every line decided so far, kept or not.
  int64_t line_count() const;

  // A show of a day decides tens of thousands of lines. Their texts and times
  // are kept for the last this many only (the report lists those); the
  // figures of every line stay in the summary's counts and percentiles.
  static constexpr size_t kKeptRecords = 1000;

  // The report: {"utterances":[...], "summary":{...}, "stages":{...}}. `extra`
  // is merged into the summary (outputs, drops from other parts, RSS, CPU).
  nlohmann::json Report(const std::vector<LatencySummary>& stage_latency, const nlohmann::json& extra) const;

 private:
  // What the summary counts of a set of lines: the folded ones (their values
  // kept sorted, so a report reads percentiles without copying them) or the
  // kept ones (sorted when a report is made).
  struct Figures {
    int64_t lines = 0, spoken = 0, skipped = 0, subtitles_only = 0, off_script = 0, provisional_updates = 0;
    std::vector<double> compute, waits, start_offsets, end_offsets, commit_points, first_captions;
    // Counts the line; `first_caption` is when its utterance's first caption showed.
    void Add(const LiveLineRecord& record, std::optional<MediaTime> first_caption);
    void Sort();
    // Only the last value of each list may be out of place (after Add).
    void SortLast();
  };
  // The first caption of `record`'s utterance, when the line closed its captions.
  std::optional<MediaTime> FirstCaptionLocked(const LiveLineRecord& record) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The oldest record goes into folded_, with the utterances no kept record needs.
  void FoldOldestLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable Mutex mu_;
  std::map<int64_t, LiveLineRecord> records_ ABSL_GUARDED_BY(mu_);
  Figures folded_ ABSL_GUARDED_BY(mu_);  // the lines whose records were let go
  std::map<int64_t, UtteranceEnded> utterances_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, MediaTime> first_caption_ ABSL_GUARDED_BY(mu_);  // by utterance
  LiveCounters counters_ ABSL_GUARDED_BY(mu_);
  LiveEventObserver observer_;
  std::function<void(const LiveCounters&)> tick_observer_;
};

}  // namespace lingcast
