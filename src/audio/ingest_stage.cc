#include "audio/ingest_stage.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/status.h"

namespace lingcast {

IngestStage::IngestStage(AudioChunkReader read, IngestOptions options)
    : Stage("ingest"), read_(std::move(read)), options_(options), session_start_(options.session_start) {}

absl::StatusOr<Flow> IngestStage::Process() {
  if (draining()) return Flow::kFinished;
  if (options_.start_when_running != nullptr && samples_ == 0) {
    session_start_ = options_.start_when_running->Get(clock());
  }
  AudioBuffer chunk;
  LC_ASSIGN_OR_RETURN(const bool more, read_(chunk));
  if (!more) return Flow::kFinished;
  if (chunk.sample_rate != kSampleRate || chunk.channels != 1) {
    return absl::InternalError("the live source must deliver 16 kHz mono audio");
  }
  // Pieces of at most 20 ms, so the VAD and the watermarks move in small steps
  // whatever size the source reads.
  const auto piece = static_cast<size_t>(kPiece.micros() * kSampleRate / 1'000'000);
  for (size_t begin = 0; begin < chunk.samples.size(); begin += piece) {
    const size_t end = std::min(chunk.samples.size(), begin + piece);
    AudioBuffer part{kSampleRate, 1,
                     std::vector<float>(chunk.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                                        chunk.samples.begin() + static_cast<std::ptrdiff_t>(end))};
    const MediaTime pts = MediaTime::FromSamples(samples_, kSampleRate);
    samples_ += static_cast<int64_t>(part.samples.size());
    const MediaTime part_end = MediaTime::FromSamples(samples_, kSampleRate);
    // A live source delivers a piece once all of it has been captured.
    if (options_.pace) clock().SleepUntil(session_start_ + part_end);
    const MediaTime origin = options_.origin_from_timeline ? session_start_ + part_end : clock().Now();
    position_us_.store(part_end.micros());
    LC_RETURN_IF_ERROR(out.Push(Packet<AudioBuffer>{std::move(part), pts, part_end - pts, origin}));
    if (draining()) return Flow::kFinished;
  }
  return Flow::kContinue;
}

}  // namespace lingcast
