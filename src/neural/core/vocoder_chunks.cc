#include "neural/core/vocoder_chunks.h"

#include <algorithm>
#include <string>

#include "neural/core/neural_error.h"

namespace lingcast::neural {

std::vector<std::pair<std::int64_t, std::int64_t>> ChunkFrames(std::int64_t frames, const VocoderChunking& chunking) {
  if (chunking.first_frames < 1 || chunking.max_frames < chunking.first_frames) {
    Fail(ErrorCode::kInvalidArgument, "vocoder chunks of " + std::to_string(chunking.first_frames) + " then up to " +
                                          std::to_string(chunking.max_frames) + " frames: need 1 <= first <= max");
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  std::int64_t size = chunking.first_frames;
  for (std::int64_t begin = 0; begin < frames; size = std::min(size * 2, chunking.max_frames)) {
    std::int64_t end = std::min(frames, begin + size);
    // A tail shorter than the first chunk joins this one: each cut decodes its
    // context again, which costs more than a short tail saves.
    if (frames - end < chunking.first_frames) end = frames;
    chunks.emplace_back(begin, end);
    begin = end;
  }
  return chunks;
}

void DecodeWithContext(std::int64_t frames, std::int64_t reach, std::int64_t hop, const VocoderChunking& chunking,
                       const std::function<torch::Tensor(std::int64_t context_begin, std::int64_t context_end)>& decode,
                       const std::function<bool(const torch::Tensor& samples)>& sink) {
  for (const auto& [begin, end] : ChunkFrames(frames, chunking)) {
    const std::int64_t context_begin = std::max<std::int64_t>(0, begin - reach);
    const std::int64_t context_end = std::min(frames, end + reach);
    const torch::Tensor wave = decode(context_begin, context_end).reshape({-1});
    const torch::Tensor samples =
        wave.narrow(0, (begin - context_begin) * hop, (end - begin) * hop).to(torch::kFloat).cpu().contiguous();
    if (!sink(samples)) return;
  }
}

}  // namespace lingcast::neural
