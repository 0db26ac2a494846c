// The live job's source stage: reads the host's audio in pieces of at most
// 20 ms and sends each on with its place on the session's timeline (sample n
// of the input is at n / 16000 s). Ends its stream at the end of the input, or
// early, once the pipeline drains (a stop signal): the piece being read is
// still sent, nothing after it.
#pragma once

#include <atomic>
#include <functional>

#include "absl/status/statusor.h"
#include "core/media_time.h"
#include "core/session_start.h"
#include "graph/stage.h"
#include "media/audio_buffer.h"

namespace lingcast {

// Fills `chunk` with the next 16 kHz mono audio; false at the end of the input.
using AudioChunkReader = std::function<absl::StatusOr<bool>(AudioBuffer& chunk)>;

struct IngestOptions {
  // Wait for the clock before passing each piece on, as a live source would
  // deliver it (a file played at real time). Off: as fast as the pipeline takes
  // it (a simulated clock, or a source that paces itself, like stdin).
  bool pace = true;
  // The clock reading at which the session's timeline is 0; with
  // `start_when_running`, read from it at the first piece instead (the live
  // job's real clock: core/session_start.h). Not owned.
  MediaTime session_start;
  SessionStart* start_when_running = nullptr;
  // Stamp each piece's origin (its arrival) as session_start + its end, the
  // moment a live source would have delivered it, instead of the clock reading
  // (a simulated clock runs behind a source read ahead).
  bool origin_from_timeline = true;
};

class IngestStage : public Stage {
 public:
  IngestStage(AudioChunkReader read, IngestOptions options);
  Out<AudioBuffer> out{this, "out"};
  absl::StatusOr<Flow> Process() override;
  // End of the audio sent so far, on the timeline. Thread-safe.
  MediaTime position() const { return MediaTime::Micros(position_us_.load()); }

  static constexpr int kSampleRate = 16000;
  static constexpr MediaTime kPiece = MediaTime::Millis(20);

 private:
  AudioChunkReader read_;
  const IngestOptions options_;
  MediaTime session_start_;  // options_.session_start, or fixed at the first piece
  std::atomic<int64_t> position_us_{0};
  int64_t samples_ = 0;
};

}  // namespace lingcast
